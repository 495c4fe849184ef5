import { useRef, useState } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, Popover } from '@atendo/web-ui';

const Trigger = styled.button<{ $active: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 4px;
  min-height: 30px;
  padding: 0 10px;
  border: 1px solid ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.border)};
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => (p.$active ? p.theme.colors.primarySoft : 'transparent')};
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.text)};
  font-size: ${(p) => p.theme.font.size.sm};
  cursor: pointer;
`;

const Fields = styled.div`
  display: grid;
  gap: 10px;
  padding: 14px;
  label { display: grid; gap: 4px; font-size: ${(p) => p.theme.font.size.sm}; color: ${(p) => p.theme.colors.textMuted}; }
  input { height: 34px; padding: 0 8px; border: 1px solid ${(p) => p.theme.colors.border}; border-radius: ${(p) => p.theme.radius.md}; background: ${(p) => p.theme.colors.surface}; color: ${(p) => p.theme.colors.text}; }
`;

/** `dd/MM` of a `YYYY-MM-DD` day. */
const short = (day: string) => (day ? `${day.slice(8, 10)}/${day.slice(5, 7)}` : '…');

/**
 * The period filter of the ticket lists: a pill opening two day inputs (from, to; `YYYY-MM-DD`, the last
 * activity's day in America/Sao_Paulo on the server) and a clear button.
 */
export function PeriodFilter({ from, to, onChange }: { from: string; to: string; onChange: (from: string, to: string) => void }) {
  const { t } = useTranslation('inbox');
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const active = Boolean(from || to);
  return (
    <>
      <Trigger ref={anchor} type="button" $active={active} aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="filter-period">
        {t('filters.period')}
        {active ? ` (${short(from)} – ${short(to)})` : ''}
      </Trigger>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('filters.period')} align="start" width={240}>
        <Fields>
          <label>
            {t('filters.from')}
            <input type="date" value={from} max={to || undefined} onChange={(e) => onChange(e.target.value, to)} data-testid="filter-date-from" />
          </label>
          <label>
            {t('filters.to')}
            <input type="date" value={to} min={from || undefined} onChange={(e) => onChange(from, e.target.value)} data-testid="filter-date-to" />
          </label>
          <Button variant="text" onClick={() => onChange('', '')} disabled={!active} data-testid="filter-period-clear">
            {t('filters.clear')}
          </Button>
        </Fields>
      </Popover>
    </>
  );
}
