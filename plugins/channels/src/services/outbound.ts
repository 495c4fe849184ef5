import { join, normalize, sep } from 'node:path';
import type { ConnectionCache } from './connection-cache';
import type { FastifyBaseLogger } from 'fastify';
import {
  CHANNELS,
  PermanentError,
  RetryableError,
  type AdapterConnection,
  type AdapterContext,
  type Bus,
  type BusMessage,
  messageFailed,
  messageSend,
  messageSent,
  type Channel,
  type ChannelAdapter,
  type MessageSentEvent,
  type SendCommand,
  type Subscription,
  type UploadService,
} from '@atendo/sdk';
import { graphErrorOf } from '@atendo/channel-meta-common';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { META_OUTBOUND_CHANNELS } from '../registry';
import { OUTBOUND_QUEUE, type MetaSendFailedEvent } from '../contract';

export interface OutboundDeps {
  bus: Bus;
  log: FastifyBaseLogger;
  connections: ConnectionsService;
  adapters: ReadonlyMap<Channel, ChannelAdapter>;
  uploads: UploadService;
  uploadsDir: string;
  graphUrl: string;
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  maxDelayMs: number;
  /** Aborted on shutdown, so backoff waits end at once. */
  signal: AbortSignal;
  /** Queue name (default OUTBOUND_QUEUE). */
  queue?: string;
  /** Caches the connection lookups of consecutive sends (see ConnectionCache); absent: one lookup per send. */
  connectionCache?: ConnectionCache;
}

const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 2147483647;
/** A message id: a stored message's id, or 0 for a system message that is not in a ticket (SDK `SendCommand`). */
const isMessageId = (v: unknown): v is number => v === 0 || isPositiveInt(v);
/** Result ids dedupe redeliveries of one stored message; system messages (id 0) get a fresh id each. */
const resultId = (topic: { name: string }, cmd: SendCommand) => (cmd.messageId === 0 ? undefined : `${topic.name}:${cmd.companyId}:${cmd.messageId}`);

/**
 * The connection of a command, as the adapter sees it. Throws PermanentError when it does not exist in the
 * command's company, is on another channel, or lacks the Meta account id / token.
 */
async function loadConnection(deps: OutboundDeps, cmd: SendCommand, connectionId: number): Promise<AdapterConnection> {
  let conn;
  try {
    conn = deps.connectionCache ? await deps.connectionCache.get(cmd.companyId, connectionId) : await deps.connections.getWithSecrets(cmd.companyId, connectionId);
  } catch (err) {
    throw new RetryableError('connection lookup failed', { cause: err });
  }
  if (!conn) throw new SendFailure('ERR_NO_WAPP_FOUND', 'the connection does not exist in this company');
  if ((conn.channel as Channel) !== cmd.channel) throw new SendFailure('ERR_SENDING_WAPP_MSG', `the connection is on channel ${conn.channel}, not ${cmd.channel}`);
  return {
    id: conn.id,
    companyId: conn.companyId ?? cmd.companyId,
    channel: conn.channel as Channel,
    name: conn.name,
    externalAccountId: conn.facebookPageUserId ?? null,
    accessToken: conn.facebookUserToken ?? null,
  };
}

/** A permanent failure with a catalogue/plugin code for `message.failed`. */
class SendFailure extends PermanentError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SendFailure';
  }
}

/**
 * The command's media with what adapters need: `url` (signed, 7 days) when absent, and `absolutePath`
 * inside the company's upload folder (never outside it: a path with `..` is refused).
 */
function withMedia(deps: OutboundDeps, cmd: SendCommand): SendCommand {
  if (!cmd.media) return cmd;
  const m = cmd.media;
  if (typeof m.path !== 'string' || typeof m.mimeType !== 'string' || typeof m.fileName !== 'string') throw new SendFailure('ERR_SENDING_WAPP_MSG', 'malformed media in the command');
  const companyDir = join(deps.uploadsDir, `company${cmd.companyId}`);
  const clean = m.path.replace(/^\/+/, '');
  const abs = normalize(join(companyDir, clean));
  const inside = clean.length > 0 && !clean.split('/').includes('..') && abs.startsWith(companyDir + sep);
  return {
    ...cmd,
    media: {
      ...m,
      url: m.url ?? (inside ? deps.uploads.url(cmd.companyId, clean) : undefined),
      absolutePath: m.absolutePath ?? (inside ? abs : undefined),
    },
  };
}

/** Waits `ms` unless `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Handles one `message.send` command:
 * - channels other than whatsappapi/facebook/instagram (Baileys `whatsapp`) are acknowledged untouched:
 *   their own consumer sends them;
 * - the connection is loaded with its secrets (scoped to the command's company) and the adapter sends;
 * - success publishes `message.sent` `{companyId, messageId, ticketId, connectionId, channel, wid}`
 *   (message id `message.sent:<companyId>:<messageId>`);
 * - a retryable failure (throttling, 5xx, timeout) is thrown again so the bus retries; before that the
 *   handler waits so the delays double (retryDelayMs, 2×, 4×, ... capped at maxDelayMs; longer when Meta
 *   asks for a wait). On the last attempt, and on any permanent failure, `message.failed`
 *   `{companyId, messageId, ..., error: {code, text, retryable}}` is published before the error is thrown
 *   (the command then lands in `channels.outbound.dlq`).
 */
export async function handleSend(deps: OutboundDeps, message: BusMessage<SendCommand>): Promise<'sent' | 'skipped'> {
  const cmd = message.payload;
  const channel = cmd?.channel;
  if (!cmd || !(META_OUTBOUND_CHANNELS as readonly string[]).includes(channel)) return 'skipped';
  const log = deps.log.child({ messageId: cmd.messageId, companyId: cmd.companyId, connectionId: cmd.connectionId, channel, attempt: message.attempt });

  const fail = async (code: string, text: string, retryable: boolean) => {
    if (!isPositiveInt(cmd.companyId) || !isMessageId(cmd.messageId)) return; // nobody to tell
    const event: MetaSendFailedEvent = {
      companyId: cmd.companyId,
      messageId: cmd.messageId,
      ticketId: isPositiveInt(cmd.ticketId) ? cmd.ticketId : undefined,
      connectionId: isPositiveInt(cmd.connectionId) ? cmd.connectionId : undefined,
      channel,
      error: { code, text: text.slice(0, 1000), retryable },
    };
    await deps.bus.publish(messageFailed, event, { id: resultId(messageFailed, cmd) });
  };

  try {
    if (!isPositiveInt(cmd.companyId) || !isMessageId(cmd.messageId) || !isPositiveInt(cmd.connectionId) || !(CHANNELS as readonly string[]).includes(channel)) {
      throw new SendFailure('ERR_VALIDATION', 'malformed send command');
    }
    const adapter = deps.adapters.get(channel);
    if (!adapter) throw new SendFailure('ERR_SENDING_WAPP_MSG', `no adapter for channel ${channel}`);
    const conn = await loadConnection(deps, cmd, cmd.connectionId);
    const ctx: AdapterContext = {
      log,
      graphUrl: deps.graphUrl,
      timeoutMs: deps.timeoutMs,
      emit: async () => {
        throw new Error('Meta adapters emit through the webhook');
      },
    };
    const { externalId } = await adapter.send(conn, withMedia(deps, cmd), ctx);
    const sent: MessageSentEvent = {
      companyId: cmd.companyId,
      messageId: cmd.messageId,
      ticketId: isPositiveInt(cmd.ticketId) ? cmd.ticketId : undefined,
      connectionId: cmd.connectionId,
      channel,
      wid: externalId,
    };
    await deps.bus.publish(messageSent, sent, { id: resultId(messageSent, cmd) });
    log.info({ wid: externalId }, 'message sent');
    return 'sent';
  } catch (err) {
    const graph = graphErrorOf(err);
    const permanent = err instanceof PermanentError;
    const code = err instanceof SendFailure ? err.code : graph?.code !== undefined ? String(graph.code) : 'ERR_SENDING_WAPP_MSG';
    const text = graph ? [graph.message, graph.details].filter(Boolean).join(': ') : err instanceof Error ? err.message : String(err);
    if (permanent) {
      log.warn({ code, graph, err: graph ? undefined : err }, 'send failed permanently');
      await fail(code, text, false);
      throw err;
    }
    if (message.attempt > deps.retries) {
      log.error({ code, graph, err: graph ? undefined : err }, 'send failed; retries exhausted');
      await fail(code, text, true);
      throw err;
    }
    // Exponential backoff on top of the bus's fixed retry delay: total wait before attempt n+1 is
    // retryDelayMs * 2^(n-1), at least what Meta asked for, at most maxDelayMs.
    const wanted = Math.max(deps.retryDelayMs * 2 ** (message.attempt - 1), graph?.retryAfterMs ?? 0);
    const extra = Math.min(deps.maxDelayMs, wanted) - deps.retryDelayMs;
    log.warn({ code, graph, err: graph ? undefined : err, retryInMs: Math.max(extra, 0) + deps.retryDelayMs }, 'send failed; will retry');
    await sleep(extra, deps.signal);
    throw err instanceof RetryableError ? err : new RetryableError(text, { cause: err });
  }
}

/** Starts the outbound consumer: queue `channels.outbound` (or `deps.queue`), prefetch 16, `retries` retries, then `<queue>.dlq`. */
export function startOutboundConsumer(deps: OutboundDeps): Promise<Subscription> {
  return deps.bus.subscribe(
    messageSend,
    async (message) => {
      await handleSend(deps, message);
    },
    { queue: deps.queue ?? OUTBOUND_QUEUE, prefetch: 16, maxRetries: deps.retries, retryDelayMs: deps.retryDelayMs },
  );
}
