import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, Modal } from '@atendo/web-ui';
import { ConfirmDialog as KitConfirmDialog, DialogActions, type ConfirmDialogProps as KitConfirmDialogProps } from '@atendo/web-kit';
import { initials } from './format';
import './i18n';

/** Small building blocks shared by the conversation's pieces: dialogs, a switch, an avatar, chips. */

export { DialogActions };

export type ConfirmDialogProps = Omit<KitConfirmDialogProps, 'cancelLabel' | 'closeLabel' | 'confirmTestId'>;

/** A confirmation dialog (cancel / confirm; the confirm button in the danger colour only when `danger`). */
export function ConfirmDialog({ danger = false, ...props }: ConfirmDialogProps) {
  const { t } = useTranslation('inbox');
  return <KitConfirmDialog {...props} danger={danger} confirmTestId="confirm-dialog-confirm" cancelLabel={t('conversation.cancel')} closeLabel={t('conversation.close')} />;
}

/** An information dialog with one OK button. */
export function InfoDialog({ open, title, message, onClose }: { open: boolean; title: string; message: ReactNode; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  return (
    <Modal open={open} title={title} onClose={onClose} closeLabel={t('conversation.close')}>
      <div role="status">{message}</div>
      <DialogActions>
        <Button onClick={onClose}>{t('conversation.ok')}</Button>
      </DialogActions>
    </Modal>
  );
}

const SwitchLabel = styled.label<{ $disabled?: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 6px;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => p.theme.colors.textMuted};
  cursor: ${(p) => (p.$disabled ? 'not-allowed' : 'pointer')};
  user-select: none;
  input { position: absolute; opacity: 0; width: 1px; height: 1px; }
  .track {
    position: relative;
    width: 30px;
    height: 16px;
    border-radius: 8px;
    background: ${(p) => p.theme.colors.border};
    transition: background 0.15s ease;
    flex: none;
  }
  .track::after {
    content: '';
    position: absolute;
    top: 2px;
    left: 2px;
    width: 12px;
    height: 12px;
    border-radius: 50%;
    background: #fff;
    transition: transform 0.15s ease;
  }
  input:checked + .track { background: ${(p) => p.theme.colors.primary}; }
  input:checked + .track::after { transform: translateX(14px); }
  input:focus-visible + .track { outline: 2px solid ${(p) => p.theme.colors.focus}; outline-offset: 2px; }
`;

/** A labelled on/off switch (a checkbox with role switch). */
export function Switch({ checked, onChange, label, disabled, testId }: { checked: boolean; onChange: (v: boolean) => void; label: string; disabled?: boolean; testId?: string }) {
  const id = useId();
  return (
    <SwitchLabel htmlFor={id} $disabled={disabled}>
      <input id={id} type="checkbox" role="switch" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-checked={checked} data-testid={testId} />
      <span className="track" aria-hidden="true" />
      {label}
    </SwitchLabel>
  );
}

const AvatarBox = styled.span<{ $size: number }>`
  display: inline-flex;
  flex: none;
  align-items: center;
  justify-content: center;
  width: ${(p) => p.$size}px;
  height: ${(p) => p.$size}px;
  border-radius: 50%;
  overflow: hidden;
  background: ${(p) => p.theme.colors.primarySoft};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
  font-size: ${(p) => Math.round(p.$size * 0.38)}px;
  img { width: 100%; height: 100%; object-fit: cover; }
`;

/** A round contact picture, or the name's initials. */
export function Avatar({ name, url, size = 40 }: { name: string; url?: string | null; size?: number }) {
  return <AvatarBox $size={size}>{url ? <img src={url} alt="" referrerPolicy="no-referrer" /> : <span aria-hidden="true">{initials(name)}</span>}</AvatarBox>;
}

/** A small coloured label (queue, status, user). */
export const Chip = styled.span<{ $color?: string; $outlined?: boolean }>`
  display: inline-flex;
  align-items: center;
  max-width: 180px;
  padding: 1px 8px;
  border-radius: ${(p) => p.theme.radius.round};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.medium};
  line-height: 18px;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
  color: ${(p) => (p.$outlined ? p.$color ?? p.theme.colors.textMuted : '#fff')};
  background: ${(p) => (p.$outlined ? 'transparent' : p.$color ?? p.theme.colors.textMuted)};
  border: 1px solid ${(p) => p.$color ?? p.theme.colors.border};
`;

/** A list of choices for a modal (radio-like buttons). */
export const ChoiceList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 260px;
  overflow: auto;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  li + li { border-top: 1px solid ${(p) => p.theme.colors.border}; }
  button {
    display: flex;
    align-items: center;
    gap: 8px;
    width: 100%;
    padding: 10px 12px;
    border: none;
    background: transparent;
    text-align: left;
    cursor: pointer;
  }
  button:hover, button[aria-selected='true'] { background: ${(p) => p.theme.colors.primarySoft}; }
`;
