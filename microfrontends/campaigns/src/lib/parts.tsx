import type { SVGProps } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { PathIcon } from '@atendo/web-ui';
import { Chip, ConfirmDialog as KitConfirmDialog, type ConfirmDialogProps as KitConfirmDialogProps } from '@atendo/web-kit';
import type { CampaignStatus } from './api';

/**
 * Pieces the campaigns screens share: the confirmation dialog with the area's texts, line icons, form
 * layout beyond @atendo/web-kit's fields (grid, tabs), the status chip and the progress bar.
 */

/** A yes/no confirmation dialog with this area's texts (see @atendo/web-kit ConfirmDialog). */
export function ConfirmDialog(props: Omit<KitConfirmDialogProps, 'cancelLabel' | 'closeLabel'>) {
  const { t } = useTranslation('campaigns');
  return <KitConfirmDialog confirmTestId="confirm-button" {...props} cancelLabel={t('common.cancel')} closeLabel={t('common.close')} />;
}

const PATHS = {
  edit: 'M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z',
  trash: 'M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6',
  plus: 'M12 5v14M5 12h14',
  upload: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M17 8l-5-5-5 5M12 3v12',
  download: 'M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3',
  people: 'M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM22 21v-2a4 4 0 0 0-3-3.9M16 3.1a4 4 0 0 1 0 7.8',
  stop: 'M6 6h12v12H6z',
  restart: 'M21 12a9 9 0 1 1-2.6-6.4L21 8M21 3v5h-5',
  report: 'M4 20V10M10 20V4M16 20v-7M22 20H2',
  back: 'M19 12H5M12 19l-7-7 7-7',
  attach: 'M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5',
  valid: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM8 12l3 3 5-6',
  invalid: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM15 9l-6 6M9 9l6 6',
  unknown: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3M12 17h.01',
} as const;

export type CampaignIconName = keyof typeof PATHS;

/** The line icons the campaigns screens need beyond @atendo/web-ui's set (decorative). */
export function CampaignIcon({ name, ...rest }: { name: CampaignIconName; size?: number } & Omit<SVGProps<SVGSVGElement>, 'name' | 'd'>) {
  return <PathIcon d={PATHS[name]} {...rest} />;
}

const TONES: Record<CampaignStatus, 'muted' | 'info' | 'primary' | 'danger' | 'success'> = {
  INATIVA: 'muted',
  PROGRAMADA: 'info',
  EM_ANDAMENTO: 'primary',
  CANCELADA: 'danger',
  FINALIZADA: 'success',
};

/** A campaign's status, translated (spec §4), coloured by state. */
export function StatusChip({ status, testId }: { status: CampaignStatus; testId?: string }) {
  const { t } = useTranslation('campaigns');
  return (
    <Chip $tone={TONES[status] ?? 'muted'} data-testid={testId} data-status={status}>
      {t(`status.${status}`)}
    </Chip>
  );
}

const Track = styled.div`
  position: relative;
  height: 10px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors.border};
  overflow: hidden;
`;
const Fill = styled.div<{ $tone: 'primary' | 'danger' | 'success' }>`
  height: 100%;
  background: ${(p) => p.theme.colors[p.$tone]};
  transition: width 0.3s ease;
`;

/** A determinate progress bar (`value` of `max`), with an accessible label. */
export function ProgressBar({ value, max, label, tone = 'primary', testId }: { value: number; max: number; label: string; tone?: 'primary' | 'danger' | 'success'; testId?: string }) {
  const pct = max > 0 ? Math.min(100, Math.round((value / max) * 100)) : 0;
  return (
    <Track role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value} data-testid={testId}>
      <Fill $tone={tone} style={{ width: `${pct}%` }} />
    </Track>
  );
}

// ----------------------------------------------------------------------------------------------- fields

/** Fields two to a row on wide dialogs, one on narrow ones. */
export const FormGrid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(200px, 1fr));
  gap: 0 ${(p) => p.theme.space(2)};
`;

const TabList = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 2px;
  margin-bottom: ${(p) => p.theme.space(2)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;
const Tab = styled.button<{ $active: boolean }>`
  min-height: 36px;
  padding: 0 ${(p) => p.theme.space(1.5)};
  border: none;
  border-bottom: 3px solid ${(p) => (p.$active ? p.theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.textMuted)};
  font-weight: ${(p) => p.theme.font.weight.medium};
  cursor: pointer;
`;

/** Tabs; the panels are the caller's (render the one whose key is `value`). */
export function Tabs<K extends string>({ tabs, value, onChange, label }: { tabs: { key: K; label: string }[]; value: K; onChange: (key: K) => void; label: string }) {
  return (
    <TabList role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <Tab key={tab.key} type="button" role="tab" aria-selected={tab.key === value} $active={tab.key === value} onClick={() => onChange(tab.key)} data-testid={`tab-${tab.key}`}>
          {tab.label}
        </Tab>
      ))}
    </TabList>
  );
}

/** An error line under a control that is not a web-ui field (file inputs). */
export const ErrorLine = styled.div`
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => p.theme.colors.danger};
`;
