import type { ReactNode, SVGProps } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, Modal } from '@atendo/web-ui';

/** The button row at the bottom of the area's dialogs. */
export const DialogActions = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(2)};
`;

const Text = styled.p`
  margin: 0;
  line-height: 1.5;
`;

/** A yes/no confirmation (e.g. delete an announcement). */
export function ConfirmDialog({ open, title, message, confirmLabel, busy = false, onConfirm, onClose }: { open: boolean; title: string; message: ReactNode; confirmLabel: string; busy?: boolean; onConfirm: () => void; onClose: () => void }) {
  const { t } = useTranslation('admin');
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

const PATHS = {
  edit: 'M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z',
  trash: 'M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6',
  attach: 'M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5',
  plus: 'M12 5v14M5 12h14',
  search: 'M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM21 21l-4.35-4.35',
} as const;

/** The few line icons the admin screens need beyond @atendo/web-ui's set (decorative). */
export function AdminIcon({ name, size = 20, ...rest }: { name: keyof typeof PATHS; size?: number } & Omit<SVGProps<SVGSVGElement>, 'name'>) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false" {...rest}>
      <path d={PATHS[name]} />
    </svg>
  );
}

/** A small coloured label (priority, status). */
export const Chip = styled.span<{ $tone: 'danger' | 'warning' | 'info' | 'success' | 'muted' }>`
  display: inline-flex;
  align-items: center;
  padding: 2px 10px;
  border-radius: ${(p) => p.theme.radius.round};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.medium};
  white-space: nowrap;
  color: ${(p) => (p.$tone === 'muted' ? p.theme.colors.textMuted : p.theme.colors[p.$tone])};
  border: 1px solid currentColor;
`;
