import type { ReactNode } from 'react';
import styled from 'styled-components';
import { Button, Modal } from '@atendo/web-ui';

/** The button row at the bottom of a dialog. */
export const DialogActions = styled.div`
  display: flex;
  justify-content: flex-end;
  flex-wrap: wrap;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(2)};
`;

const Message = styled.div`
  line-height: 1.5;
`;

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** Texts of the cancel button and of the dialog's close control (the area's translations). */
  cancelLabel: string;
  closeLabel: string;
  /** The confirm button in the danger colour (default) or the primary one. */
  danger?: boolean;
  /** Disables the confirm button while the action runs. */
  busy?: boolean;
  /** `data-testid` of the confirm button. */
  confirmTestId?: string;
  onConfirm: () => void;
  onClose: () => void;
}

/** A yes/no confirmation dialog (cancel / confirm). */
export function ConfirmDialog({ open, title, message, confirmLabel, cancelLabel, closeLabel, danger = true, busy = false, confirmTestId = 'confirm-button', onConfirm, onClose }: ConfirmDialogProps) {
  return (
    <Modal open={open} title={title} onClose={onClose} closeLabel={closeLabel}>
      <Message>{message}</Message>
      <DialogActions>
        <Button variant="text" onClick={onClose}>
          {cancelLabel}
        </Button>
        <Button variant={danger ? 'danger' : 'primary'} onClick={onConfirm} disabled={busy} data-testid={confirmTestId}>
          {confirmLabel}
        </Button>
      </DialogActions>
    </Modal>
  );
}
