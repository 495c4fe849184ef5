import { companyEvent, type Topic } from '@atendo/sdk';
import type { TicketRow } from '../../model';
import { ticketAudiences } from '../../visibility';
import { pushTicketUpdate, serializeTickets, ticketBusEvent, ticketChangedEvent, ticketRooms } from '../core';
import { messageReceived, messageStored, ticketChanged, ticketCreated, ticketUpdated, type MessageReceivedEvent, type TicketActor } from '../../contract';
import { messageStoredEvent, serializeMessages, wireMessageRow, type SerializedMessage } from '../messages';
import type { TicketsDeps } from '../deps';
import type { Announce, Stored } from './store';

/**
 * How long the lgpdHideNumber setting is reused for socket payloads (milliseconds; the ticket lists cache it
 * 5 s too): one read per company and second instead of one per batch.
 */
const LGPD_TTL_MS = 1_000;
/** Bus events (`message.received`, `ticket.*`) awaiting their publisher confirm before the next events wait. */
const MAX_UNCONFIRMED = 2_000;
/** Batches whose live events may wait behind the current one before new commits wait for them (back-pressure). */
const MAX_EMIT_BACKLOG = 8;

/**
 * The live events of committed batches: socket events (`appMessage` create, ticket update) to the tickets'
 * audiences in commit order, the bus events `message.received`, `message.stored`, `ticket.created`,
 * `ticket.updated` and `ticket.changed` (a reopened ticket, by the contact), and
 * the Graph profile lookups of Messenger and Instagram contacts. One per pipeline.
 */
export class Announcer {
  private emitChain: Promise<void> = Promise.resolve();
  private emitBacklog = 0;
  private readonly lgpd = new Map<number, { value: boolean; at: number }>();
  /** Bus events published and not yet confirmed. */
  private readonly publishing = new Set<Promise<void>>();
  /** Contacts whose Graph profile was asked for recently (companyId:contactId -> ms), bounded. */
  private readonly profileAsked = new Map<string, number>();

  constructor(private readonly deps: TicketsDeps) {}

  /** True while live events or bus confirms are pending. */
  busy(): boolean {
    return this.emitBacklog > 0 || this.publishing.size > 0;
  }

  /** Waits for the live events queued so far and the pending bus confirms. */
  async settle(): Promise<void> {
    await this.emitChain;
    await Promise.allSettled([...this.publishing]);
  }

  /**
   * Messenger and Instagram webhooks carry no sender name: after commit, contacts still named by their
   * id get their name (and picture) from the Graph profile through the `channels` service, when that
   * plugin is loaded. Fire-and-forget, at most once per contact every 10 minutes; failures are logged.
   * `contacts.findOrCreate` updates the name and pushes `company-{id}-contact`.
   */
  enrichProfiles(stored: Stored[]): void {
    const channels = this.deps.profiles;
    if (!channels) return;
    for (const { p } of stored) {
      const c = p.contact;
      if (p.fromMe || p.env.thread.isGroup || (p.env.channel !== 'facebook' && p.env.channel !== 'instagram')) continue;
      if (c.name && c.name !== c.number) continue;
      const key = `${p.env.companyId}:${c.id}`;
      const last = this.profileAsked.get(key);
      if (last !== undefined && Date.now() - last < 10 * 60_000) continue;
      if (this.profileAsked.size >= 10_000) this.profileAsked.clear();
      this.profileAsked.set(key, Date.now());
      channels
        .fetchProfile(p.env.companyId, p.env.connectionId, p.env.thread.externalId)
        .then((profile) =>
          profile?.name
            ? this.deps.contacts.findOrCreate(p.env.companyId, { number: c.number, name: profile.name, nameFrom: 'profile', channel: p.env.channel, isGroup: false, profilePicUrl: profile.pictureUrl })
            : undefined,
        )
        .catch((err: unknown) => this.deps.log.debug({ err, contactId: c.id }, 'inbound: profile lookup failed'));
    }
  }

  /**
   * Queues the live events of a committed batch behind the previous batches' (so a client sees them in
   * commit order). When too many batches wait, the caller waits too (back-pressure on the bus).
   */
  async announceLater(a: Announce): Promise<void> {
    if (this.emitBacklog >= MAX_EMIT_BACKLOG) await this.emitChain;
    this.emitBacklog++;
    this.emitChain = this.emitChain
      .then(() => this.announce(a))
      .catch((err: unknown) => this.deps.log.error({ err }, 'inbound: live events after commit failed'))
      .finally(() => {
        this.emitBacklog--;
      });
  }

  /** Socket events and bus events of a committed batch, one serialization per company. */
  private async announce(a: Announce): Promise<void> {
    const { deps } = this;
    const companies = new Map<number, Stored[]>();
    for (const s of a.stored) {
      const list = companies.get(s.message.companyId) ?? [];
      list.push(s);
      companies.set(s.message.companyId, list);
    }
    for (const [companyId, stored] of companies) {
      const ticketRows = [...new Set(stored.map((s) => s.message.ticketId))].map((id) => a.tickets.get(id)).filter((t): t is TicketRow => Boolean(t));
      const contacts = [...new Map(stored.map((s) => [s.p.contact.id, s.p.contact])).values()];
      const connections = [...new Map(stored.map((s) => [s.p.conn.id, s.p.conn])).values()];
      const [mask, messages] = await Promise.all([
        this.masksNumbers(companyId),
        this.wireMessages(companyId, stored, a.tickets),
      ]);
      const wire = await serializeTickets(deps, companyId, ticketRows, { maskNumbers: mask, known: { contacts, connections, ticketTags: a.ticketTags, contactTags: a.contactTags } });
      const wireById = new Map(wire.map((t) => [t.id as number, t]));
      const appMessage = companyEvent(companyId, 'appMessage');
      stored.forEach((s, idx) => {
        const t = a.tickets.get(s.message.ticketId);
        const ticket = wireById.get(s.message.ticketId);
        if (!t || !ticket) return;
        deps.realtime.emitToCompany(companyId, appMessage, { action: 'create', message: messages[idx], ticket, contact: ticket.contact ?? null }, { audiences: ticketAudiences(t), rooms: ticketRooms(t) });
      });
      for (const t of ticketRows) {
        pushTicketUpdate(deps, t, wireById.get(t.id), a.opened.get(t.id)?.previous);
      }
    }
  }

  /** The company's lgpdHideNumber setting (masked numbers in socket payloads), cached for LGPD_TTL_MS. */
  private async masksNumbers(companyId: number): Promise<boolean> {
    const hit = this.lgpd.get(companyId);
    if (hit && Date.now() - hit.at < LGPD_TTL_MS) return hit.value;
    const value = (await this.deps.identity.getCompanySetting(companyId, 'lgpdHideNumber')) === 'enabled';
    if (this.lgpd.size > 10_000) this.lgpd.clear();
    this.lgpd.set(companyId, { value, at: Date.now() });
    return value;
  }

  /**
   * The stored messages as `serializeMessages` shows them (GET /messages), built from what the batch knows:
   * the contacts, the tickets and the connections' queues. Replies (quoted messages) go through
   * `serializeMessages` itself.
   */
  private async wireMessages(companyId: number, stored: Stored[], tickets: Map<number, TicketRow>): Promise<SerializedMessage[]> {
    const { deps } = this;
    const replies = stored.filter((s) => s.message.quotedMsgId !== null);
    const full = replies.length ? await serializeMessages(deps, companyId, replies.map((s) => s.message)) : [];
    const fullById = new Map(full.map((m) => [m.id, m]));
    const queues = new Map<number, { id: number; name: string; color: string } | null>();
    for (const s of stored) for (const q of s.p.conn.queues) queues.set(q.id, { id: q.id, name: q.name, color: q.color });
    const missing = [...new Set([...tickets.values()].map((t) => t.queueId).filter((id): id is number => id !== null && !queues.has(id)))];
    for (const q of await Promise.all(missing.map((id) => deps.queues.getQueue(companyId, id)))) if (q) queues.set(q.id, { id: q.id, name: q.name, color: q.color });
    return stored.map((s) => {
      const done = fullById.get(s.message.id);
      if (done) return done;
      const sender = s.p.participant ?? s.p.contact;
      const queueId = tickets.get(s.message.ticketId)?.queueId ?? null;
      const row = wireMessageRow(s.message);
      return {
        ...row,
        reactions: Array.isArray(row.reactions) ? row.reactions : [],
        mediaUrl: s.message.mediaPath ? deps.uploads.url(companyId, s.message.mediaPath) : null,
        contact: s.message.contactId !== null ? { id: sender.id, name: sender.name } : null,
        quotedMsg: null,
        ticket: { id: s.message.ticketId, queueId, queue: queueId !== null ? (queues.get(queueId) ?? null) : null },
      };
    });
  }
}
