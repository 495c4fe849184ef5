import { useEffect, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import styled from 'styled-components';
import { api, HttpError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import type { SlaSocketEvent, SlaTicket } from '@atendo/plugin-sla/contract';

/**
 * The SLA badge of ticket lists and cards (issue 34 item 5; plugins/sla), shared by the inbox rows and the
 * kanban cards: each ticket's due times (`GET /sla/tickets?ticketIds=`, kept live by `company-{id}-sla`), and the
 * alert a ticket shows as a breach nears (`warning`, past the queue's warn share of the target) or once it passed
 * (`breached`), read on the browser's clock every 30 s. Texts come from the area (its translations).
 */
export type { SlaTicket };

/** Ids one `GET /sla/tickets` carries. */
export const SLA_IDS_PER_CALL = 200;
/** How often a mounted badge re-reads the clock. */
export const SLA_TICK_MS = 30_000;

/** The alert of a ticket: the most urgent target not done yet that is near or past its due time. */
export interface SlaAlert {
  level: 'warning' | 'breached';
  target: 'firstResponse' | 'resolution';
  /** The due time (ISO). */
  dueAt: string;
  /** Minutes until the due time (negative once past), rounded towards the due time. */
  minutes: number;
}

/** The alert `sla` shows at `now`, or null (no target near, or every target done). Pure. */
export function slaAlert(sla: SlaTicket | undefined, now: Date = new Date()): SlaAlert | null {
  if (!sla) return null;
  let best: SlaAlert | null = null;
  for (const target of ['firstResponse', 'resolution'] as const) {
    const t = sla[target];
    if (!t || t.doneAt || !t.dueAt) continue;
    const due = Date.parse(t.dueAt);
    const level = due <= now.getTime() || t.breachedAt ? 'breached' : t.warnAt && Date.parse(t.warnAt) <= now.getTime() ? 'warning' : null;
    if (!level) continue;
    const ms = due - now.getTime();
    const alert: SlaAlert = { level, target, dueAt: t.dueAt, minutes: ms >= 0 ? Math.ceil(ms / 60_000) : -Math.floor(-ms / 60_000) };
    if (!best || (alert.level === 'breached' && best.level === 'warning') || (alert.level === best.level && Date.parse(alert.dueAt) < Date.parse(best.dueAt))) best = alert;
  }
  return best;
}

/** `now`, renewed every `ms` while mounted (the badges' clock). */
export function useNow(ms: number = SLA_TICK_MS): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** Query key of the SLA of a set of tickets. */
export const slaKey = (ids: readonly number[]) => ['sla', 'tickets', ids.join(',')] as const;

/** `GET /sla/tickets` for `ids` (in calls of 200); [] when the SLA plugin is not installed (404). */
export async function fetchSla(ids: readonly number[], signal?: AbortSignal): Promise<SlaTicket[]> {
  const out: SlaTicket[] = [];
  for (let i = 0; i < ids.length; i += SLA_IDS_PER_CALL) {
    try {
      out.push(...(await api.get<SlaTicket[]>('/sla/tickets', { query: { ticketIds: ids.slice(i, i + SLA_IDS_PER_CALL).join(',') }, signal })));
    } catch (err) {
      if (err instanceof HttpError && err.status === 404) return [];
      throw err;
    }
  }
  return out;
}

/**
 * The SLA of the tickets `ids` by ticket id, fetched once per set of ids and kept live: `update` replaces a
 * ticket's entry, `delete` removes it (in every cached set holding that ticket).
 */
export function useSlaTickets(ids: readonly number[]): Map<number, SlaTicket> {
  const user = useSessionUser();
  const client = useQueryClient();
  const sorted = useMemo(() => [...new Set(ids)].filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => a - b), [ids]);
  const query = useQuery({
    queryKey: slaKey(sorted),
    queryFn: ({ signal }) => fetchSla(sorted, signal),
    enabled: Boolean(user) && sorted.length > 0,
    staleTime: 60_000,
    retry: 1,
  });
  useSocketEvent<SlaSocketEvent>(user ? `company-${user.companyId}-sla` : null, (e) => {
    if (e?.action !== 'update' && e?.action !== 'delete') return;
    const ticketId = e.action === 'update' ? e.sla.ticketId : e.ticketId;
    for (const [key, list] of client.getQueriesData<SlaTicket[]>({ queryKey: ['sla', 'tickets'] })) {
      const held = String(key[2] ?? '').split(',').map(Number);
      if (!list || !held.includes(ticketId)) continue;
      const rest = list.filter((s) => s.ticketId !== ticketId);
      client.setQueryData(key, e.action === 'update' ? [...rest, e.sla] : rest);
    }
  });
  return useMemo(() => new Map((query.data ?? []).map((s) => [s.ticketId, s])), [query.data]);
}

/** The badge's pill: amber when near, red once breached. */
export const SlaPill = styled.span<{ $level: SlaAlert['level'] }>`
  display: inline-flex;
  align-items: center;
  gap: 3px;
  flex: none;
  padding: 1px 6px;
  border-radius: ${(p) => p.theme.radius.sm};
  font-size: 0.6875rem;
  font-weight: ${(p) => p.theme.font.weight.bold};
  white-space: nowrap;
  color: ${(p) => p.theme.colors.surface};
  background: ${(p) => (p.$level === 'breached' ? p.theme.colors.danger : p.theme.colors.warning)};
`;

/** The texts of a badge, from the area. */
export interface SlaBadgeTexts {
  /** The pill's text, e.g. "SLA 12 min" / "SLA breached". */
  label: (alert: SlaAlert) => string;
  /** The tooltip, e.g. "First response due 14:30". */
  title: (alert: SlaAlert) => string;
}

/** The SLA pill of one ticket, or nothing when no target is near. */
export function SlaBadge({ sla, now, texts, testId = 'sla-badge' }: { sla: SlaTicket | undefined; now: Date; texts: SlaBadgeTexts; testId?: string }) {
  const alert = slaAlert(sla, now);
  if (!alert) return null;
  return (
    <SlaPill $level={alert.level} title={texts.title(alert)} data-testid={testId} data-level={alert.level} data-target={alert.target}>
      {texts.label(alert)}
    </SlaPill>
  );
}
