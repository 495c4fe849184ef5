import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { errorText } from '@atendo/web-api';
import { Button, Card, EmptyState, Loading, Muted } from '@atendo/web-ui';
import { downloadCsv, toCsv } from '../api';

export const Grid = styled.div`
  display: grid;
  gap: ${(p) => p.theme.space(2)};
  grid-template-columns: repeat(auto-fit, minmax(200px, 1fr));
  margin-top: ${(p) => p.theme.space(2)};
`;

export const Wide = styled.div`
  display: grid;
  gap: ${(p) => p.theme.space(2)};
  grid-template-columns: repeat(auto-fit, minmax(420px, 1fr));
  margin-top: ${(p) => p.theme.space(2)};
`;

const CardTitle = styled.h2`
  margin: 0 0 ${(p) => p.theme.space(1)};
  font-size: ${(p) => p.theme.font.size.sm};
  font-weight: ${(p) => p.theme.font.weight.medium};
  text-transform: uppercase;
  letter-spacing: 0.05em;
  color: ${(p) => p.theme.colors.textMuted};
`;

const Value = styled.div`
  font-size: ${(p) => p.theme.font.size.xl};
  font-weight: ${(p) => p.theme.font.weight.bold};
  color: ${(p) => p.theme.colors.primary};
`;

/** A counter card: a label and a big value. */
export function StatCard({ label, value, testId }: { label: string; value: ReactNode; testId: string }) {
  return (
    <Card data-testid={testId}>
      <CardTitle>{label}</CardTitle>
      <Value data-testid={`${testId}-value`}>{value}</Value>
    </Card>
  );
}

const Head = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${(p) => p.theme.space(1)};
`;

/**
 * A card holding one figure set (chart or table) with its title, a CSV export of its rows, and the
 * loading, error (translated catalogue code, retry) and empty states.
 */
export function Panel(props: {
  title: string;
  testId: string;
  loading: boolean;
  error: unknown;
  empty: boolean;
  /** The empty state's text (default: no ticket in the period). */
  emptyText?: string;
  onRetry: () => void;
  csv?: { name: string; header: string[]; rows: () => (string | number | null)[][] };
  children: ReactNode;
}) {
  const { t } = useTranslation('dashboard');
  let body: ReactNode;
  if (props.loading) body = <Loading label={t('loading')} />;
  else if (props.error)
    body = (
      <div role="alert">
        <Muted>{t('chartError')}: {errorText(props.error)}</Muted>
        <Button variant="secondary" onClick={props.onRetry}>
          {t('retry')}
        </Button>
      </div>
    );
  else if (props.empty) body = <EmptyState text={props.emptyText ?? t('empty')} />;
  else body = props.children;
  return (
    <Card data-testid={props.testId} aria-label={props.title}>
      <Head>
        <CardTitle>{props.title}</CardTitle>
        {props.csv && !props.loading && !props.error && !props.empty ? (
          <Button variant="text" data-testid={`${props.testId}-csv`} onClick={() => downloadCsv(props.csv!.name, toCsv(props.csv!.header, props.csv!.rows()))}>
            {t('exportCsv')}
          </Button>
        ) : null}
      </Head>
      {body}
    </Card>
  );
}

export const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: ${(p) => p.theme.font.size.sm};
  th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid ${(p) => p.theme.colors.border}; }
  th { color: ${(p) => p.theme.colors.textMuted}; font-weight: ${(p) => p.theme.font.weight.medium}; }
  td.num, th.num { text-align: right; }
`;

export const Tabs = styled.div`
  display: flex;
  gap: ${(p) => p.theme.space(1)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  margin-top: ${(p) => p.theme.space(3)};
  button[aria-selected='true'] { border-bottom: 2px solid ${(p) => p.theme.colors.primary}; color: ${(p) => p.theme.colors.primary}; }
`;

export const TabButton = styled.button`
  background: none;
  border: none;
  border-bottom: 2px solid transparent;
  padding: 8px 12px;
  cursor: pointer;
  color: ${(p) => p.theme.colors.text};
  font: inherit;
`;

export const FilterBar = styled.form`
  display: flex;
  flex-wrap: wrap;
  align-items: flex-end;
  gap: ${(p) => p.theme.space(2)};
  margin-top: ${(p) => p.theme.space(2)};
  > * { min-width: 160px; }
`;
