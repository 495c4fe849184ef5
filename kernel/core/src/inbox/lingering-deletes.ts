import type { Knex } from 'knex';

/** Finished rows wait this long (milliseconds) for others to share their DELETE ... */
const LINGER_MS = 20;
/** ... unless this many are waiting. */
const BATCH = 500;
/** Ids in one DELETE at most. */
const MAX_IDS = 5_000;

/**
 * Deletes finished rows of a durable table (`inbox_events`, `outbox_events`) in groups: an id added waits up to
 * 20 ms for others (or goes at once when 500 wait, or once `urgent`), so a burst costs one statement per hundreds
 * of rows and nobody waits for it. A failed DELETE is retried a second later (until then the rows may be handled
 * again, which their handlers allow for). `flush()` deletes what waits now.
 */
export class LingeringDeletes {
  private readonly ids: number[] = [];
  private deleting = false;
  private linger: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly table: 'inbox_events' | 'outbox_events',
    private readonly onError: (err: unknown, rows: number) => void,
  ) {}

  /** Ids waiting for their DELETE. */
  get waiting(): number {
    return this.ids.length;
  }

  /** A finished row; `urgent`: delete without lingering (shutting down). */
  add(id: number, urgent = false): void {
    this.ids.push(id);
    if (this.ids.length >= BATCH || urgent) {
      clearTimeout(this.linger);
      this.linger = undefined;
      void this.flush();
      return;
    }
    if (this.linger) return;
    this.linger = setTimeout(() => {
      this.linger = undefined;
      void this.flush();
    }, LINGER_MS);
    this.linger.unref?.();
  }

  /** Deletes every id waiting, one statement at a time. */
  async flush(): Promise<void> {
    if (this.deleting || !this.ids.length) return;
    this.deleting = true;
    const ids = this.ids.splice(0, MAX_IDS);
    try {
      await this.db.raw(`DELETE FROM ${this.table} WHERE id = ANY(?::bigint[])`, [ids]);
    } catch (err) {
      this.ids.unshift(...ids);
      if (!this.retry && !this.stopped) {
        this.onError(err, ids.length);
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.flush();
        }, 1_000);
        this.retry.unref?.();
      }
      return;
    } finally {
      this.deleting = false;
    }
    if (this.ids.length) void this.flush();
  }

  /** Stops lingering and retrying, then deletes what waits (once). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.linger);
    clearTimeout(this.retry);
    this.linger = undefined;
    await this.flush();
  }
}
