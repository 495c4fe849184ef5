import type { ReactNode, SVGProps } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, Modal, PathIcon } from '@atendo/web-ui';
import { ConfirmDialog as KitConfirmDialog, DialogActions, type ConfirmDialogProps as KitConfirmDialogProps } from '@atendo/web-kit';

export { DialogActions };

/** A yes/no confirmation dialog with this area's texts (see @atendo/web-kit ConfirmDialog). */
export function ConfirmDialog(props: Omit<KitConfirmDialogProps, 'cancelLabel' | 'closeLabel'>) {
  const { t } = useTranslation('admin');
  return <KitConfirmDialog confirmTestId="confirm-button" {...props} cancelLabel={t('common.cancel')} closeLabel={t('common.close')} />;
}

const PATHS = {
  edit: 'M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z',
  trash: 'M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6',
  attach: 'M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5',
  plus: 'M12 5v14M5 12h14',
  search: 'M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM21 21l-4.35-4.35',
  up: 'M18 15l-6-6-6 6',
  down: 'M6 9l6 6 6-6',
  copy: 'M9 9h11v11H9zM5 15H4V4h11v1',
  qr: 'M3 3h7v7H3zM14 3h7v7h-7zM3 14h7v7H3zM14 14h3v3h-3zM18 18h3v3h-3zM14 20h2M20 14v2',
  restart: 'M21 12a9 9 0 1 1-2.6-6.4L21 8M21 3v5h-5',
  power: 'M18.4 6.6a9 9 0 1 1-12.8 0M12 2v10',
  renew: 'M4 12a8 8 0 0 1 14-5.3L20 9M20 4v5h-5M20 12a8 8 0 0 1-14 5.3L4 15M4 20v-5h5',
  history: 'M3 12a9 9 0 1 0 3-6.7L3 8M3 3v5h5M12 7v5l3 3',
} as const;

/** The few line icons the admin screens need beyond @atendo/web-ui's set (decorative). */
export function AdminIcon({ name, ...rest }: { name: keyof typeof PATHS; size?: number } & Omit<SVGProps<SVGSVGElement>, 'name' | 'd'>) {
  return <PathIcon d={PATHS[name]} {...rest} />;
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
