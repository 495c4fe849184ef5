import type { Knex } from 'knex';
import type { BusMessage } from '@atendo/sdk';
import type { BusLogger, DeadLetter, InProcessBus } from '../bus/in-process';

/**
 * Dead letters of the in-process bus kept in PostgreSQL (`bus_dead_letters`), so that they outlive the
 * process and an operator can put them back (`npm run redrive`, which marks rows with `redrive_at`). While
 * the kernel runs, `watch` looks for marked rows every few seconds (and once at start), puts each message
 * back into its queue (attempt 1) and deletes the row. RabbitMQ keeps its dead letters in `<queue>.dlq`
 * itself; the redrive command moves those directly.
 */
export class DeadLetterStore {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly log: BusLogger,
  ) {}

  /** The in-process bus's `deadLetterSink`: one row per dead letter. */
  readonly sink = async (letter: DeadLetter): Promise<void> => {
    const m = letter.message;
    await this.db.raw(
      'INSERT INTO bus_dead_letters (queue, message_id, topic, payload, headers, published_at, attempt, error) VALUES (?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?)',
      [letter.queue.slice(0, 255), m.id.slice(0, 255), m.topic.slice(0, 255), JSON.stringify(m.payload ?? null), JSON.stringify(m.headers ?? {}), m.publishedAt, m.attempt, letter.error.slice(0, 4000)],
    );
  };

  /** Puts back the rows marked for redrive (oldest first, 500 at a time); returns how many. */
  async redriveMarked(bus: InProcessBus): Promise<number> {
    const { rows } = (await this.db.raw(
      'SELECT id, queue, message_id, topic, payload, headers, published_at FROM bus_dead_letters WHERE redrive_at IS NOT NULL ORDER BY id LIMIT 500',
    )) as { rows: { id: string; queue: string; message_id: string; topic: string; payload: unknown; headers: Record<string, string>; published_at: Date | null }[] };
    if (!rows.length) return 0;
    const byQueue = new Map<string, BusMessage[]>();
    for (const r of rows) {
      const list = byQueue.get(r.queue) ?? [];
      list.push({ id: r.message_id, topic: r.topic, payload: r.payload, headers: r.headers ?? {}, publishedAt: (r.published_at ?? new Date()).toISOString(), attempt: 1 });
      byQueue.set(r.queue, list);
    }
    let n = 0;
    const done: string[] = [];
    for (const [queue, messages] of byQueue) {
      const put = bus.redrive(queue, { messages });
      n += put;
      // A queue nobody declared (yet) in this process: left marked, tried again later.
      if (put) done.push(...rows.filter((r) => r.queue === queue).map((r) => r.id));
    }
    if (done.length) await this.db.raw('DELETE FROM bus_dead_letters WHERE id = ANY(?::bigint[])', [done]);
    if (n) this.log.info({ messages: n, queues: [...byQueue.keys()] }, 'bus: dead letters put back into their queues (redrive)');
    return n;
  }

  /** Looks for rows marked for redrive now and every `everyMs`. */
  watch(bus: InProcessBus, everyMs = 5_000): void {
    const tick = () => {
      this.timer = undefined;
      if (this.stopped) return;
      this.redriveMarked(bus)
        .catch((err: unknown) => this.log.warn({ err }, 'bus: redrive of dead letters failed; trying again'))
        .finally(() => {
          if (!this.stopped) {
            this.timer = setTimeout(tick, everyMs);
            this.timer.unref?.();
          }
        });
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
