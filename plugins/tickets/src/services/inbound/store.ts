import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { PermanentError, RetryableError, type Envelope } from '@atendo/sdk';
import type { Connection } from '@atendo/plugin-connections/contract';
import type { Contact, ContactTagRef, FindOrCreateInput } from '@atendo/plugin-contacts/contract';
import type { MessageRow, TicketRow } from '../../model';
import { CONVERSATION_STATUSES } from '../../model';
import { camelRow } from '@atendo/sdk';
import { isUniqueActiveViolation, ticketBusEvent, ticketChangedEvent } from '../core';
import { ACK, messageStoredEvent } from '../messages';
import { messageReceived, messageStored, ticketChanged, ticketCreated, ticketUpdated, type MessageReceivedEvent, type TicketActor } from '../../contract';
import type { TicketsDeps } from '../deps';
import type { ConnectionCache } from './connections';
import { cut, inboundStatus, messageFields, occurredAt, type MessageFields } from './fields';

/**
 * The store step of the inbound pipeline: one batch of message envelopes becomes contacts, tickets
 * (active, reopened or new) and messages in one transaction. Nothing is emitted here; the caller announces
 * the returned `Announce` after commit (announce.ts).
 */

/**
 * An outbound echo (`direction: 'out'`) whose provider id is not stored yet may be our own send whose
 * `message.sent` result has not landed: it is retried until this attempt, then stored as a message sent from
 * another device (the phone, WhatsApp Web, Business Suite).
 */
export const ECHO_RETRY_ATTEMPTS = 3;

/** One message envelope waiting for its batch. */
export interface Item {
  env: Envelope;
  attempt: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  /** True once resolved or rejected (a batch may settle some envelopes early: retries, refusals). */
  settled: () => boolean;
}

/** A message envelope ready for the transaction: its connection and contacts resolved. */
export interface Prepared {
  item: Item;
  env: Envelope;
  conn: Connection;
  contact: Contact;
  /** The participant's contact in groups (the message's `contactId`). */
  participant?: Contact;
  fromMe: boolean;
  fields: MessageFields;
  at: Date;
}

/** A message stored by a batch, for the events after commit. */
export interface Stored {
  p: Prepared;
  message: MessageRow;
}

/** What a committed batch announces. */
export interface Announce {
  stored: Stored[];
  tickets: Map<number, TicketRow>;
  /** Tickets created or reopened by the batch; reopened ones with their row before. */
  opened: Map<number, { previous?: TicketRow }>;
  /** The tag ids of the batch's tickets, read with their lock (new tickets: none); absent ones are read when announced. */
  ticketTags: Map<number, number[]>;
  /** The tags of the batch's contacts, read with them (`findOrCreateMany`'s `tagsOut`); absent ones are read when announced. */
  contactTags: Map<number, ContactTagRef[]>;
}

const keyOf = (companyId: number, contactId: number, connectionId: number) => `${companyId}:${contactId}:${connectionId}`;


/**
 * Resolves connections and contacts, then stores the batch in one transaction. Envelopes that end
 * without a write (skipped, duplicate) resolve with the batch; envelopes that must be retried (an echo not
 * matched yet) or refused (unknown connection) are settled here and left out.
 */
export async function processBatch(deps: TicketsDeps, connections: ConnectionCache, items: Item[]): Promise<Announce | undefined> {
  const live: Item[] = [];
  const conns = new Map<Item, Connection>();
  await Promise.all(
    items.map(async (i) => {
      try {
        const conn = await connections.of(i.env);
        if (i.env.thread.isGroup && !conn.allowGroup) {
          deps.log.debug({ key: i.env.idempotencyKey }, 'inbound: group message on a connection that ignores groups');
          return;
        }
        conns.set(i, conn);
        live.push(i);
      } catch (err) {
        if (err instanceof PermanentError) {
          i.reject(err);
          return;
        }
        throw err;
      }
    }),
  );
  if (!live.length) return undefined;

  return deps.db.transaction((trx) => store(deps, trx, live, conns));
}

/**
 * The contacts of the envelopes (the thread's, and in groups the participant's), one call per company,
 * inside the batch's transaction. Envelopes of blocked contacts are left out.
 */
async function contactsOf(deps: TicketsDeps, trx: Knex.Transaction, live: Item[], conns: Map<Item, Connection>, contactTags: Map<number, ContactTagRef[]>): Promise<Prepared[]> {
  const byCompany = new Map<number, { inputs: FindOrCreateInput[]; slots: { item: Item; kind: 'thread' | 'participant' }[] }>();
  for (const i of live) {
    const e = i.env;
    const wa = e.channel === 'whatsapp';
    const inbound = e.direction === 'in';
    const g = byCompany.get(e.companyId) ?? { inputs: [], slots: [] };
    byCompany.set(e.companyId, g);
    g.inputs.push({
      number: e.thread.externalId,
      name: e.thread.isGroup ? e.thread.name : inbound ? e.sender?.name : undefined,
      // The channel's own name of the thread (group subject, sender's profile): it refreshes the stored one.
      nameFrom: 'profile',
      channel: e.channel,
      isGroup: e.thread.isGroup,
      lid: !e.thread.isGroup && inbound ? e.sender?.lid : undefined,
      // The JID the person writes from (Baileys: its phone JID; Cloud API: its `wa_id`): replies go there, whatever
      // spelling the contact is stored under (issue 33 item 5: a 12-digit id of a contact saved with the 9th digit).
      remoteJid: wa
        ? e.thread.isGroup ? `${e.thread.externalId}@g.us` : inbound ? e.sender?.jid : undefined
        : e.channel === 'whatsappapi' && !e.thread.isGroup && inbound && e.sender?.phone ? `${e.sender.phone}@s.whatsapp.net` : undefined,
    });
    g.slots.push({ item: i, kind: 'thread' });
    if (e.thread.isGroup && inbound && e.sender) {
      g.inputs.push({ number: e.sender.phone || e.sender.externalId, name: e.sender.name, nameFrom: 'profile', channel: e.channel, isGroup: false, lid: e.sender.lid, remoteJid: e.sender.jid });
      g.slots.push({ item: i, kind: 'participant' });
    }
  }
  const threadContact = new Map<Item, Contact>();
  const participantContact = new Map<Item, Contact>();
  for (const [companyId, g] of byCompany) {
    const many = deps.contacts.findOrCreateMany;
    // Their tags come along for the live events (contact ids are unique across companies).
    const contacts = many ? await many(companyId, g.inputs, trx, { tagsOut: contactTags }) : await Promise.all(g.inputs.map((x) => deps.contacts.findOrCreate(companyId, x, trx)));
    g.slots.forEach((s, idx) => (s.kind === 'thread' ? threadContact : participantContact).set(s.item, contacts[idx]));
  }
  const prepared: Prepared[] = [];
  for (const i of live) {
    const contact = threadContact.get(i)!;
    if (!contact.active) {
      deps.log.debug({ key: i.env.idempotencyKey, contactId: contact.id }, 'inbound: message of a blocked contact skipped');
      continue;
    }
    prepared.push({ item: i, env: i.env, conn: conns.get(i)!, contact, participant: participantContact.get(i), fromMe: i.env.direction === 'out', fields: messageFields(i.env), at: occurredAt(i.env) });
  }
  return prepared;
}

/**
 * The transaction of a batch: provider ids already stored (nothing to do; echoes not matched yet are
 * retried), contacts, tickets (active, reopened or new), messages, ticket updates.
 */
async function store(deps: TicketsDeps, trx: Knex.Transaction, live: Item[], conns: Map<Item, Connection>): Promise<Announce | undefined> {
  // 1. Provider ids already stored. Needed up front for echoes (ours, or another device's) and replies (the
  //    quoted message's id); otherwise only before opening a ticket (step 3): a redelivered message must not
  //    open or reopen one. In the common case (inbound, active ticket) the insert's ON CONFLICT suffices.
  const known = new Map<string, number>();
  const lookUp = async (items: Item[]) => {
    const wids = new Map<string, [number, string]>();
    for (const { env } of items) {
      wids.set(`${env.companyId}:${env.externalId}`, [env.companyId, env.externalId]);
      if (env.replyTo) wids.set(`${env.companyId}:${env.replyTo.externalId}`, [env.companyId, env.replyTo.externalId]);
    }
    if (!wids.size) return;
    for (const r of (await trx('messages').whereIn(['companyId', 'wid'], [...wids.values()]).select('id', 'companyId', 'wid')) as { id: number; companyId: number; wid: string }[]) {
      known.set(`${r.companyId}:${r.wid}`, Number(r.id));
    }
  };
  const isKnown = (e: Envelope) => known.has(`${e.companyId}:${e.externalId}`);
  const upFront = live.some((i) => i.env.direction === 'out' || i.env.replyTo);
  if (upFront) await lookUp(live);
  const fresh: Item[] = [];
  const seen = new Set<string>();
  for (const i of live) {
    const k = `${i.env.companyId}:${i.env.externalId}`;
    if (isKnown(i.env) || seen.has(k)) continue; // stored already (or twice in this batch): nothing to do
    if (i.env.direction === 'out' && i.attempt <= ECHO_RETRY_ATTEMPTS) {
      // Maybe our own send whose `message.sent` has not landed yet: look again later.
      i.reject(new RetryableError(`outbound echo ${i.env.externalId} not matched yet`));
      continue;
    }
    seen.add(k);
    fresh.push(i);
  }
  if (!fresh.length) return undefined;

  // 2. Contacts (blocked ones: nothing stored).
  const contactTags = new Map<number, ContactTagRef[]>();
  let todo = await contactsOf(deps, trx, fresh, conns, contactTags);
  if (!todo.length) return undefined;

  // 3. Tickets: the active one of each (contact, connection), locked in id order.
  const pairOf = (p: Prepared) => keyOf(p.env.companyId, p.contact.id, p.conn.id);
  const tickets = new Map<string, TicketRow>();
  // Their tag ids come along (the live events show the tags): no separate read when announced.
  const ticketTags = new Map<number, number[]>();
  const active = (await trx('tickets')
    .whereIn(['companyId', 'contactId', 'whatsappId'], [...new Map(todo.map((p) => [pairOf(p), [p.env.companyId, p.contact.id, p.conn.id]])).values()])
    .whereIn('status', CONVERSATION_STATUSES)
    .orderBy('id')
    .select('tickets.*', trx.raw('ARRAY(SELECT tt.tag_id FROM ticket_tags tt WHERE tt.ticket_id = tickets.id AND tt.company_id = tickets.company_id) AS inbound_tag_ids'))
    .forNoKeyUpdate()) as (TicketRow & { inboundTagIds?: number[] })[];
  for (const t of active) {
    ticketTags.set(t.id, t.inboundTagIds ?? []);
    delete t.inboundTagIds;
    tickets.set(keyOf(t.companyId, t.contactId, t.whatsappId!), t);
  }
  const opened = new Map<number, { previous?: TicketRow }>();
  const unticketed = todo.filter((p) => !tickets.has(pairOf(p)));
  if (unticketed.length && !upFront) {
    await lookUp(unticketed.map((p) => p.item));
    todo = todo.filter((p) => !isKnown(p.env));
    if (!todo.length) return undefined;
  }
  const keys = new Map<string, Prepared>();
  for (const p of todo) if (!tickets.has(pairOf(p))) keys.set(pairOf(p), p);
  let missing = [...keys.values()];

  // 4. A closed ticket of the pair updated within the connection's timeCreateNewTicket is reopened (1:1 only).
  const reopenable = missing.filter((p) => !p.env.thread.isGroup && p.conn.timeCreateNewTicket > 0);
  if (reopenable.length) {
    const maxMinutes = Math.max(...reopenable.map((p) => p.conn.timeCreateNewTicket));
    const closed = (await trx('tickets')
      .whereIn(['companyId', 'contactId', 'whatsappId'], reopenable.map((p) => [p.env.companyId, p.contact.id, p.conn.id]))
      .where({ status: 'closed' })
      .where('updatedAt', '>', new Date(Date.now() - maxMinutes * 60_000))
      .orderBy('updatedAt', 'desc')) as TicketRow[];
    for (const p of reopenable) {
      const prev = closed.find((t) => t.companyId === p.env.companyId && t.contactId === p.contact.id && t.whatsappId === p.conn.id && t.updatedAt.getTime() > Date.now() - p.conn.timeCreateNewTicket * 60_000);
      if (!prev) continue;
      const k = keyOf(p.env.companyId, p.contact.id, p.conn.id);
      try {
        const t = await trx.transaction(async (sp) => {
          const [row] = (await sp('tickets')
            .where({ id: prev.id, companyId: prev.companyId, status: 'closed' })
            .update({ status: inboundStatus(false, p.conn), userId: null, closedAt: null, unreadMessages: 0, isBot: false, updatedAt: sp.fn.now() })
            .returning('*')) as TicketRow[];
          if (row) await sp('ticketLogs').insert({ companyId: row.companyId, ticketId: row.id, type: 'reopen', userId: null, queueId: row.queueId, data: JSON.stringify({ inbound: true }) });
          return row;
        });
        if (t) {
          tickets.set(k, t);
          opened.set(t.id, { previous: prev });
        }
      } catch (err) {
        if (!isUniqueActiveViolation(err)) throw err;
      }
    }
    missing = missing.filter((p) => !tickets.has(keyOf(p.env.companyId, p.contact.id, p.conn.id)));
  }

  // 5. New tickets; a pair opened meanwhile by another batch or node is skipped by the index and re-read.
  if (missing.length) {
    missing.sort((a, b) => a.env.companyId - b.env.companyId || a.contact.id - b.contact.id || a.conn.id - b.conn.id);
    const rows = missing.map((p) => {
      const isGroup = p.env.thread.isGroup;
      const status = inboundStatus(isGroup, p.conn);
      const queueId = status !== 'group' && p.conn.queues.length === 1 ? p.conn.queues[0].id : null;
      return { uuid: randomUUID(), companyId: p.env.companyId, contactId: p.contact.id, whatsappId: p.conn.id, queueId, status, isGroup, channel: p.conn.channel, fromMe: false, unreadMessages: 0 };
    });
    const created = (await trx('tickets')
      .insert(rows)
      .onConflict(trx.raw(`(company_id, contact_id, COALESCE(whatsapp_id, 0)) WHERE status IN ('open', 'pending', 'group', 'nps', 'lgpd')`) as never)
      .ignore()
      .returning('*')) as TicketRow[];
    for (const t of created) {
      tickets.set(keyOf(t.companyId, t.contactId, t.whatsappId!), t);
      opened.set(t.id, {});
      ticketTags.set(t.id, []);
    }
    if (created.length) await trx('ticketLogs').insert(created.map((t) => ({ companyId: t.companyId, ticketId: t.id, type: 'create', userId: null, queueId: t.queueId })));
    const raced = missing.filter((p) => !tickets.has(keyOf(p.env.companyId, p.contact.id, p.conn.id)));
    if (raced.length) {
      const winners = (await trx('tickets')
        .whereIn(['companyId', 'contactId', 'whatsappId'], raced.map((p) => [p.env.companyId, p.contact.id, p.conn.id]))
        .whereIn('status', CONVERSATION_STATUSES)
        .orderBy('id')
        .forNoKeyUpdate()) as TicketRow[];
      for (const t of winners) tickets.set(keyOf(t.companyId, t.contactId, t.whatsappId!), t);
      // A pair still without a ticket (its active ticket was closed in between) fails the batch: retried.
      if (raced.some((p) => !tickets.has(keyOf(p.env.companyId, p.contact.id, p.conn.id)))) throw new RetryableError('inbound: ticket race not settled');
    }
  }

  // 6. The messages, once per provider id (sorted: concurrent batches take the index locks in one order).
  todo.sort((a, b) => a.env.companyId - b.env.companyId || (a.env.externalId < b.env.externalId ? -1 : a.env.externalId > b.env.externalId ? 1 : 0));
  const ticketOf = (p: Prepared) => tickets.get(keyOf(p.env.companyId, p.contact.id, p.conn.id))!;
  const messageRows = todo.map((p) => {
    const e = p.env;
    const t = ticketOf(p);
    const wa = e.channel === 'whatsapp';
    const remoteJid = wa ? (e.thread.isGroup ? `${e.thread.externalId}@g.us` : (p.fromMe ? null : e.sender?.jid) ?? p.contact.remoteJid ?? `${e.thread.externalId}@s.whatsapp.net`) : null;
    return {
      companyId: e.companyId,
      ticketId: t.id,
      contactId: p.fromMe ? null : (p.participant ?? p.contact).id,
      wid: e.externalId,
      remoteJid: cut(remoteJid, 255),
      participant: e.thread.isGroup ? cut(e.sender?.jid ?? e.sender?.lid ?? e.sender?.externalId, 255) : null,
      dataJson: e.raw === undefined ? null : JSON.stringify(e.raw),
      ack: p.fromMe ? ACK.sent : ACK.pending,
      read: p.fromMe,
      fromMe: p.fromMe,
      body: p.fields.body,
      mediaPath: p.fields.mediaPath,
      mediaName: p.fields.mediaName,
      mediaType: p.fields.mediaType,
      isForwarded: Boolean(e.content?.forwarded),
      quotedMsgId: e.replyTo ? (known.get(`${e.companyId}:${e.replyTo.externalId}`) ?? null) : null,
      queueId: t.queueId,
      userId: null,
      createdAt: p.at,
      updatedAt: p.at,
    };
  });
  const inserted = (await trx('messages')
    .insert(messageRows)
    .onConflict(trx.raw('(company_id, wid) WHERE wid IS NOT NULL') as never)
    .ignore()
    .returning('*')) as MessageRow[];
  if (!inserted.length) return undefined;
  const byWid = new Map(inserted.map((r) => [`${r.companyId}:${r.wid}`, { ...r, id: Number(r.id), quotedMsgId: r.quotedMsgId === null ? null : Number(r.quotedMsgId) }]));
  const stored: Stored[] = [];
  for (const p of todo) {
    const message = byWid.get(`${p.env.companyId}:${p.env.externalId}`);
    if (message) stored.push({ p, message });
  }

  // 7. The tickets: last message (the newest of the batch), who wrote it, unread count; one statement.
  const perTicket = new Map<number, { companyId: number; last: Stored; unread: number }>();
  for (const s of stored) {
    const cur = perTicket.get(s.message.ticketId);
    const unread = (cur?.unread ?? 0) + (s.p.fromMe ? 0 : 1);
    const last = !cur || s.p.at.getTime() >= cur.last.p.at.getTime() ? s : cur.last;
    perTicket.set(s.message.ticketId, { companyId: s.message.companyId, last, unread });
  }
  const ids = [...perTicket.keys()].sort((a, b) => a - b);
  // A message newer than this batch's last (stored by a batch that committed first) keeps its place.
  const { rows } = await trx.raw(
    `UPDATE tickets AS t SET
       last_message = CASE WHEN newer.found THEN t.last_message ELSE v.last_message END,
       from_me = CASE WHEN newer.found THEN t.from_me ELSE v.from_me END,
       unread_messages = t.unread_messages + v.unread, updated_at = now()
     FROM (VALUES ${ids.map(() => '(?::int, ?::int, ?::text, ?::boolean, ?::int, ?::timestamptz)').join(', ')}) AS v(id, company_id, last_message, from_me, unread, at)
     CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM messages m WHERE m.ticket_id = v.id AND m.created_at > v.at) AS found) AS newer
     WHERE t.id = v.id AND t.company_id = v.company_id
     RETURNING t.*`,
    ids.flatMap((id) => {
      const x = perTicket.get(id)!;
      return [id, x.companyId, x.last.p.fields.lastMessage, x.last.p.fromMe, x.unread, x.last.p.at];
    }),
  );
  const finalTickets = new Map<number, TicketRow>();
  for (const r of rows as Record<string, unknown>[]) {
    const t = camelRow<TicketRow>(r);
    finalTickets.set(t.id, t);
  }
  const out: Announce = { stored, tickets: finalTickets, opened, ticketTags, contactTags };
  await publishInbound(deps, trx, out);
  return out;
}

/**
 * The bus events of a batch, written into its transaction's outbox (they leave with the commit, all in one
 * INSERT): per opened ticket `ticket.created`, or `ticket.updated` and `ticket.changed` (a reopen, by the contact);
 * per message `message.received` and `message.stored`.
 */
async function publishInbound(deps: TicketsDeps, trx: Knex.Transaction, a: Announce): Promise<void> {
  const writes: Promise<void>[] = [];
  for (const [id, open] of a.opened) {
    const t = a.tickets.get(id);
    if (!t) continue;
    writes.push(deps.bus.publish(open.previous ? ticketUpdated : ticketCreated, ticketBusEvent(t), { trx }));
    const change = open.previous ? ticketChangedEvent(open.previous, t, { kind: 'contact', contactId: t.contactId }) : undefined;
    if (change) writes.push(deps.bus.publish(ticketChanged, change, { trx }));
  }
  for (const s of a.stored) {
    const companyId = s.message.companyId;
    const ev: MessageReceivedEvent = { companyId, ticketId: s.message.ticketId, messageId: s.message.id, contactId: s.p.contact.id, fromMe: s.message.fromMe };
    writes.push(deps.bus.publish(messageReceived, ev, { id: `message.received:${companyId}:${s.message.id}`, trx }));
    const t = a.tickets.get(s.message.ticketId);
    const by: TicketActor = s.message.fromMe ? { kind: 'device' } : { kind: 'contact', contactId: s.message.contactId ?? s.p.contact.id };
    if (t) writes.push(deps.bus.publish(messageStored, messageStoredEvent(s.message, t, by), { id: `message.stored:${companyId}:${s.message.id}`, trx }));
  }
  await Promise.all(writes);
}
