import type { Knex } from 'knex';
import type { SlaShare, SlaShares } from '../contract';
import { dayRangeInstants } from './business-hours';

type Target = 'fr' | 'res';

/** SQL columns of a target. */
const COLS: Record<Target, { minutes: string; due: string; done: string }> = {
  fr: { minutes: 'first_response_minutes', due: 'first_response_due_at', done: 'first_response_at' },
  res: { minutes: 'resolution_minutes', due: 'resolution_due_at', done: 'resolved_at' },
};

/** `total`, `met` and `breached` aggregates of a target (`?` = now). Done with no due time (hours never open) counts as met. */
function aggregates(t: Target): string {
  const c = COLS[t];
  return [
    `count(*) FILTER (WHERE ${c.minutes} IS NOT NULL)::int AS ${t}_total`,
    `count(*) FILTER (WHERE ${c.minutes} IS NOT NULL AND ${c.done} IS NOT NULL AND (${c.due} IS NULL OR ${c.done} <= ${c.due}))::int AS ${t}_met`,
    `count(*) FILTER (WHERE ${c.minutes} IS NOT NULL AND ${c.due} IS NOT NULL AND ((${c.done} IS NOT NULL AND ${c.done} > ${c.due}) OR (${c.done} IS NULL AND ${c.due} <= ?)))::int AS ${t}_breached`,
  ].join(', ');
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function share(row: Record<string, number> | undefined, t: Target): SlaShare {
  const total = Number(row?.[`${t}_total`] ?? 0);
  const met = Number(row?.[`${t}_met`] ?? 0);
  const breached = Number(row?.[`${t}_breached`] ?? 0);
  return { total, met, breached, running: total - met - breached, share: met + breached ? round2((met / (met + breached)) * 100) : null };
}

/**
 * The share of tickets that met each target (`SlaService.shares`), from `sla_tickets` alone: the tickets whose
 * clock started in the local days of the range, grouped by queue, by attendant (first response: who wrote it,
 * else the ticket's user; resolution: the ticket's user at the close, else now; 0 = none) and in all.
 * Four grouped statements on the `(company_id, started_at)` index.
 */
export async function shares(db: Knex, companyId: number, range: { from: string; to: string; timeZone: string }, now: Date = new Date()): Promise<SlaShares> {
  const { start, end } = dayRangeInstants(range);
  const query = (select: string, nows: number, group = '') =>
    db.raw(`SELECT ${select} FROM sla_tickets WHERE company_id = ? AND started_at >= ? AND started_at < ?${group}`, [...Array<Date>(nows).fill(now), companyId, start, end]);
  const both = `${aggregates('fr')}, ${aggregates('res')}`;
  const [totals, queues, frUsers, resUsers] = await Promise.all([
    query(both, 2),
    query(`queue_id AS key, ${both}`, 2, ' GROUP BY queue_id ORDER BY queue_id'),
    query(`coalesce(first_response_user_id, user_id, 0) AS key, ${aggregates('fr')}`, 1, ' GROUP BY 1 ORDER BY 1'),
    query(`coalesce(resolution_user_id, user_id, 0) AS key, ${aggregates('res')}`, 1, ' GROUP BY 1 ORDER BY 1'),
  ]);
  type Row = Record<string, number> & { key: number };
  const users = new Map<number, { fr?: Row; res?: Row }>();
  for (const r of frUsers.rows as Row[]) users.set(Number(r.key), { fr: r });
  for (const r of resUsers.rows as Row[]) users.set(Number(r.key), { ...users.get(Number(r.key)), res: r });
  return {
    totals: { firstResponse: share(totals.rows[0], 'fr'), resolution: share(totals.rows[0], 'res') },
    queues: (queues.rows as Row[]).map((r) => ({ queueId: Number(r.key), firstResponse: share(r, 'fr'), resolution: share(r, 'res') })),
    users: [...users.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([userId, r]) => ({ userId, firstResponse: share(r.fr, 'fr'), resolution: share(r.res, 'res') }))
      .filter((u) => u.firstResponse.total + u.resolution.total > 0),
  };
}
