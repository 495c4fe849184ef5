import { ACK_OF_STATUS, PermanentError, RetryableError, companyEvent, type Envelope } from '@atendo/sdk';
import type { MessageRow } from '../../model';
import { ticketAudiences } from '../../visibility';
import { findActive } from '../tickets';
import { applyEdit, applyFailedByWid, applyReaction, applyRemoteDelete, applyStatus, emitMessageUpdate } from '../messages';
import type { TicketsDeps } from '../deps';
import type { ConnectionCache } from './connections';
import { clean, occurredAt } from './fields';

/** A status for an unknown provider id is retried until this attempt (our own send's result may be late), then dropped. */
export const STATUS_RETRY_ATTEMPTS = 3;
/** Reactions, edits and deletes of an unknown provider id: retried once, then dropped (no retry storm). */
export const CHANGE_RETRY_ATTEMPTS = 1;
/** Outbound messages moved at most by one watermark status (the oldest ones are long settled). */
const WATERMARK_LIMIT = 500;

/** Spec connection statuses (2-tickets.md §4) by the lower-cased names adapters report. */
const CONNECTION_STATUS: Record<string, string> = {
  connected: 'CONNECTED',
  open: 'CONNECTED',
  opening: 'OPENING',
  connecting: 'OPENING',
  qrcode: 'qrcode',
  qr: 'qrcode',
  disconnected: 'DISCONNECTED',
  close: 'DISCONNECTED',
  closed: 'DISCONNECTED',
  logged_out: 'DISCONNECTED',
  timeout: 'TIMEOUT',
  pairing: 'PAIRING',
};

/**
 * The envelope kinds other than `message`, handled one by one: `status` (acks, failures, watermarks),
 * `reaction` / `edit` / `delete` (applied to the stored message), `typing` (presence to the ticket's
 * audiences) and `connection` (the connection's status through the connections service).
 */
export class EnvelopeChanges {
  /** Connection status reports: the pending chain and the time of the last applied report, per connection. */
  private readonly statusChains = new Map<string, Promise<void>>();
  private readonly statusAt = new Map<string, number>();

  constructor(
    private readonly deps: TicketsDeps,
    private readonly connections: ConnectionCache,
  ) {}

  /** True when a message with provider id `wid` exists in the company. */
  private async known(companyId: number, wid: string): Promise<boolean> {
    return Boolean(await this.deps.db('messages').where({ companyId, wid }).first('id'));
  }

  async status(env: Envelope, attempt: number): Promise<void> {
    await this.connections.of(env);
    const st = env.status;
    if (!st) throw new PermanentError('status envelope without status');
    if (st.watermark && env.externalId.startsWith('watermark:')) return this.watermark(env, st.state, st.watermark);
    const changed =
      st.state === 'failed'
        ? await applyFailedByWid(this.deps, { companyId: env.companyId, wid: env.externalId, error: st.error })
        : await applyStatus(this.deps, { companyId: env.companyId, wid: env.externalId, ack: ACK_OF_STATUS[st.state as keyof typeof ACK_OF_STATUS] });
    if (changed || (await this.known(env.companyId, env.externalId))) return;
    if (attempt <= STATUS_RETRY_ATTEMPTS) throw new RetryableError(`status for unknown message ${env.externalId}`);
    this.deps.log.debug({ key: env.idempotencyKey }, 'inbound: status for an unknown message dropped');
  }

  /**
   * A watermark receipt (Messenger `delivery` / `read`): every outbound message of ours in the thread's
   * tickets on the connection, sent (wid set) at or before the watermark, moves to the state's ack (forward
   * only); an `appMessage` update is pushed per moved message.
   */
  private async watermark(env: Envelope, state: string, watermark: string): Promise<void> {
    const ack = ACK_OF_STATUS[state as keyof typeof ACK_OF_STATUS];
    const until = Date.parse(watermark);
    if (!ack || !Number.isFinite(until)) return;
    const contact = await this.deps.contacts.getByNumber?.(env.companyId, env.thread.externalId);
    if (!contact) return;
    const ticketIds = this.deps.db('tickets').where({ companyId: env.companyId, contactId: contact.id, whatsappId: env.connectionId }).select('id');
    const ids = this.deps.db('messages')
      .where({ companyId: env.companyId, fromMe: true, isPrivate: false })
      .whereIn('ticketId', ticketIds)
      .whereNotNull('wid')
      .where('ack', '<', ack)
      .where('createdAt', '<=', new Date(until))
      .orderBy('createdAt', 'desc')
      .limit(WATERMARK_LIMIT)
      .select('id');
    const moved = (await this.deps.db('messages')
      .where({ companyId: env.companyId })
      .whereIn('id', ids)
      .where('ack', '<', ack)
      .update({ ack, updatedAt: this.deps.db.fn.now() })
      .returning('*')) as MessageRow[];
    for (const row of moved) await emitMessageUpdate(this.deps, { ...row, id: Number(row.id) });
  }

  async change(env: Envelope, attempt: number): Promise<void> {
    await this.connections.of(env);
    const { deps } = this;
    let changed: MessageRow | undefined;
    if (env.kind === 'reaction') {
      if (!env.reaction) throw new PermanentError('reaction envelope without reaction');
      changed = await applyReaction(deps, env.companyId, env.externalId, { emoji: env.reaction.emoji, fromMe: env.direction === 'out', senderId: env.sender?.externalId ?? env.thread.externalId });
    } else if (env.kind === 'edit') {
      const text = env.edit?.text ?? env.content?.text;
      if (text === undefined) throw new PermanentError('edit envelope without text');
      changed = await applyEdit(deps, env.companyId, env.externalId, clean(text));
    } else {
      changed = await applyRemoteDelete(deps, env.companyId, env.externalId);
    }
    if (changed || (await this.known(env.companyId, env.externalId))) return;
    if (attempt <= CHANGE_RETRY_ATTEMPTS) throw new RetryableError(`${env.kind} for unknown message ${env.externalId}`);
    deps.log.debug({ key: env.idempotencyKey }, `inbound: ${env.kind} for an unknown message dropped`);
  }

  // ------------------------------------------------------------------ typing and connection state

  async typing(env: Envelope): Promise<void> {
    if (env.direction !== 'in' || !env.typing) return;
    await this.connections.of(env);
    const contact = await this.deps.contacts.getByNumber?.(env.companyId, env.thread.externalId);
    if (!contact) return;
    const ticket = await findActive(this.deps.db, env.companyId, contact.id, env.connectionId);
    if (!ticket) return;
    this.deps.realtime.emitToCompany(
      env.companyId,
      companyEvent(env.companyId, 'presence'),
      { action: 'update-presence', ticketId: ticket.id, presence: env.typing.state },
      // The family's rooms of presence: the ticket id and its status (wire-shapes §5).
      { audiences: ticketAudiences(ticket), rooms: [String(ticket.id), ticket.status] },
    );
  }

  async connection(env: Envelope): Promise<void> {
    await this.connections.of(env);
    const c = env.connection;
    if (!c) throw new PermanentError('connection envelope without connection');
    if (c.status === 'account_error') {
      this.deps.log.warn({ companyId: env.companyId, connectionId: env.connectionId, error: c.error }, 'inbound: the provider reported an account error');
      return;
    }
    const status = CONNECTION_STATUS[c.status.toLowerCase()];
    if (!status) {
      this.deps.log.warn({ companyId: env.companyId, connectionId: env.connectionId, status: c.status.slice(0, 50) }, 'inbound: unknown connection status ignored');
      return;
    }
    // Reports of one connection apply one at a time and never backwards in time (the consumer runs up to 32
    // envelopes at once, so a late `qrcode` must not overwrite a newer `CONNECTED`).
    const key = `${env.companyId}:${env.connectionId}`;
    const run = (this.statusChains.get(key) ?? Promise.resolve()).then(() => this.applyConnectionStatus(env, status, occurredAt(env).getTime()));
    const chain = run.catch(() => undefined);
    this.statusChains.set(key, chain);
    void chain.then(() => {
      if (this.statusChains.get(key) === chain) this.statusChains.delete(key);
    });
    return run;
  }

  private async applyConnectionStatus(env: Envelope, status: string, at: number): Promise<void> {
    const key = `${env.companyId}:${env.connectionId}`;
    if ((this.statusAt.get(key) ?? -Infinity) > at) return;
    const c = env.connection!;
    try {
      await this.deps.connections.updateStatus(env.companyId, env.connectionId, {
        status,
        ...(status === 'qrcode' ? { qrcode: c.qrcode ?? '' } : status === 'CONNECTED' ? { qrcode: '' } : {}),
      });
      if (this.statusAt.size > 10_000) this.statusAt.clear();
      this.statusAt.set(key, at);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_NO_WAPP_FOUND' || code === 'ERR_VALIDATION') throw new PermanentError(`connection status not applied: ${code}`, { cause: err });
      throw err;
    }
  }
}
