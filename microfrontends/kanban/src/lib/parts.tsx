import { useEffect, useRef } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, EmptyState, Loading } from '@atendo/web-ui';
import { errorText } from '@atendo/web-api';

/** A screen of this area: a column filling the area, padded. */
export const Frame = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(2)};
  height: 100%;
  min-height: 0;
  padding: ${(p) => p.theme.space(3)};
  box-sizing: border-box;
`;

/** A row of filter controls under the page title. */
export const FilterBar = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
`;

/** A toggle chip of a filter (a queue), coloured with the record's colour when pressed. */
export const ToggleChip = styled.button.attrs({ type: 'button' })<{ $color: string; $on: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 6px;
  padding: 4px 12px;
  border-radius: ${(p) => p.theme.radius.round};
  border: 1px solid ${(p) => p.$color};
  background: ${(p) => (p.$on ? p.$color : 'transparent')};
  color: ${(p) => (p.$on ? '#fff' : p.theme.colors.text)};
  text-shadow: ${(p) => (p.$on ? '0 0 2px rgba(0, 0, 0, 0.45)' : 'none')};
  font-size: ${(p) => p.theme.font.size.sm};
  cursor: pointer;
  &:focus-visible { outline: 2px solid ${(p) => p.theme.colors.focus}; outline-offset: 2px; }
`;

/**
 * The failed state of a load: the error's translated text (catalogue code, spec 1-platform.md §8) and a
 * retry button. Kanban load failures are shown here only, without a toast (spec 3-campaigns-and-tools.md §8).
 */
export function Failed({ error, onRetry, testId }: { error: unknown; onRetry: () => void; testId: string }) {
  const { t } = useTranslation('kanban');
  return (
    <EmptyState icon="warning" text={errorText(error)} role="alert" data-testid={testId}>
      <Button variant="secondary" onClick={onRetry}>
        {t('common.retry')}
      </Button>
    </EmptyState>
  );
}

/** The loading state with this area's text. */
export function PageLoading() {
  const { t } = useTranslation('kanban');
  return <Loading label={t('common.loading')} />;
}

/**
 * A callback that runs `fn` once, `ms` after the last call (live events arriving in bursts refresh once).
 * Pending calls are dropped on unmount.
 */
export function useCoalesced(fn: () => void, ms = 250): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const ref = useRef(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current();
    }, ms);
  });
  return ref.current;
}
