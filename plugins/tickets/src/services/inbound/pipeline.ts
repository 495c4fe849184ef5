import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Envelope, PermanentError, type BusMessage } from '@atendo/sdk';
import type { TicketsDeps } from '../deps';
import { Announcer } from './announce';
import { EnvelopeChanges } from './changes';
import { ConnectionCache } from './connections';
import { processBatch, type Item } from './store';

/** Largest batch of message envelopes handled in one transaction. */
const MAX_BATCH = 64;
/** Batches in flight at once (their database round trips overlap). */
const MAX_CONCURRENT_BATCHES = 2;
/** A batch overlapping a running one waits for this many envelopes, or ... */
const MIN_OVERLAP_BATCH = 16;
/** ... at most this long (milliseconds). */
const LINGER_MS = 6;

const checkEnvelope = TypeCompiler.Compile(Envelope);

/**
 * The inbound pipeline of one process (see index.ts). `handle` is the bus handler; message envelopes are
 * batched here (batch sizes, linger, two batches in flight, back-pressure from the announcer) and stored by
 * store.ts; other kinds go to changes.ts one by one.
 */
export class InboundPipeline {
  readonly connections: ConnectionCache;
  private readonly announcer: Announcer;
  private readonly changes: EnvelopeChanges;
  private readonly waiting: Item[] = [];
  private running = 0;
  private scheduled = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  private lingered = false;

  constructor(private readonly deps: TicketsDeps) {
    this.connections = new ConnectionCache(deps);
    this.announcer = new Announcer(deps);
    this.changes = new EnvelopeChanges(deps, this.connections);
  }

  /** The bus handler: validates, then dispatches by kind. Throws PermanentError / RetryableError per the module docstring. */
  handle = async (m: BusMessage<unknown>): Promise<void> => {
    const env = m.payload;
    if (!checkEnvelope.Check(env)) {
      const errors = [...checkEnvelope.Errors(env)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
      throw new PermanentError(`invalid envelope: ${errors.join('; ')}`);
    }
    if (env.externalId.length > 255) throw new PermanentError('envelope externalId longer than 255 characters');
    switch (env.kind) {
      case 'message':
        return this.message(env, m.attempt);
      case 'status':
        return this.changes.status(env, m.attempt);
      case 'reaction':
      case 'edit':
      case 'delete':
        return this.changes.change(env, m.attempt);
      case 'typing':
        return this.changes.typing(env);
      case 'connection':
        return this.changes.connection(env);
      default:
        throw new PermanentError(`unknown envelope kind ${String(env.kind)}`);
    }
  };

  /** Resolves once every live event of the batches committed so far has been emitted (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running || this.waiting.length || this.announcer.busy()) {
      await this.announcer.settle();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  // ------------------------------------------------------------------ messages (batched)

  private message(env: Envelope, attempt: number): Promise<void> {
    if (!env.content) throw new PermanentError('message envelope without content');
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const once = <A extends unknown[]>(fn: (...a: A) => void) => (...a: A) => {
        if (settled) return;
        settled = true;
        fn(...a);
      };
      this.waiting.push({ env, attempt, resolve: once(resolve), reject: once(reject), settled: () => settled });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /**
   * Starts batches while slots are free; the waiting envelopes are shared between the free slots. While a
   * batch is in flight, a second one starts with at least MIN_OVERLAP_BATCH envelopes or after LINGER_MS
   * (envelopes trickling in one by one, as RabbitMQ delivers them, would otherwise make batches of one).
   */
  private drain(): void {
    while (this.waiting.length && this.running < MAX_CONCURRENT_BATCHES) {
      if (this.running > 0 && this.waiting.length < MIN_OVERLAP_BATCH && !this.lingered) {
        this.lingerTimer ??= setTimeout(() => {
          this.lingerTimer = undefined;
          this.lingered = true;
          this.drain();
        }, LINGER_MS);
        return;
      }
      this.lingered = false;
      if (this.lingerTimer) {
        clearTimeout(this.lingerTimer);
        this.lingerTimer = undefined;
      }
      const slots = MAX_CONCURRENT_BATCHES - this.running;
      const size = Math.min(MAX_BATCH, Math.max(8, Math.ceil(this.waiting.length / slots)));
      const batch = this.waiting.splice(0, size);
      this.running++;
      void this.runBatch(batch).finally(() => {
        this.running--;
        if (this.waiting.length) this.kick();
      });
    }
  }

  /**
   * Runs one batch; when the batch as a whole fails (a database error), each envelope is tried alone so one
   * bad envelope cannot fail (and, after the retries, dead-letter) the others.
   */
  private async runBatch(items: Item[]): Promise<void> {
    const open = items.filter((i) => !i.settled());
    if (!open.length) return;
    try {
      const announce = await processBatch(this.deps, this.connections, open);
      if (announce) {
        await this.announcer.announceLater(announce);
        this.announcer.enrichProfiles(announce.stored);
      }
      for (const i of open) i.resolve();
    } catch (err) {
      if (open.length === 1) {
        open[0].reject(err);
        return;
      }
      for (const i of open) await this.runBatch([i]);
    }
  }
}
