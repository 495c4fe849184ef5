import type { Knex } from 'knex';

/**
 * The advisory lock (classid) of a company's rollups: the trigger on `dashboard_tickets` takes it shared
 * (per company, for its transaction), a rebuild exclusive, so a rebuild sees every committed row and no
 * write lands half in the old rollups and half in the new ones.
 */
export const ROLLUP_LOCK = 1684172064;

/** The rollup tables (migration 20261202000000_dashboard_rollups). */
export const ROLLUP_TABLES = ['dashboard_day_users', 'dashboard_day_queues', 'dashboard_day_hours', 'dashboard_day_closed'] as const;

/** Microseconds of an interval, as the trigger adds them (summed exactly as bigint). */
const US = (interval: string) => `(extract(epoch FROM ${interval}) * 1000000)::bigint`;
const SUPPORT = `status = 'closed' AND accepted_at IS NOT NULL AND closed_at IS NOT NULL`;

/**
 * The per-day rollups of a company's tickets (see the migration): figures over a range of days read a row
 * per day instead of one per ticket. The trigger keeps them exact on every write of `dashboard_tickets`;
 * `ensure` builds them the first time and rebuilds them when the company's time zone changed (days are
 * local days). Queries of another time zone than the rollups' are answered from the rows (DashboardStats).
 */
export class Rollups {
  private readonly running = new Map<number, Promise<void>>();

  constructor(private readonly db: Knex) {}

  /** The time zone the company's rollups are kept in, or undefined when they were never built. */
  async zone(companyId: number): Promise<string | undefined> {
    const row = await this.db('dashboardZones').where({ companyId }).first('timeZone');
    return row?.timeZone as string | undefined;
  }

  /**
   * Makes sure the company's rollups are kept in `timeZone`: one indexed read when they are; otherwise
   * (re)builds them from `dashboard_tickets` in one transaction holding the company's rollup lock. Callers
   * on this node share a running build; on other nodes the lock serialises them and the second finds the
   * work done.
   */
  async ensure(companyId: number, timeZone: string): Promise<void> {
    if ((await this.zone(companyId)) === timeZone) return;
    let run = this.running.get(companyId);
    if (!run) {
      run = this.rebuild(companyId, timeZone).finally(() => this.running.delete(companyId));
      this.running.set(companyId, run);
    }
    await run;
  }

  /** Rebuilds the company's rollups in `timeZone` (see `ensure`). */
  async rebuild(companyId: number, timeZone: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [ROLLUP_LOCK, companyId]);
      const now = await trx('dashboardZones').where({ companyId }).first('timeZone');
      if (now?.timeZone === timeZone) return;
      for (const t of ROLLUP_TABLES) await trx.raw(`DELETE FROM ${t} WHERE company_id = ?`, [companyId]);
      await trx.raw(
        `INSERT INTO dashboard_zones (company_id, time_zone) VALUES (?, ?) ON CONFLICT (company_id) DO UPDATE SET time_zone = excluded.time_zone`,
        [companyId, timeZone],
      );
      const day = `(created_at AT TIME ZONE ?)::date`;
      await trx.raw(
        `INSERT INTO dashboard_day_users (company_id, day, user_id, status, tickets, rated, rating_sum, promoters, passives, detractors, wait_n, wait_us, support_n, support_us)
         SELECT company_id, ${day}, coalesce(user_id, 0), status, count(*), count(rating), coalesce(sum(rating), 0),
                count(*) FILTER (WHERE rating >= 9), count(*) FILTER (WHERE rating BETWEEN 7 AND 8), count(*) FILTER (WHERE rating <= 6),
                count(accepted_at), coalesce(sum(${US('accepted_at - created_at')}), 0),
                count(*) FILTER (WHERE ${SUPPORT}), coalesce(sum(${US('closed_at - accepted_at')}) FILTER (WHERE ${SUPPORT}), 0)
           FROM dashboard_tickets WHERE company_id = ? GROUP BY 1, 2, 3, 4`,
        [timeZone, companyId],
      );
      await trx.raw(
        `INSERT INTO dashboard_day_queues (company_id, day, queue_id, tickets)
         SELECT company_id, ${day}, coalesce(queue_id, 0), count(*) FROM dashboard_tickets WHERE company_id = ? GROUP BY 1, 2, 3`,
        [timeZone, companyId],
      );
      await trx.raw(
        `INSERT INTO dashboard_day_hours (company_id, day, hour, tickets)
         SELECT company_id, ${day}, extract(hour FROM created_at AT TIME ZONE ?)::smallint, count(*) FROM dashboard_tickets WHERE company_id = ? GROUP BY 1, 2, 3`,
        [timeZone, timeZone, companyId],
      );
      await trx.raw(
        `INSERT INTO dashboard_day_closed (company_id, day, tickets)
         SELECT company_id, (closed_at AT TIME ZONE ?)::date, count(*) FROM dashboard_tickets
          WHERE company_id = ? AND status = 'closed' AND closed_at IS NOT NULL GROUP BY 1, 2`,
        [timeZone, companyId],
      );
    });
  }
}
