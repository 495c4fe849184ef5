import type { Knex } from 'knex';
import type { Bus, BusMessage } from '@atendo/sdk';
import type { BusLogger, DeadLetter } from '../bus/in-process';
import { InProcessBus } from '../bus/in-process';
import { RabbitMqBus } from '../bus/rabbitmq';

/** A dead letter or a dead outbox event, as the operators' screen lists it (`GET /dead-letters`). */
export interface DeadLetterRecord {
  /** `bus:<id>` (a consumer gave up on it) or `outbox:<id>` (the bus refused it). */
  id: string;
  kind: 'bus' | 'outbox';
  /** The consumer queue that gave up (bus), or null (outbox). */
  queue: string | null;
  topic: string;
  messageId: string;
  companyId: number | null;
  error: string | null;
  attempt: number;
  deadAt: string;
  /** Marked for redrive, waiting for a running kernel to put it back. */
  redriving: boolean;
  payload: unknown;
}

/** The company a payload belongs to (`companyId`), or null. */
function companyOf(payload: unknown): number | null {
  const c = (payload as { companyId?: unknown } | null)?.companyId;
  return typeof c === 'number' && Number.isInteger(c) && c > 0 && c <= 2147483647 ? c : null;
}

/**
 * Dead letters of both buses kept in PostgreSQL (`bus_dead_letters`, with the payload's company), so that they
 * outlive the process and operators see them in one place (the delivery screen, `npm run redrive`). A redrive
 * marks rows with `redrive_at`; while the kernel runs, `watch` looks for marked rows every few seconds (and once
 * at start), puts each message back into its queue (attempt 1; RabbitMQ: confirmed by the broker) and deletes
 * the row. Dead outbox events (`outbox_events` in state `dead`) are listed and redriven here too.
 */
export class DeadLetterStore {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private bus: Bus | undefined;

  constructor(
    private readonly db: Knex,
    private readonly log: BusLogger,
  ) {}

  /** The buses' `deadLetterSink`: one row per dead letter. */
  readonly sink = async (letter: DeadLetter): Promise<void> => {
    const m = letter.message;
    await this.db.raw(
      'INSERT INTO bus_dead_letters (queue, message_id, topic, payload, headers, published_at, attempt, error, company_id) VALUES (?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?)',
      [letter.queue.slice(0, 255), m.id.slice(0, 255), m.topic.slice(0, 255), JSON.stringify(m.payload ?? null), JSON.stringify(m.headers ?? {}), m.publishedAt, m.attempt, letter.error.slice(0, 4000), companyOf(m.payload)],
    );
  };

  /** The stored dead letters of `queue` not marked for redrive, oldest first (as `Bus.deadLetters` lists them). */
  async forQueue(queue: string): Promise<BusMessage[]> {
    const { rows } = (await this.db.raw('SELECT message_id, topic, payload, headers, published_at, attempt FROM bus_dead_letters WHERE queue = ? AND redrive_at IS NULL ORDER BY id', [queue])) as {
      rows: { message_id: string; topic: string; payload: unknown; headers: Record<string, string>; published_at: Date | null; attempt: number }[];
    };
    return rows.map((r) => ({ id: r.message_id, topic: r.topic, payload: r.payload, headers: r.headers ?? {}, publishedAt: (r.published_at ?? new Date()).toISOString(), attempt: r.attempt }));
  }

  /**
   * One page (newest first) of the dead letters and dead outbox events of `companyId` (every company's when
   * null: the super admin), 20 a page.
   */
  async list(companyId: number | null, pageNumber: number, size = 20): Promise<{ records: DeadLetterRecord[]; count: number; hasMore: boolean }> {
    const offset = (Math.max(1, pageNumber) - 1) * size;
    const scope = companyId === null ? 'TRUE' : 'company_id = ?';
    const bind = companyId === null ? [] : [companyId];
    const { rows } = (await this.db.raw(
      `SELECT * FROM (
         SELECT 'bus' AS kind, id, queue, topic, message_id, company_id, error, attempt, dead_at, redrive_at IS NOT NULL AS redriving, payload
         FROM bus_dead_letters WHERE ${scope}
         UNION ALL
         SELECT 'outbox', id, NULL, topic, message_id, company_id, last_error, 1, published_at, false, payload
         FROM outbox_events WHERE state = 'dead' AND ${scope}
       ) d ORDER BY dead_at DESC, id DESC OFFSET ? LIMIT ?`,
      [...bind, ...bind, offset, size],
    )) as { rows: { kind: 'bus' | 'outbox'; id: string; queue: string | null; topic: string; message_id: string; company_id: number | null; error: string | null; attempt: number; dead_at: Date; redriving: boolean; payload: unknown }[] };
    const { rows: counted } = (await this.db.raw(
      `SELECT (SELECT count(*) FROM bus_dead_letters WHERE ${scope})::int + (SELECT count(*) FROM outbox_events WHERE state = 'dead' AND ${scope})::int AS n`,
      [...bind, ...bind],
    )) as { rows: { n: number }[] };
    const count = counted[0]?.n ?? 0;
    const records = rows.map((r) => ({
      id: `${r.kind}:${r.id}`,
      kind: r.kind,
      queue: r.queue,
      topic: r.topic,
      messageId: r.message_id,
      companyId: r.company_id,
      error: r.error,
      attempt: r.attempt,
      deadAt: new Date(r.dead_at).toISOString(),
      redriving: r.redriving,
      payload: r.payload,
    }));
    return { records, count, hasMore: count > offset + records.length };
  }

  /**
   * Puts back the given dead letters (`bus:<id>` / `outbox:<id>`) of `companyId` (any company's when null), or all
   * of them when `ids` is absent. Bus dead letters are marked and put back by the running kernel within seconds;
   * dead outbox events go back to pending and are published again. Returns how many were put back.
   */
  async redrive(companyId: number | null, ids?: string[]): Promise<number> {
    const busIds: number[] = [];
    const outboxIds: number[] = [];
    for (const id of ids ?? []) {
      const m = /^(bus|outbox):(\d{1,18})$/.exec(id);
      if (m) (m[1] === 'bus' ? busIds : outboxIds).push(Number(m[2]));
    }
    const all = ids === undefined;
    const scope = companyId === null ? 'TRUE' : 'company_id = ?';
    const bind = companyId === null ? [] : [companyId];
    const n = await this.db.transaction(async (trx) => {
      const a = all || busIds.length ? await trx.raw(`UPDATE bus_dead_letters SET redrive_at = now() WHERE redrive_at IS NULL AND ${scope}${all ? '' : ' AND id = ANY(?::bigint[])'}`, [...bind, ...(all ? [] : [busIds])]) : { rowCount: 0 };
      const b = all || outboxIds.length
        ? await trx.raw(`UPDATE outbox_events SET state = 'pending', next_at = now(), lease_until = NULL, last_error = NULL WHERE state = 'dead' AND ${scope}${all ? '' : ' AND id = ANY(?::bigint[])'}`, [...bind, ...(all ? [] : [outboxIds])])
        : { rowCount: 0 };
      return ((a as { rowCount?: number }).rowCount ?? 0) + ((b as { rowCount?: number }).rowCount ?? 0);
    });
    if (n) this.kick();
    return n;
  }

  /**
   * Puts back the rows marked for redrive (oldest first, 500 at a time; rows another node is putting back are
   * skipped) and deletes them in the same transaction; returns how many.
   */
  async redriveMarked(bus: Bus): Promise<number> {
    if (bus instanceof InProcessBus) return this.redriveInMemory(bus);
    return this.db.transaction(async (trx) => {
      const { rows } = (await trx.raw(
        'SELECT id, queue, message_id, topic, payload, headers, published_at FROM bus_dead_letters WHERE redrive_at IS NOT NULL ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED',
      )) as { rows: { id: string; queue: string; message_id: string; topic: string; payload: unknown; headers: Record<string, string>; published_at: Date | null }[] };
      if (!rows.length) return 0;
      const byQueue = new Map<string, { ids: string[]; messages: BusMessage[] }>();
      for (const r of rows) {
        const q = byQueue.get(r.queue) ?? { ids: [], messages: [] };
        q.ids.push(r.id);
        q.messages.push({ id: r.message_id, topic: r.topic, payload: r.payload, headers: r.headers ?? {}, publishedAt: (r.published_at ?? new Date()).toISOString(), attempt: 1 });
        byQueue.set(r.queue, q);
      }
      let n = 0;
      const done: string[] = [];
      for (const [queue, { ids, messages }] of byQueue) {
        let put = 0;
        if (bus instanceof RabbitMqBus) put = await bus.redrive(queue, { messages });
        n += put;
        // A queue nobody declared (yet) in this process: left marked, tried again later.
        if (put) done.push(...ids);
      }
      if (done.length) await trx.raw('DELETE FROM bus_dead_letters WHERE id = ANY(?::bigint[])', [done]);
      if (n) this.log.info({ messages: n, queues: [...byQueue.keys()] }, 'bus: dead letters put back into their queues (redrive)');
      return n;
    });
  }

  /** Ids of marked rows this process put back into its in-process queues, waiting for their consumer. */
  private readonly inMemory = new Set<string>();

  /**
   * The in-process bus's redrive: each marked row goes back into its queue and is deleted only once its consumer
   * handled it (or dead-lettered it again, as a new row): a crash meanwhile leaves the row marked, put back at the
   * next start. Rows already waiting in memory are skipped.
   */
  private async redriveInMemory(bus: InProcessBus): Promise<number> {
    const skip = [...this.inMemory];
    const { rows } = (await this.db.raw(
      `SELECT id, queue, message_id, topic, payload, headers, published_at FROM bus_dead_letters
       WHERE redrive_at IS NOT NULL AND NOT (id = ANY(?::bigint[])) ORDER BY id LIMIT 500`,
      [skip],
    )) as { rows: { id: string; queue: string; message_id: string; topic: string; payload: unknown; headers: Record<string, string>; published_at: Date | null }[] };
    let n = 0;
    for (const r of rows) {
      const id = String(r.id);
      const settled = bus.redriveTracked(r.queue, { id: r.message_id, topic: r.topic, payload: r.payload, headers: r.headers ?? {}, publishedAt: (r.published_at ?? new Date()).toISOString(), attempt: 1 });
      // A queue nobody declared (yet) in this process: left marked, tried again later.
      if (!settled) continue;
      n++;
      this.inMemory.add(id);
      settled
        .then(() => this.db.raw('DELETE FROM bus_dead_letters WHERE id = ?', [id]))
        .catch((err: unknown) => this.log.warn({ err, id }, 'bus: a redriven dead letter was not confirmed; it stays marked'))
        .finally(() => this.inMemory.delete(id));
    }
    if (n) this.log.info({ messages: n }, 'bus: dead letters put back into their queues (redrive)');
    return n;
  }

  /** Looks for rows marked for redrive now and every `everyMs`. */
  watch(bus: Bus, everyMs = 5_000): void {
    this.bus = bus;
    this.everyMs = everyMs;
    this.tick();
  }

  private everyMs = 5_000;

  private readonly tick = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || !this.bus) return;
    const bus = this.bus;
    this.redriveMarked(bus)
      .catch((err: unknown) => this.log.warn({ err }, 'bus: redrive of dead letters failed; trying again'))
      .finally(() => {
        if (!this.stopped && !this.timer) {
          this.timer = setTimeout(this.tick, this.everyMs);
          this.timer.unref?.();
        }
      });
  };

  /** Runs a redrive pass now (after an operator's redrive). */
  private kick(): void {
    if (this.bus && !this.stopped) setImmediate(this.tick);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
