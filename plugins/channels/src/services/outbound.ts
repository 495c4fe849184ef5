import { join, normalize, sep } from 'node:path';
import type { ConnectionCache } from './connection-cache';
import type { FastifyBaseLogger } from 'fastify';
import {
  CHANNELS,
  defineJob,
  PermanentError,
  RetryableError,
  sendKey,
  sendTopic,
  type Jobs,
  type SendLedger,
  type AdapterConnection,
  type AdapterContext,
  type Bus,
  type BusMessage,
  messageFailed,
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
  /** What was already sent (the kernel's `ctx.sends`): a command delivered again is not sent twice. */
  sends?: SendLedger;
  /** Durable retries after the quick ones (`SEND_RETRY_JOB`); absent: the send fails once the quick retries are used. */
  jobs?: Jobs;
  /** How long a send keeps being retried after its first attempt on transient failures, milliseconds (SEND_RETRY_HOURS). */
  retryWindowMs?: number;
  /** First delay of the durable retries, ms (default 30 s; doubles up to 10 minutes). */
  retryFirstDelayMs?: number;
}

/** A send waiting for its next durable retry: the command, its bus id, its first attempt and the retries so far. */
export interface SendRetryData {
  cmd: SendCommand;
  busId: string;
  firstAt: string;
  tries: number;
}

/** The durable retry of a send whose quick retries ran out on a transient failure (provider outage, throttling). */
export const SEND_RETRY_JOB = defineJob<SendRetryData>('channels.send-retry');

/** Delay before the `n`-th durable retry of a send: `firstMs` (30 s) doubling, at most 10 minutes, at least what the provider asked (ms). */
export function durableRetryDelay(n: number, retryAfterMs = 0, firstMs = 30_000): number {
  return Math.max(retryAfterMs, Math.min(600_000, firstMs * 2 ** Math.min(10, Math.max(0, n - 1))));
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

/** Why a send did not happen: permanent (never retried) or transient (retried), with the provider's reason. */
interface SendError {
  permanent: boolean;
  code: string;
  text: string;
  graph: ReturnType<typeof graphErrorOf>;
  err: unknown;
}

function classify(err: unknown): SendError {
  const graph = graphErrorOf(err);
  const permanent = err instanceof PermanentError;
  const code = err instanceof SendFailure ? err.code : graph?.code !== undefined ? String(graph.code) : 'ERR_SENDING_WAPP_MSG';
  const text = graph ? [graph.message, graph.details].filter(Boolean).join(': ') : err instanceof Error ? err.message : String(err);
  return { permanent, code, text, graph, err };
}

/**
 * One attempt at a command: answered from the send ledger when it was already sent (a delivery after a crash or a
 * redrive: `message.sent` again, nothing sent), else sent by the channel's adapter, recorded in the ledger and
 * reported (`message.sent`, id `message.sent:<companyId>:<messageId>`). Throws the adapter's error otherwise.
 */
async function attempt(deps: OutboundDeps, cmd: SendCommand, busId: string, log: FastifyBaseLogger): Promise<void> {
  if (!isPositiveInt(cmd.companyId) || !isMessageId(cmd.messageId) || !isPositiveInt(cmd.connectionId) || !(CHANNELS as readonly string[]).includes(cmd.channel)) {
    throw new SendFailure('ERR_VALIDATION', 'malformed send command');
  }
  const key = sendKey(cmd, busId);
  let externalId = deps.sends ? await deps.sends.find(key).catch(() => undefined) : undefined;
  if (externalId === undefined) {
    const adapter = deps.adapters.get(cmd.channel);
    if (!adapter) throw new SendFailure('ERR_SENDING_WAPP_MSG', `no adapter for channel ${cmd.channel}`);
    const conn = await loadConnection(deps, cmd, cmd.connectionId);
    const ctx: AdapterContext = {
      log,
      graphUrl: deps.graphUrl,
      timeoutMs: deps.timeoutMs,
      emit: async () => {
        throw new Error('Meta adapters emit through the webhook');
      },
    };
    externalId = (await adapter.send(conn, withMedia(deps, cmd), ctx)).externalId;
    // The provider has it: remembered before anything else, so a delivery again is not sent twice.
    await deps.sends?.record(cmd.companyId, key, externalId).catch((err: unknown) => log.warn({ err }, 'send ledger: could not record a sent message'));
    log.info({ wid: externalId }, 'message sent');
  } else log.info({ wid: externalId }, 'message already sent (send ledger): reported again, not sent twice');
  const sent: MessageSentEvent = {
    companyId: cmd.companyId,
    messageId: cmd.messageId,
    ticketId: isPositiveInt(cmd.ticketId) ? cmd.ticketId : undefined,
    connectionId: cmd.connectionId,
    channel: cmd.channel,
    wid: externalId,
  };
  await deps.bus.publish(messageSent, sent, { id: resultId(messageSent, cmd) });
}

/** Publishes `message.failed` `{companyId, messageId, ..., error: {code, text, retryable}}` for a send given up. */
async function reportFailed(deps: OutboundDeps, cmd: SendCommand, e: SendError, retryable: boolean): Promise<void> {
  if (!isPositiveInt(cmd?.companyId) || !isMessageId(cmd?.messageId)) return; // nobody to tell
  const event: MetaSendFailedEvent = {
    companyId: cmd.companyId,
    messageId: cmd.messageId,
    ticketId: isPositiveInt(cmd.ticketId) ? cmd.ticketId : undefined,
    connectionId: isPositiveInt(cmd.connectionId) ? cmd.connectionId : undefined,
    channel: cmd.channel,
    error: { code: e.code, text: e.text.slice(0, 1000), retryable },
  };
  await deps.bus.publish(messageFailed, event, { id: resultId(messageFailed, cmd) });
}

/**
 * After the quick retries: a durable retry (`SEND_RETRY_JOB`) while the command is within its retry window
 * (`retryWindowMs` from its first attempt), else `message.failed` with the provider's last reason. Returns true
 * when a retry was scheduled.
 */
async function deferOrFail(deps: OutboundDeps, cmd: SendCommand, busId: string, firstAt: string, tries: number, e: SendError, log: FastifyBaseLogger): Promise<boolean> {
  const window = deps.retryWindowMs ?? 0;
  const since = Date.now() - (Date.parse(firstAt) || Date.now());
  if (deps.jobs && since < window) {
    const delayMs = durableRetryDelay(tries, e.graph?.retryAfterMs ?? 0, deps.retryFirstDelayMs);
    await deps.jobs.schedule(SEND_RETRY_JOB, { cmd, busId, firstAt, tries }, { delayMs, key: sendKey(cmd, busId) });
    log.warn({ code: e.code, graph: e.graph, err: e.graph ? undefined : e.err, retryInMs: delayMs, tries }, 'send failed; retried durably until its window ends');
    return true;
  }
  log.error({ code: e.code, graph: e.graph, err: e.graph ? undefined : e.err }, 'send failed; retries exhausted');
  await reportFailed(deps, cmd, e, true);
  return false;
}

/**
 * Handles one `message.send.<channel>` command of a Meta channel (whatsappapi, facebook, instagram):
 * - the connection is loaded with its secrets (scoped to the command's company) and the adapter sends, unless the
 *   send ledger says this command was already sent (then `message.sent` is reported again);
 * - success publishes `message.sent` `{companyId, messageId, ticketId, connectionId, channel, wid}`;
 * - a transient failure (throttling, 5xx, timeout) is retried by the bus `retries` times, the handler waiting so
 *   the delays double (retryDelayMs, 2×, 4×, ... capped at maxDelayMs; longer when Meta asks for a wait); then by
 *   the durable job `channels.send-retry` (30 s doubling to 10 minutes) until `retryWindowMs` after the first
 *   attempt (SEND_RETRY_HOURS, default 24 h), across restarts and nodes;
 * - a permanent failure, or the window's end, publishes `message.failed` `{..., error: {code, text, retryable}}`
 *   (the provider's reason) and acknowledges the command.
 */
export async function handleSend(deps: OutboundDeps, message: BusMessage<SendCommand>): Promise<'sent' | 'skipped' | 'deferred' | 'failed'> {
  const cmd = message.payload;
  const channel = cmd?.channel;
  if (!cmd || !(META_OUTBOUND_CHANNELS as readonly string[]).includes(channel)) return 'skipped';
  const log = deps.log.child({ messageId: cmd.messageId, companyId: cmd.companyId, connectionId: cmd.connectionId, channel, attempt: message.attempt });
  try {
    await attempt(deps, cmd, message.id, log);
    return 'sent';
  } catch (err) {
    const e = classify(err);
    if (e.permanent) {
      log.warn({ code: e.code, graph: e.graph, err: e.graph ? undefined : err }, 'send failed permanently');
      await reportFailed(deps, cmd, e, false);
      return 'failed';
    }
    if (message.attempt > deps.retries) {
      return (await deferOrFail(deps, cmd, message.id, message.publishedAt, 1, e, log)) ? 'deferred' : 'failed';
    }
    // Exponential backoff on top of the bus's fixed retry delay: total wait before attempt n+1 is
    // retryDelayMs * 2^(n-1), at least what Meta asked for, at most maxDelayMs.
    const wanted = Math.max(deps.retryDelayMs * 2 ** (message.attempt - 1), e.graph?.retryAfterMs ?? 0);
    const extra = Math.min(deps.maxDelayMs, wanted) - deps.retryDelayMs;
    log.warn({ code: e.code, graph: e.graph, err: e.graph ? undefined : err, retryInMs: Math.max(extra, 0) + deps.retryDelayMs }, 'send failed; will retry');
    await sleep(extra, deps.signal);
    throw err instanceof RetryableError ? err : new RetryableError(e.text, { cause: err });
  }
}

/**
 * The durable retry (`SEND_RETRY_JOB`): one attempt; a transient failure schedules the next one (or fails the send
 * once its window ended), a permanent one publishes `message.failed`.
 */
export async function handleSendRetry(deps: OutboundDeps, data: SendRetryData): Promise<void> {
  const { cmd, busId, firstAt, tries } = data;
  const log = deps.log.child({ messageId: cmd?.messageId, companyId: cmd?.companyId, connectionId: cmd?.connectionId, channel: cmd?.channel, durableRetry: tries });
  try {
    await attempt(deps, cmd, busId, log);
  } catch (err) {
    const e = classify(err);
    if (e.permanent) {
      log.warn({ code: e.code, graph: e.graph, err: e.graph ? undefined : err }, 'send failed permanently');
      await reportFailed(deps, cmd, e, false);
      return;
    }
    await deferOrFail(deps, cmd, busId, firstAt, tries + 1, e, log);
  }
}

/**
 * Starts the outbound consumer: queue `channels.outbound` (or `deps.queue`) bound to `message.send.<channel>` of the
 * Meta channels only (each command reaches this consumer alone), prefetch 16, `retries` quick retries; registers
 * the durable retry job's handler when `deps.jobs` is given.
 */
export function startOutboundConsumer(deps: OutboundDeps): Promise<Subscription> {
  return deps.bus.subscribe(
    META_OUTBOUND_CHANNELS.map((c) => sendTopic(c)),
    async (message) => {
      await handleSend(deps, message);
    },
    { queue: deps.queue ?? OUTBOUND_QUEUE, prefetch: 16, maxRetries: deps.retries, retryDelayMs: deps.retryDelayMs },
  );
}
