import type { FastifyBaseLogger } from 'fastify';
import { messageFailed, messageSend, messageSent, PermanentError, RetryableError, type Bus, type BusMessage, type MessageSentEvent, type SendCommand, type Subscription } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { WhatsappSessions } from './sessions';

/** The shared consumer queue of `message.send` for channel 'whatsapp'. */
export const OUTBOUND_QUEUE = 'channels.outbound.whatsapp';
/** Per-connection forwarding: a node that does not run a connection's socket hands the command to the one that does. */
export const forwardTopic = (connectionId: number) => `whatsapp.outbound.${connectionId}`;
export const forwardQueue = (connectionId: number) => `${OUTBOUND_QUEUE}.${connectionId}`;
/** Header counting forwards (a command is forwarded at most 3 times). */
const FORWARDS = 'x-whatsapp-forwards';

export interface OutboundOptions {
  bus: Bus;
  log: FastifyBaseLogger;
  sessions: WhatsappSessions;
  connections: ConnectionsService;
  /** Retries after the first attempt before `message.failed` (default 5). */
  maxRetries: number;
  /** Delay between attempts in ms (the bus's fixed retry delay, default 2000). */
  retryDelayMs: number;
  /** How long an attempt waits for a reconnecting session to open: `openWaitMs · attempt`, in ms (default 5000). */
  openWaitMs: number;
}

const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2147483647;
/** A message id: a stored message's id, or 0 for a system message that is not in a ticket (SDK `SendCommand`). */
const isMessageId = (v: unknown): v is number => v === 0 || isId(v);
/** Result ids dedupe redeliveries of one stored message; system messages (id 0) get a fresh id each. */
const resultId = (topic: string, cmd: { companyId: number; messageId: number }) => (cmd.messageId === 0 ? undefined : `${topic}:${cmd.companyId}:${cmd.messageId}`);

/**
 * The `message.send` consumer for channel 'whatsapp' (queue `channels.outbound.whatsapp`; other channels'
 * commands are acked and left to their own consumers). Per command:
 * - the connection must be a WhatsApp connection of the command's company (else `message.failed`);
 * - the session runs here: wait up to `openWaitMs · attempt` for it to be open, send, publish `message.sent`
 *   `{companyId, messageId, wid, ack: 1}`;
 * - the session runs on another node: forward the command there (`whatsapp.outbound.<connectionId>`);
 * - no session runs anywhere, or sending failed transiently: retry with exponential backoff (attempt n
 *   waits `retryDelayMs · 2^(n-1)`, at most 60 s: the bus's fixed delay plus a wait in the handler);
 *   when the retries are used up, or the failure is permanent (bad recipient, missing media, 4xx), publish
 *   `message.failed` `{companyId, messageId, error}` and ack.
 */
export class OutboundConsumer {
  private shared: Subscription | undefined;
  private readonly perConnection = new Map<number, Subscription>();

  constructor(private readonly opts: OutboundOptions) {}

  async start(): Promise<void> {
    this.shared = await this.opts.bus.subscribe(messageSend, (m) => this.handle(m), {
      queue: OUTBOUND_QUEUE,
      maxRetries: this.opts.maxRetries,
      retryDelayMs: this.opts.retryDelayMs,
    });
  }

  /** Consumes the forwarding queue of a connection whose session this node now runs. */
  async follow(connectionId: number): Promise<void> {
    if (this.perConnection.has(connectionId)) return;
    const sub = await this.opts.bus.subscribe<SendCommand>(forwardTopic(connectionId), (m) => this.handle(m), {
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
    for (const id of [...this.perConnection.keys()]) await this.unfollow(id).catch(() => undefined);
  }

  /** Handles one delivery (exported for tests through the bus). */
  async handle(m: BusMessage<SendCommand>): Promise<void> {
    const cmd = m.payload;
    if (!cmd || cmd.channel !== 'whatsapp') return;
    const { log, bus } = this.opts;
    if (!isId(cmd.companyId) || !isMessageId(cmd.messageId)) {
      log.error({ id: m.id }, 'whatsapp outbound: malformed message.send payload dropped');
      return;
    }
    const lastAttempt = m.attempt > this.opts.maxRetries;
    let wid: string | undefined;
    try {
      wid = await this.sendOnce(m, cmd);
    } catch (err) {
      const permanent = err instanceof PermanentError;
      if (permanent || lastAttempt) {
        log.warn({ err, companyId: cmd.companyId, messageId: cmd.messageId, attempt: m.attempt }, 'whatsapp outbound: sending failed for good');
        await bus.publish(messageFailed, { companyId: cmd.companyId, messageId: cmd.messageId, error: String((err as Error)?.message ?? err).slice(0, 1000) });
        return;
      }
      // Exponential backoff on top of the bus's fixed retry delay: attempt n waits retryDelayMs·2^(n-1) in all (≤ 60 s).
      const extra = Math.min(60_000, this.opts.retryDelayMs * 2 ** Math.min(m.attempt - 1, 16)) - this.opts.retryDelayMs;
      if (extra > 0) await new Promise((r) => setTimeout(r, extra));
      throw err instanceof RetryableError ? err : new RetryableError(String((err as Error)?.message ?? err), { cause: err });
    }
    if (wid === undefined) return; // forwarded to the owning node
    // The message is out: never retry the send because the result could not be published.
    const result: MessageSentEvent = { companyId: cmd.companyId, messageId: cmd.messageId, wid, ack: 1 };
    for (let i = 1; ; i++) {
      try {
        await bus.publish(messageSent, result, { id: resultId(messageSent.name, cmd) });
        return;
      } catch (err) {
        if (i >= 3) {
          log.error({ err, ...result }, 'whatsapp outbound: publishing message.sent failed');
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * i));
      }
    }
  }

  /** One attempt: the WhatsApp message id, or undefined when the command was forwarded to the owner. */
  private async sendOnce(m: BusMessage<SendCommand>, cmd: SendCommand): Promise<string | undefined> {
    const { sessions, connections, bus } = this.opts;
    if (!isId(cmd.connectionId)) throw new PermanentError('the ticket has no connection');
    const session = sessions.get(cmd.connectionId);
    if (session) {
      if (session.companyId !== cmd.companyId) throw new PermanentError('connection not found');
      if (session.state !== 'open') await session.waitOpen(this.opts.openWaitMs * m.attempt);
      return (await session.send(cmd)).externalId;
    }
    const conn = await connections.get(cmd.companyId, cmd.connectionId);
    if (!conn || conn.channel !== 'whatsapp') throw new PermanentError('connection not found');
    const forwards = Number(m.headers?.[FORWARDS] ?? 0);
    if (forwards < 3 && (await sessions.ownedElsewhere(cmd.connectionId))) {
      await bus.publish(forwardTopic(cmd.connectionId), cmd, { id: m.id, headers: { ...m.headers, [FORWARDS]: String(forwards + 1) } });
      return undefined;
    }
    throw new RetryableError(`WhatsApp connection ${cmd.connectionId} is not running (status ${conn.status})`);
  }
}
