import type { ReactNode } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, Modal } from '@atendo/web-ui';
import { ConfirmDialog as KitConfirmDialog, DialogActions, type ConfirmDialogProps as KitConfirmDialogProps } from '@atendo/web-kit';

export { DialogActions };

const Text = styled.p`
  margin: 0;
  line-height: 1.5;
`;

/** A form inside a dialog: fields stacked. */
export const DialogForm = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
`;

/** A yes/no confirmation dialog with this area's texts (see @atendo/web-kit ConfirmDialog). */
export function ConfirmDialog(props: Omit<KitConfirmDialogProps, 'cancelLabel' | 'closeLabel'>) {
  const { t } = useTranslation('inbox');
  return <KitConfirmDialog confirmTestId="confirm-button" {...props} cancelLabel={t('common.cancel')} closeLabel={t('common.close')} />;
}

/** Facts of the ticket that already serves a contact: who and in which department. */
export interface OtherTicketInfo {
  userName: string | null;
  queueName: string | null;
}

/**
 * The "ticket already open" information (spec 2-tickets.md §4): another user already serves the contact;
 * names that user and the department.
 */
export function TicketOpenInfoDialog({ info, onClose }: { info: OtherTicketInfo | null; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  return (
    <Modal open={Boolean(info)} title={t('otherOpen.title')} onClose={onClose} closeLabel={t('common.close')}>
      <Text data-testid="other-open-message">
        {t('otherOpen.message', { user: info?.userName || t('otherOpen.noUser'), queue: info?.queueName || t('row.noQueue') })}
      </Text>
      <DialogActions>
        <Button onClick={onClose}>{t('common.ok')}</Button>
      </DialogActions>
    </Modal>
  );
}
