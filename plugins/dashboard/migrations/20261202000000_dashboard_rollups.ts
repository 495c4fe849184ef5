import type { Knex } from 'knex';

/**
 * Per-day rollups of `dashboard_tickets`, so the dashboard's figures over a range read one row per day
 * (and user, queue, hour) instead of every ticket: kept exact by a trigger on `dashboard_tickets` in the
 * writer's own statement (the row's old contribution out, its new one in), by local day of the company's
 * time zone as recorded in `dashboard_zones` (no row: no rollups yet; the stats build them on first use
 * and rebuild them when the zone setting changes, under an advisory lock the trigger shares). Durations
 * are integer microseconds (sums stay exact under the subtractions).
 *
 * - dashboard_day_users: per day of creation, user (0: none) and status: tickets, ratings (count, sum,
 *   NPS classes), wait (accepted - created) and support (closed - accepted, closed tickets) count and sum.
 * - dashboard_day_queues: per day of creation and queue (0: none): tickets.
 * - dashboard_day_hours: per day and hour of creation: tickets.
 * - dashboard_day_closed: per day of closing: closed tickets.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE dashboard_zones (
      company_id integer PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
      time_zone text NOT NULL
    );
    CREATE TABLE dashboard_day_users (
      company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      day date NOT NULL,
      user_id integer NOT NULL,
      status varchar(20) NOT NULL,
      tickets integer NOT NULL DEFAULT 0,
      rated integer NOT NULL DEFAULT 0,
      rating_sum integer NOT NULL DEFAULT 0,
      promoters integer NOT NULL DEFAULT 0,
      passives integer NOT NULL DEFAULT 0,
      detractors integer NOT NULL DEFAULT 0,
      wait_n integer NOT NULL DEFAULT 0,
      wait_us bigint NOT NULL DEFAULT 0,
      support_n integer NOT NULL DEFAULT 0,
      support_us bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (company_id, day, user_id, status)
    );
    CREATE TABLE dashboard_day_queues (
      company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      day date NOT NULL,
      queue_id integer NOT NULL,
      tickets integer NOT NULL DEFAULT 0,
      PRIMARY KEY (company_id, day, queue_id)
    );
    CREATE TABLE dashboard_day_hours (
      company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      day date NOT NULL,
      hour smallint NOT NULL,
      tickets integer NOT NULL DEFAULT 0,
      PRIMARY KEY (company_id, day, hour)
    );
    CREATE TABLE dashboard_day_closed (
      company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      day date NOT NULL,
      tickets integer NOT NULL DEFAULT 0,
      PRIMARY KEY (company_id, day)
    );

    -- Adds (sign 1) or removes (sign -1) one ticket row's contribution to the rollups, in time zone zone.
    CREATE FUNCTION dashboard_rollup_apply(r dashboard_tickets, zone text, sign integer, parts text) RETURNS void
    LANGUAGE plpgsql AS $fn$
    DECLARE
      local timestamp := r.created_at AT TIME ZONE zone;
      d date := local::date;
      support boolean := r.status = 'closed' AND r.accepted_at IS NOT NULL AND r.closed_at IS NOT NULL;
    BEGIN
      IF position('u' in parts) > 0 THEN
        INSERT INTO dashboard_day_users AS t (company_id, day, user_id, status, tickets, rated, rating_sum, promoters, passives, detractors, wait_n, wait_us, support_n, support_us)
        VALUES (r.company_id, d, coalesce(r.user_id, 0), r.status, sign,
                sign * (r.rating IS NOT NULL)::int, sign * coalesce(r.rating, 0),
                sign * coalesce(r.rating >= 9, false)::int, sign * coalesce(r.rating BETWEEN 7 AND 8, false)::int, sign * coalesce(r.rating <= 6, false)::int,
                sign * (r.accepted_at IS NOT NULL)::int,
                sign * coalesce((extract(epoch FROM r.accepted_at - r.created_at) * 1000000)::bigint, 0),
                sign * support::int,
                CASE WHEN support THEN sign * (extract(epoch FROM r.closed_at - r.accepted_at) * 1000000)::bigint ELSE 0 END)
        ON CONFLICT (company_id, day, user_id, status) DO UPDATE SET
          tickets = t.tickets + excluded.tickets, rated = t.rated + excluded.rated, rating_sum = t.rating_sum + excluded.rating_sum,
          promoters = t.promoters + excluded.promoters, passives = t.passives + excluded.passives, detractors = t.detractors + excluded.detractors,
          wait_n = t.wait_n + excluded.wait_n, wait_us = t.wait_us + excluded.wait_us,
          support_n = t.support_n + excluded.support_n, support_us = t.support_us + excluded.support_us;
      END IF;
      IF position('q' in parts) > 0 THEN
        INSERT INTO dashboard_day_queues AS t (company_id, day, queue_id, tickets) VALUES (r.company_id, d, coalesce(r.queue_id, 0), sign)
        ON CONFLICT (company_id, day, queue_id) DO UPDATE SET tickets = t.tickets + excluded.tickets;
      END IF;
      IF position('h' in parts) > 0 THEN
        INSERT INTO dashboard_day_hours AS t (company_id, day, hour, tickets) VALUES (r.company_id, d, extract(hour FROM local)::smallint, sign)
        ON CONFLICT (company_id, day, hour) DO UPDATE SET tickets = t.tickets + excluded.tickets;
      END IF;
      IF position('c' in parts) > 0 AND r.status = 'closed' AND r.closed_at IS NOT NULL THEN
        INSERT INTO dashboard_day_closed AS t (company_id, day, tickets) VALUES (r.company_id, (r.closed_at AT TIME ZONE zone)::date, sign)
        ON CONFLICT (company_id, day) DO UPDATE SET tickets = t.tickets + excluded.tickets;
      END IF;
    END
    $fn$;

    -- The trigger: on insert the new row in, on delete the old row out, on update the old out and the new in,
    -- for the rollups whose inputs changed only.
    CREATE FUNCTION dashboard_rollup() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    DECLARE
      old_zone text;
      new_zone text;
      parts text := 'uqhc';
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        IF OLD.company_id = NEW.company_id AND OLD.created_at = NEW.created_at THEN
          parts := '';
          IF (OLD.status, OLD.user_id, OLD.accepted_at, OLD.closed_at, OLD.rating) IS DISTINCT FROM (NEW.status, NEW.user_id, NEW.accepted_at, NEW.closed_at, NEW.rating) THEN parts := parts || 'u'; END IF;
          IF OLD.queue_id IS DISTINCT FROM NEW.queue_id THEN parts := parts || 'q'; END IF;
          IF (OLD.status, OLD.closed_at) IS DISTINCT FROM (NEW.status, NEW.closed_at) THEN parts := parts || 'c'; END IF;
          IF parts = '' THEN RETURN NULL; END IF;
        END IF;
      END IF;
      -- A rebuild of the company's rollups (exclusive lock, see ROLLUP_LOCK in rollups.ts) waits for this
      -- transaction, and this one for it.
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM pg_advisory_xact_lock_shared(1684172064, OLD.company_id);
        SELECT time_zone INTO old_zone FROM dashboard_zones WHERE company_id = OLD.company_id;
        IF old_zone IS NOT NULL THEN PERFORM dashboard_rollup_apply(OLD, old_zone, -1, parts); END IF;
      END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN
        IF TG_OP = 'UPDATE' AND OLD.company_id = NEW.company_id THEN new_zone := old_zone;
        ELSE
          PERFORM pg_advisory_xact_lock_shared(1684172064, NEW.company_id);
          SELECT time_zone INTO new_zone FROM dashboard_zones WHERE company_id = NEW.company_id;
        END IF;
        IF new_zone IS NOT NULL THEN PERFORM dashboard_rollup_apply(NEW, new_zone, 1, parts); END IF;
      END IF;
      RETURN NULL;
    END
    $fn$;

    CREATE TRIGGER dashboard_tickets_rollup_insert AFTER INSERT ON dashboard_tickets FOR EACH ROW EXECUTE FUNCTION dashboard_rollup();
    CREATE TRIGGER dashboard_tickets_rollup_delete AFTER DELETE ON dashboard_tickets FOR EACH ROW EXECUTE FUNCTION dashboard_rollup();
    CREATE TRIGGER dashboard_tickets_rollup_update AFTER UPDATE OF company_id, status, user_id, queue_id, created_at, accepted_at, closed_at, rating
      ON dashboard_tickets FOR EACH ROW EXECUTE FUNCTION dashboard_rollup();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS dashboard_tickets_rollup_insert ON dashboard_tickets;
    DROP TRIGGER IF EXISTS dashboard_tickets_rollup_delete ON dashboard_tickets;
    DROP TRIGGER IF EXISTS dashboard_tickets_rollup_update ON dashboard_tickets;
    DROP FUNCTION IF EXISTS dashboard_rollup();
    DROP FUNCTION IF EXISTS dashboard_rollup_apply(dashboard_tickets, text, integer, text);
    DROP TABLE IF EXISTS dashboard_day_closed, dashboard_day_hours, dashboard_day_queues, dashboard_day_users, dashboard_zones;
  `);
}
