import type { ReactNode } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, Modal } from '@atendo/web-ui';

/** The button row at the bottom of the inbox's dialogs. */
export const DialogActions = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(2)};
`;

/** A form inside a dialog: fields stacked. */
export const DialogForm = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
`;

const Text = styled.p`
  margin: 0;
  line-height: 1.5;
`;

/** A yes/no confirmation (e.g. close all tickets). */
export function ConfirmDialog({ open, title, message, confirmLabel, busy = false, onConfirm, onClose }: { open: boolean; title: string; message: ReactNode; confirmLabel: string; busy?: boolean; onConfirm: () => void; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  return (
    <Modal open={open} title={title} onClose={onClose} closeLabel={t('common.close')}>
      <Text>{message}</Text>
      <DialogActions>
        <Button variant="text" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button variant="danger" onClick={onConfirm} disabled={busy} data-testid="confirm-button">
          {confirmLabel}
        </Button>
      </DialogActions>
    </Modal>
  );
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
