import type { SVGProps } from 'react';
import { useTranslation } from 'react-i18next';
import { PathIcon } from '@atendo/web-ui';
import { ConfirmDialog as KitConfirmDialog, type ConfirmDialogProps as KitConfirmDialogProps } from '@atendo/web-kit';

/** A yes/no confirmation dialog with this area's texts (see @atendo/web-kit ConfirmDialog). */
export function ConfirmDialog(props: Omit<KitConfirmDialogProps, 'cancelLabel' | 'closeLabel'>) {
  const { t } = useTranslation('agent');
  return <KitConfirmDialog confirmTestId="confirm-button" {...props} cancelLabel={t('common.cancel')} closeLabel={t('common.close')} />;
}

const PATHS = {
  edit: 'M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z',
  trash: 'M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6',
  attach: 'M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5',
  plus: 'M12 5v14M5 12h14',
  play: 'M7 4l13 8-13 8z',
  block: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM4.9 4.9l14.2 14.2',
  unblock: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM8 12l3 3 5-6',
  chat: 'M21 12a8 8 0 0 1-11.6 7.1L4 21l1.9-5.4A8 8 0 1 1 21 12z',
  upload: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M17 8l-5-5-5 5M12 3v12',
  download: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3',
  more: 'M12 6h.01M12 12h.01M12 18h.01',
  calendar: 'M4 5h16v16H4zM4 10h16M8 3v4M16 3v4',
  merge: 'M6 3v18M6 9a6 6 0 0 0 6 6h6M15 12l3 3-3 3',
} as const;

export type AgentIconName = keyof typeof PATHS;

/** The few line icons the agent screens need beyond @atendo/web-ui's set (decorative). */
export function AgentIcon({ name, ...rest }: { name: AgentIconName; size?: number } & Omit<SVGProps<SVGSVGElement>, 'name' | 'd'>) {
  return <PathIcon d={PATHS[name]} filled={name === 'play'} {...rest} />;
}
