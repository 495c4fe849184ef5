import type { FastifyBaseLogger } from 'fastify';
import {
  defineJob,
  deleteTopic,
  editTopic,
  messageFailed,
  messageSent,
  PermanentError,
  RetryableError,
  sendKey,
  sendTopic,
  type Bus,
  type BusMessage,
  type EditCommand,
  type Jobs,
  type MessageSentEvent,
  type ProviderMessageRef,
  type SendCommand,
  type SendLedger,
  type Subscription,
} from '@atendo/sdk';
import { stableMessageId } from '@atendo/channel-whatsapp';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { WhatsappSessions } from './sessions';

/** The shared consumer queue of `message.send.whatsapp`. */
export const OUTBOUND_QUEUE = 'channels.outbound.whatsapp';
/** The shared consumer queue of `message.edit.whatsapp` and `message.delete.whatsapp`. */
export const CHANGES_QUEUE = 'channels.outbound.whatsapp.changes';
/** Per-connection forwarding: a node that does not run a connection's socket hands the command to the one that does. */
export const forwardTopic = (connectionId: number) => `whatsapp.outbound.${connectionId}`;
export const forwardQueue = (connectionId: number) => `${OUTBOUND_QUEUE}.${connectionId}`;
/** Header counting forwards (a command is forwarded at most 3 times). */
const FORWARDS = 'x-whatsapp-forwards';
/** Header naming a forwarded command's operation (`send`, `edit`, `delete`; absent: `send`). */
const OP = 'x-whatsapp-op';

/** What a command asks of the connection's socket. */
export type WhatsappOp = 'send' | 'edit' | 'delete';
type OpPayload = SendCommand | EditCommand | ProviderMessageRef;

/** A command waiting for its next durable retry. */
export interface WhatsappRetryData {
  op: WhatsappOp;
  cmd: OpPayload;
  busId: string;
  firstAt: string;
  tries: number;
  headers?: Record<string, string>;
}

/** The durable retry of a command whose quick retries ran out while the session was down or WhatsApp failed transiently. */
export const WHATSAPP_RETRY_JOB = defineJob<WhatsappRetryData>('whatsapp-sessions.send-retry');

/** Delay before the `n`-th durable retry: 30 s doubling, at most 10 minutes (ms). */
export function durableRetryDelay(n: number): number {
  return Math.min(600_000, 30_000 * 2 ** Math.min(10, Math.max(0, n - 1)));
}

export interface OutboundOptions {
  bus: Bus;
  log: FastifyBaseLogger;
  sessions: WhatsappSessions;
  connections: ConnectionsService;
  /** Retries after the first attempt before the durable retries (default 5). */
  maxRetries: number;
  /** Delay between attempts in ms (the bus's fixed retry delay, default 2000). */
  retryDelayMs: number;
  /** How long an attempt waits for a reconnecting session to open: `openWaitMs · attempt`, in ms (default 5000). */
  openWaitMs: number;
  /** What was already sent (the kernel's `ctx.sends`). */
  sends?: SendLedger;
  /** Durable retries after the quick ones (`WHATSAPP_RETRY_JOB`). */
  jobs?: Jobs;
  /** How long a command keeps being retried after its first attempt, ms (SEND_RETRY_HOURS; default 24 h). */
  retryWindowMs?: number;
}

const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2147483647;
/** A message id: a stored message's id, or 0 for a system message that is not in a ticket (SDK `SendCommand`). */
const isMessageId = (v: unknown): v is number => v === 0 || isId(v);
/** Result ids dedupe redeliveries of one stored message; system messages (id 0) get a fresh id each. */
const resultId = (topic: string, cmd: { companyId: number; messageId: number }) => (cmd.messageId === 0 ? undefined : `${topic}:${cmd.companyId}:${cmd.messageId}`);

/**
 * The consumer of the Baileys channel's commands: `message.send.whatsapp` (queue `channels.outbound.whatsapp`) and
 * `message.edit.whatsapp` / `message.delete.whatsapp` (queue `channels.outbound.whatsapp.changes`); no other
 * channel's command reaches it. Per command:
 * - the connection must be a WhatsApp connection of the command's company (else `message.failed`);
 * - the session runs here: wait up to `openWaitMs · attempt` for it to be open, then send (with a message id
 *   derived from the command's stable key, unless the send ledger says it was sent already), edit or delete for
 *   everyone; a send publishes `message.sent` `{companyId, messageId, wid, ack: 1}`;
 * - the session runs on another node: forward the command there (`whatsapp.outbound.<connectionId>`);
 * - no session runs anywhere, or WhatsApp failed transiently: retried by the bus with exponential backoff (attempt
 *   n waits `retryDelayMs · 2^(n-1)`, at most 60 s), then durably (`whatsapp-sessions.send-retry`, 30 s doubling
 *   to 10 minutes) until `retryWindowMs` after the first attempt; after that, or on a permanent failure (bad
 *   recipient, missing media, 4xx), a send publishes `message.failed` `{companyId, messageId, error}`.
 */
export class OutboundConsumer {
  private shared: Subscription | undefined;
  private changes: Subscription | undefined;
  private readonly perConnection = new Map<number, Subscription>();

  constructor(private readonly opts: OutboundOptions) {}

  async start(): Promise<void> {
    const quick = { maxRetries: this.opts.maxRetries, retryDelayMs: this.opts.retryDelayMs };
    this.shared = await this.opts.bus.subscribe(sendTopic('whatsapp'), (m) => this.handle(m, 'send'), { queue: OUTBOUND_QUEUE, ...quick });
    this.changes = await this.opts.bus.subscribe<OpPayload>([editTopic('whatsapp'), deleteTopic('whatsapp')], (m) => this.handle(m, m.topic.startsWith('message.edit') ? 'edit' : 'delete'), { queue: CHANGES_QUEUE, ...quick });
  }

  /** Consumes the forwarding queue of a connection whose session this node now runs. */
  async follow(connectionId: number): Promise<void> {
    if (this.perConnection.has(connectionId)) return;
    const sub = await this.opts.bus.subscribe<OpPayload>(forwardTopic(connectionId), (m) => this.handle(m, opOf(m.headers?.[OP])), {
      queue: forwardQueue(connectionId),
      maxRetries: this.opts.maxRetries,
      retryDelayMs: this.opts.retryDelayMs,
    });
    this.perConnection.set(connectionId, sub);
  }

  /** Stops consuming a connection's forwarding queue (its messages wait there for the next owner). */
  async unfollow(connectionId: number): Promise<void> {
    const sub = this.perConnection.get(connectionId);
    this.perConnection.delete(connectionId);
    await sub?.unsubscribe();
  }

  async close(): Promise<void> {
    await this.shared?.unsubscribe().catch(() => undefined);
    await this.changes?.unsubscribe().catch(() => undefined);
    for (const id of [...this.perConnection.keys()]) await this.unfollow(id).catch(() => undefined);
  }

  /** Handles one delivery (exported for tests through the bus). */
  async handle(m: BusMessage<OpPayload>, op: WhatsappOp = 'send'): Promise<void> {
    const cmd = m.payload;
    if (!cmd || cmd.channel !== 'whatsapp') return;
    const { log } = this.opts;
    if (!isId(cmd.companyId) || !isMessageId(cmd.messageId)) {
      log.error({ id: m.id }, 'whatsapp outbound: malformed command payload dropped');
      return;
    }
    const firstAt = m.headers?.['x-first-attempt'] ?? m.publishedAt;
    try {
      await this.run(op, cmd, m.id, m.attempt, m.headers ?? {});
    } catch (err) {
      const permanent = err instanceof PermanentError;
      if (permanent || m.attempt > this.opts.maxRetries) {
        await this.deferOrFail({ op, cmd, busId: m.id, firstAt, tries: 1, headers: m.headers }, err, permanent);
        return;
      }
      // Exponential backoff on top of the bus's fixed retry delay: attempt n waits retryDelayMs·2^(n-1) in all (≤ 60 s).
      const extra = Math.min(60_000, this.opts.retryDelayMs * 2 ** Math.min(m.attempt - 1, 16)) - this.opts.retryDelayMs;
      if (extra > 0) await new Promise((r) => setTimeout(r, extra));
      throw err instanceof RetryableError ? err : new RetryableError(String((err as Error)?.message ?? err), { cause: err });
    }
  }

  /** The durable retry (`WHATSAPP_RETRY_JOB`): one more attempt, then the next retry or the failure. */
  async retry(data: WhatsappRetryData): Promise<void> {
    try {
      await this.run(data.op, data.cmd, data.busId, this.opts.maxRetries + 1, data.headers ?? {});
    } catch (err) {
      await this.deferOrFail({ ...data, tries: data.tries + 1 }, err, err instanceof PermanentError);
    }
  }

  /** A durable retry while within the window (not for permanent failures), else the failure reported. */
  private async deferOrFail(data: WhatsappRetryData, err: unknown, permanent: boolean): Promise<void> {
    const { log, bus } = this.opts;
    const { cmd, op } = data;
    const since = Date.now() - (Date.parse(data.firstAt) || Date.now());
    if (!permanent && this.opts.jobs && since < (this.opts.retryWindowMs ?? 0)) {
      const delayMs = durableRetryDelay(data.tries);
      await this.opts.jobs.schedule(WHATSAPP_RETRY_JOB, data, { delayMs, key: `${op}:${sendKey(cmd as SendCommand, data.busId)}` });
      log.warn({ err, companyId: cmd.companyId, messageId: cmd.messageId, op, tries: data.tries, retryInMs: delayMs }, 'whatsapp outbound: failed; retried durably until its window ends');
      return;
    }
    log.warn({ err, companyId: cmd.companyId, messageId: cmd.messageId, op }, 'whatsapp outbound: failed for good');
    if (op === 'send') await bus.publish(messageFailed, { companyId: cmd.companyId, messageId: cmd.messageId, error: String((err as Error)?.message ?? err).slice(0, 1000) });
  }

  /** One attempt; a send's result is published (`message.sent`). Forwarded commands end here. */
  private async run(op: WhatsappOp, cmd: OpPayload, busId: string, attempt: number, headers: Record<string, string>): Promise<void> {
    const wid = await this.once(op, cmd, busId, attempt, headers);
    if (wid === undefined || op !== 'send') return; // forwarded to the owning node, or a change done
    // The message is out: never retry the send because the result could not be published.
    const result: MessageSentEvent = { companyId: cmd.companyId, messageId: cmd.messageId, wid, ack: 1 };
    for (let i = 1; ; i++) {
      try {
        await this.opts.bus.publish(messageSent, result, { id: resultId(messageSent.name, cmd) });
        return;
      } catch (err) {
        if (i >= 3) {
          this.opts.log.error({ err, ...result }, 'whatsapp outbound: publishing message.sent failed');
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * i));
      }
    }
  }

  /** One attempt: the WhatsApp message id ('' for a change), or undefined when the command was forwarded to the owner. */
  private async once(op: WhatsappOp, cmd: OpPayload, busId: string, attempt: number, headers: Record<string, string>): Promise<string | undefined> {
    const { sessions, connections, bus } = this.opts;
    if (!isId(cmd.connectionId)) throw new PermanentError('the ticket has no connection');
    const session = sessions.get(cmd.connectionId);
    if (session) {
      if (session.companyId !== cmd.companyId) throw new PermanentError('connection not found');
      if (op !== 'send') {
        const ref = cmd as EditCommand;
        if (!ref.wid) throw new PermanentError('the message has no WhatsApp id');
        if (session.state !== 'open') await session.waitOpen(this.opts.openWaitMs * attempt);
        await session.change({ ...ref, wid: ref.wid }, op === 'edit' ? { edit: ref.body } : { delete: true });
        return '';
      }
      const send = cmd as SendCommand;
      const key = sendKey(send, busId);
      const prior = this.opts.sends ? await this.opts.sends.find(key).catch(() => undefined) : undefined;
      if (prior !== undefined) return prior;
      if (session.state !== 'open') await session.waitOpen(this.opts.openWaitMs * attempt);
      const { externalId } = await session.send(send, { messageId: stableMessageId(key) });
      await this.opts.sends?.record(send.companyId, key, externalId).catch((err: unknown) => this.opts.log.warn({ err }, 'send ledger: could not record a sent message'));
      return externalId;
    }
    const conn = await connections.get(cmd.companyId, cmd.connectionId);
    if (!conn || conn.channel !== 'whatsapp') throw new PermanentError('connection not found');
    const forwards = Number(headers[FORWARDS] ?? 0);
    if (forwards < 3 && (await sessions.ownedElsewhere(cmd.connectionId))) {
      await bus.publish(forwardTopic(cmd.connectionId), cmd, { id: busId, headers: { ...headers, [FORWARDS]: String(forwards + 1), [OP]: op } });
      return undefined;
    }
    throw new RetryableError(`WhatsApp connection ${cmd.connectionId} is not running (status ${conn.status})`);
  }
}

function opOf(v: string | undefined): WhatsappOp {
  return v === 'edit' || v === 'delete' ? v : 'send';
}
