import type { FastifyBaseLogger } from 'fastify';
import {
  sendTopic,
  PermanentError,
  resetCodeIssued,
  type Bus,
  type BusMessage,
  type Channel,
  type PasswordResetCodeEvent,
  type SendCommand,
  type Subscription,
} from '@atendo/sdk';
import type { Connection } from '../contract';

/** The platform company: password-reset codes go out from its WhatsApp connection. */
export const PLATFORM_COMPANY_ID = 1;
/** Consumer queue of `auth.reset-code-issued` (competing consumers: one node sends each code). */
export const RESET_CODE_QUEUE = 'connections.reset-code';
/** Channels a reset code can go out on (WhatsApp by Baileys or WhatsApp Cloud). */
const RESET_CHANNELS: readonly string[] = ['whatsapp', 'whatsappapi'];

export interface ResetCodeDeps {
  bus: Bus;
  log: FastifyBaseLogger;
  connections: { list(companyId: number): Promise<Connection[]> };
  /**
   * Whether the code itself is written to the log: only when an operator asked for it explicitly
   * (DEV_LOG_RESET_CODES=true, which `npm start`'s demo sets) and never under NODE_ENV=production. Default
   * false: the code, which resets a password, never reaches a log line by default.
   */
  logCodes: boolean;
}

/**
 * The connection a reset code goes out on: company 1's CONNECTED WhatsApp (Baileys or Cloud) connection,
 * the default one first, then the oldest. Undefined when there is none.
 */
export function pickResetConnection(list: Connection[]): Connection | undefined {
  return list
    .filter((c) => RESET_CHANNELS.includes(c.channel) && c.status === 'CONNECTED')
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.id - b.id)[0];
}

const isEvent = (p: unknown): p is PasswordResetCodeEvent => {
  const e = p as PasswordResetCodeEvent;
  return Boolean(e) && typeof e.to === 'string' && /^\d{8,15}$/.test(e.to) && typeof e.text === 'string' && e.text.length > 0 && e.text.length <= 1000;
};

/**
 * Delivers one `auth.reset-code-issued` event: publishes `message.send` (a `SendCommand` with `messageId`
 * and `ticketId` 0, i.e. not a ticket message) for company 1's connection picked by `pickResetConnection`.
 * Without such a connection it logs a warning. Only with `logCodes` (DEV_LOG_RESET_CODES, set by `npm start`'s
 * demo, whose connections cannot reach WhatsApp) is the code logged either way, so the flow can be tried locally. Returns the command
 * published, or undefined.
 */
export async function deliverResetCode(deps: ResetCodeDeps, m: BusMessage<PasswordResetCodeEvent>): Promise<SendCommand | undefined> {
  const e = m.payload;
  if (!isEvent(e)) throw new PermanentError('auth.reset-code-issued: malformed payload');
  const conn = pickResetConnection(await deps.connections.list(PLATFORM_COMPANY_ID));
  if (!conn) {
    if (deps.logCodes) {
      deps.log.warn({ userId: e.userId, to: e.to, resetCodeShown: e.code }, 'password reset: no connected WhatsApp connection in company 1; the code is logged because DEV_LOG_RESET_CODES=true');
    } else {
      deps.log.warn({ userId: e.userId }, 'password reset: no connected WhatsApp connection in company 1, the code was not sent');
    }
    return undefined;
  }
  const cmd: SendCommand = {
    companyId: PLATFORM_COMPANY_ID,
    messageId: 0,
    ticketId: 0,
    connectionId: conn.id,
    channel: conn.channel as Channel,
    to: e.to,
    isGroup: false,
    body: e.text,
    remoteJid: null,
    lid: null,
    mediaType: 'conversation',
    isForwarded: false,
  };
  await deps.bus.publish(sendTopic(cmd.channel), cmd, { id: `message.send:reset:${m.id}` });
  if (deps.logCodes) {
    // The demo connections of `npm start` cannot reach WhatsApp: the code is in the log so the flow can be tried.
    deps.log.info({ userId: e.userId, connectionId: conn.id, channel: conn.channel, to: e.to, resetCodeShown: e.code }, 'password reset: code handed to the channel (code logged because DEV_LOG_RESET_CODES=true)');
  } else {
    deps.log.info({ userId: e.userId, connectionId: conn.id, channel: conn.channel }, 'password reset: code handed to the channel');
  }
  return cmd;
}

/** Subscribes the delivery (queue `connections.reset-code`, 3 retries then dead-letter). */
export function subscribeResetCodes(deps: ResetCodeDeps): Promise<Subscription> {
  return deps.bus.subscribe(resetCodeIssued, async (m) => {
    await deliverResetCode(deps, m);
  }, { queue: RESET_CODE_QUEUE, maxRetries: 3 });
}
