import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, companyEvent } from '@atendo/sdk';
import type { TicketLogType, TicketRow, TicketStatus, Viewer } from '../model';
import type { Ticket } from '@atendo/sdk/wire';
import type { TicketActor, TicketBusEvent, TicketChangedEvent, TicketClosedEvent, TicketSnapshot, TicketState } from '../contract';
import { ticketAudiences } from '../visibility';
import type { TicketsDeps } from './deps';
import type { Contact, ContactTagRef } from '@atendo/plugin-contacts/contract';
import type { Connection } from '@atendo/plugin-connections/contract';
import { wireTicketRow } from './wire-decorators';

/**
 * Shared building blocks of the tickets plugin: loading a ticket inside the caller's company, the viewer
 * facts, the wire serialization of tickets, ticket-log entries and the real-time emits.
 */

/**
 * Row locks on tickets: 'update' (FOR NO KEY UPDATE) serialises writers of the row but lets foreign-key
 * checks of new messages, logs and notes through (they take KEY SHARE), so an insert referencing a ticket
 * never waits for another transaction's update of it; 'delete' (FOR UPDATE) for the one path that deletes it.
 */
export type TicketLock = 'update' | 'delete';

/**
 * The ticket `id` of `companyId`, or 404 ERR_NO_TICKET_FOUND (ids of other companies are unknown); locked
 * when `lock` is given (true means 'update', see TicketLock).
 */
export async function getTicketOr404(db: Knex | Knex.Transaction, companyId: number, id: number, lock: boolean | TicketLock = false): Promise<TicketRow> {
  const q = db('tickets').where({ id, companyId }).first();
  if (lock === 'delete') q.forUpdate();
  else if (lock) q.forNoKeyUpdate();
  const row = (await q) as TicketRow | undefined;
  if (!row) throw new AppError('ERR_NO_TICKET_FOUND');
  return row;
}

/** The viewer facts of a signed-in user (profile, flags and queue ids). 403 when the user vanished. */
export async function loadViewer(deps: TicketsDeps, auth: { id: number; companyId: number; profile: string; super: boolean }): Promise<Viewer> {
  const user = await deps.identity.getUser(auth.companyId, auth.id);
  if (!user) throw new AppError('ERR_NO_PERMISSION');
  const queueIds = await deps.queues.listQueueIds(auth.companyId, auth.id);
  return { id: auth.id, companyId: auth.companyId, profile: user.profile, super: user.super, allTicket: user.allTicket, allowGroup: user.allowGroup, queueIds };
}

/** Appends a ticket-log entry (spec: create, chatBot, queue, open, access, transfered, receivedTransfer). */
export async function logTicket(trx: Knex | Knex.Transaction, t: Pick<TicketRow, 'id' | 'companyId'>, type: TicketLogType, userId: number | null, queueId: number | null = null, data?: Record<string, unknown>): Promise<void> {
  await trx('ticketLogs').insert({ companyId: t.companyId, ticketId: t.id, type, userId, queueId, data: data ? JSON.stringify(data) : null });
}

/**
 * Tickets as the product family's list shows them (wire-shapes §4 "GET /tickets" TicketL): the row plus
 * `contact`, `queue` {id, name, color}, `user` {id, name}, `tags` [{id, name, color}] and `whatsapp`
 * {id, name, channel, groupAsTicket}. One batched call per related service, whatever the page size.
 * `maskNumbers`: replace contact numbers per the lgpdHideNumber rule.
 */
export async function serializeTickets(
  deps: TicketsDeps,
  companyId: number,
  rows: TicketRow[],
  opts: {
    maskNumbers?: boolean;
    /** Added (additive): the rows' contacts and connections when the caller has them already (no re-read). */
    known?: {
      contacts?: Contact[];
      connections?: Pick<Connection, 'id' | 'name' | 'channel' | 'groupAsTicket'>[];
      /** Tag ids per ticket id, when the caller read them with the rows (every row covered: no `ticket_tags` read). */
      ticketTags?: ReadonlyMap<number, readonly number[]>;
      /** The contacts' tags (`contacts.tagsOf`'s answer), when the caller read them (every contact covered: no read). */
      contactTags?: ReadonlyMap<number, ContactTagRef[]>;
    };
  } = {},
): Promise<Ticket[]> {
  if (!rows.length) return [];
  const contactIds = [...new Set(rows.map((r) => r.contactId))];
  const userIds = [...new Set(rows.map((r) => r.userId).filter((x): x is number => x !== null))];
  const queueIds = [...new Set(rows.map((r) => r.queueId).filter((x): x is number => x !== null))];
  const knownContacts = opts.known?.contacts;
  const haveContacts = knownContacts !== undefined && contactIds.every((id) => knownContacts.some((c) => c.id === id));
  const knownTags = opts.known?.ticketTags;
  const haveTags = knownTags !== undefined && rows.every((r) => knownTags.has(r.id));
  const knownContactTags = opts.known?.contactTags;
  const haveContactTags = knownContactTags !== undefined && contactIds.every((id) => knownContactTags.has(id));
  // Neither known: contacts and their tags in one read (when the contacts plugin offers it).
  const together = !haveContacts && !haveContactTags && deps.contacts.getManyWithTags ? deps.contacts.getManyWithTags(companyId, contactIds) : undefined;
  const knownConnections = opts.known?.connections;
  const haveConnections = knownConnections !== undefined && rows.every((r) => r.whatsappId === null || knownConnections.some((c) => c.id === r.whatsappId));
  // Queues, connections, users' names and tags through the display cache (when the plugin set one up).
  const shown = deps.display ?? deps;
  const [contacts, contactTags, users, queues, connections, tagLinks] = await Promise.all([
    haveContacts ? Promise.resolve(knownContacts) : together ? together.then((x) => x.contacts) : deps.contacts.getMany(companyId, contactIds),
    haveContactTags ? Promise.resolve(knownContactTags) : together ? together.then((x) => x.tags) : deps.contacts.tagsOf(companyId, contactIds),
    userIds.length ? shown.identity.listUsers(companyId, userIds) : Promise.resolve([]),
    Promise.all(queueIds.map((id) => shown.queues.getQueue(companyId, id))),
    haveConnections ? Promise.resolve(knownConnections) : shown.connections.list(companyId),
    haveTags
      ? Promise.resolve(rows.flatMap((r) => knownTags!.get(r.id)!.map((tagId) => ({ ticketId: r.id, tagId }))))
      : deps.db('ticketTags').whereIn('ticketId', rows.map((r) => r.id)).where({ companyId }).select('ticketId', 'tagId'),
  ]);
  const tagIds = [...new Set((tagLinks as { tagId: number }[]).map((l) => l.tagId))];
  const tags = tagIds.length ? await shown.tags.getMany(companyId, tagIds) : [];
  const tagById = new Map(tags.map((t) => [t.id, { id: t.id, name: t.name, color: t.color }]));
  const contactById = new Map(contacts.map((c) => [c.id, c]));
  const userById = new Map(users.map((u) => [u.id, { id: u.id, name: u.name }]));
  const queueById = new Map(queues.filter(Boolean).map((q) => [q!.id, { id: q!.id, name: q!.name, color: q!.color }]));
  const connById = new Map(connections.map((c) => [c.id, { id: c.id, name: c.name, channel: c.channel, groupAsTicket: c.groupAsTicket }]));
  const tagsByTicket = new Map<number, { id: number; name: string; color: string }[]>();
  for (const l of tagLinks as { ticketId: number; tagId: number }[]) {
    const tag = tagById.get(l.tagId);
    if (!tag) continue;
    const list = tagsByTicket.get(l.ticketId) ?? [];
    list.push(tag);
    tagsByTicket.set(l.ticketId, list);
  }
  return rows.map((r) => {
    const c = contactById.get(r.contactId);
    const contact = c
      ? {
          ...c,
          number: opts.maskNumbers ? deps.contacts.maskNumber(c.number, c.isGroup) : c.number,
          // A Facebook/Instagram contact named by its id (no profile name) is masked like the number.
          ...(opts.maskNumbers && c.name === c.number ? { name: deps.contacts.maskNumber(c.number, c.isGroup) } : {}),
          tags: contactTags.get(c.id) ?? [],
        }
      : null;
    return {
      ...wireTicketRow(r),
      contact,
      queue: r.queueId !== null ? (queueById.get(r.queueId) ?? null) : null,
      user: r.userId !== null ? (userById.get(r.userId) ?? null) : null,
      tags: tagsByTicket.get(r.id) ?? [],
      whatsapp: r.whatsappId !== null ? (connById.get(r.whatsappId) ?? null) : null,
    };
  });
}

/** True when the company hides numbers from attendants (lgpdHideNumber) and `profile` is 'user'. */
export async function shouldMask(deps: TicketsDeps, companyId: number, profile: string, isSuper: boolean): Promise<boolean> {
  if (isSuper || profile !== 'user') return false;
  return (await deps.identity.getCompanySetting(companyId, 'lgpdHideNumber')) === 'enabled';
}

/**
 * Emits `company-{id}-ticket` {action:'update', ticket} (after commit) to the audiences that may see the
 * ticket now, and to those that saw it before (`previous`), so their lists drop it. Socket payloads
 * follow the lgpdHideNumber rule for everyone when it is enabled. `known` is the row's socket payload when
 * the caller built it already (`socketTicketOf`).
 */
export async function emitTicketUpdate(deps: TicketsDeps, ticket: TicketRow, previous?: TicketBefore, known?: Ticket): Promise<Ticket> {
  // `known`: the caller serialized this very row for sockets already (socketTicket).
  const serialized = known ?? (await socketTicketOf(deps, ticket));
  pushTicketUpdate(deps, ticket, serialized, previous);
  return serialized;
}

/** What emits need of a ticket's row before a change (its status: the old status room gets a `delete`). */
export type TicketBefore = Pick<TicketRow, 'isGroup' | 'queueId' | 'userId'> & { status?: TicketRow['status'] };

/**
 * The product family's rooms of a ticket's events (wire-shapes §5): its id, its status and 'notification'
 * (`company-{id}-ticket` and appMessage create); `idOnly` for message updates (the ticket id room only).
 */
export function ticketRooms(t: Pick<TicketRow, 'id' | 'status'>, idOnly = false): string[] {
  return idOnly ? [String(t.id)] : [String(t.id), t.status, 'notification'];
}

/**
 * Pushes `company-{id}-ticket` {action:'update', ticket: wire} to the audiences that see the ticket now and
 * those that saw it before (`previous`); when its status changed, first `{action:'delete', ticketId}` to the
 * old status room (sockets of the product family that joined it: its list drops the row; wire-shapes §5).
 */
export function pushTicketUpdate(deps: TicketsDeps, ticket: TicketRow, wire: Ticket | undefined, previous?: TicketBefore): void {
  const event = companyEvent(ticket.companyId, 'ticket');
  const audiences = new Set(ticketAudiences(ticket));
  if (previous) for (const a of ticketAudiences(previous)) audiences.add(a);
  if (previous?.status && previous.status !== ticket.status) {
    deps.realtime.emitToCompany(ticket.companyId, event, { action: 'delete', ticketId: ticket.id }, { audiences: [...audiences], rooms: [previous.status], roomsOnly: true });
  }
  deps.realtime.emitToCompany(ticket.companyId, event, { action: 'update', ticket: wire, ticketId: ticket.id }, { audiences: [...audiences], rooms: ticketRooms(ticket) });
}

/**
 * The ticket as socket payloads show it (numbers masked for everyone when lgpdHideNumber is enabled);
 * `known.contacts`: its contact when the caller read it already.
 */
export async function socketTicketOf(
  deps: TicketsDeps,
  ticket: TicketRow,
  known?: { contacts?: Contact[]; contactTags?: ReadonlyMap<number, ContactTagRef[]>; ticketTags?: ReadonlyMap<number, readonly number[]> },
): Promise<Ticket> {
  const mask = (await deps.identity.getCompanySetting(ticket.companyId, 'lgpdHideNumber')) === 'enabled';
  const [serialized] = await serializeTickets(deps, ticket.companyId, [ticket], { maskNumbers: mask, known });
  return serialized;
}

/** Emits `company-{id}-ticket` {action:'delete', ticketId} to the ticket's audiences. */
export function emitTicketDelete(deps: TicketsDeps, ticket: TicketRow): void {
  deps.realtime.emitToCompany(ticket.companyId, companyEvent(ticket.companyId, 'ticket'), { action: 'delete', ticketId: ticket.id }, { audiences: ticketAudiences(ticket), rooms: ticketRooms(ticket) });
}

/** Emits `company-{id}-ticket` {action:'updateUnread', ticketId} to the ticket's audiences. */
export function emitTicketUnread(deps: TicketsDeps, ticket: TicketRow): void {
  deps.realtime.emitToCompany(ticket.companyId, companyEvent(ticket.companyId, 'ticket'), { action: 'updateUnread', ticketId: ticket.id }, { audiences: ticketAudiences(ticket), rooms: ticketRooms(ticket) });
}

/** The partial unique index that keeps one active ticket per (company, contact, connection). */
export const UNIQUE_ACTIVE = 'tickets_one_active_per_contact';

/** True for the unique violation of UNIQUE_ACTIVE (another request opened the pair's ticket first). */
export function isUniqueActiveViolation(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === UNIQUE_ACTIVE;
}

/**
 * Inside `trx`, opens a ticket of `contact` on `connection` assigned to `userId` (the rule shared by
 * POST /tickets and POST /message/forward; callers have checked there is no active ticket of the pair):
 * status open (group for group contacts), acceptedAt now, bot off, unread 0. A closed ticket of the pair
 * updated less than the connection's `timeCreateNewTicket` minutes ago is reopened (row-locked; logs
 * 'reopen' + 'open'; its queue: `queueOnReopen(previous queue)`), else a new one is inserted with `queueId`
 * (logs 'create' + 'open'). Returns the ticket and, when reopened, the closed row it was.
 * Throws the database's unique violation (see isUniqueActiveViolation) when another transaction opened the
 * pair's ticket meanwhile.
 */
export async function openTicket(
  trx: Knex.Transaction,
  o: {
    companyId: number;
    userId: number;
    contact: Pick<Contact, 'id' | 'isGroup'>;
    connection: { id: number; channel: string; timeCreateNewTicket?: number | null };
    queueId: number | null;
    queueOnReopen: (previous: number | null) => number | null;
  },
): Promise<{ ticket: TicketRow; reopened?: TicketRow }> {
  const { companyId, contact, connection } = o;
  const now = new Date();
  const fields = { status: (contact.isGroup ? 'group' : 'open') as TicketStatus, userId: o.userId, acceptedAt: now, isBot: false, closedAt: null, unreadMessages: 0, amountUsedBotQueues: 0, updatedAt: now };
  const minutes = Number(connection.timeCreateNewTicket ?? 0);
  const reuse =
    minutes > 0
      ? ((await trx('tickets')
          .where({ companyId, contactId: contact.id, whatsappId: connection.id, status: 'closed' })
          .where('updatedAt', '>', new Date(now.getTime() - minutes * 60_000))
          .orderBy('updatedAt', 'desc')
          .forNoKeyUpdate()
          .first()) as TicketRow | undefined)
      : undefined;
  let t: TicketRow;
  if (reuse) {
    [t] = (await trx('tickets').where({ id: reuse.id, companyId }).update({ ...fields, queueId: o.queueOnReopen(reuse.queueId) }).returning('*')) as TicketRow[];
    await logTicket(trx, t, 'reopen', o.userId, t.queueId);
  } else {
    [t] = (await trx('tickets')
      .insert({ ...fields, uuid: randomUUID(), companyId, contactId: contact.id, whatsappId: connection.id, queueId: o.queueId, isGroup: contact.isGroup, channel: connection.channel, fromMe: true })
      .returning('*')) as TicketRow[];
    await logTicket(trx, t, 'create', o.userId, t.queueId);
  }
  await logTicket(trx, t, 'open', o.userId, t.queueId);
  return { ticket: t, reopened: reuse };
}

// ---------------------------------------------------------------------------------------------------
// Bus payloads (contract.ts)

/** The `ticket.created` / `ticket.updated` / `ticket.transferred` payload of a ticket (`extra`: the transfer's `from*`). */
export function ticketBusEvent(t: TicketRow, extra: Partial<TicketBusEvent> = {}): TicketBusEvent {
  return { companyId: t.companyId, ticketId: t.id, status: t.status, queueId: t.queueId, userId: t.userId, ...extra };
}

/** The `ticket.closed` payload of a closed ticket. */
export function ticketClosedEvent(t: TicketRow, by: TicketActor, extra: Partial<TicketBusEvent> = {}): TicketClosedEvent {
  return { ...ticketBusEvent(t, extra), contactId: t.contactId, connectionId: t.whatsappId, closedBy: by };
}

/** The `ticket.changed` payload of a write from `before` to `after`, or undefined when status, queue and user are unchanged. */
export function ticketChangedEvent(before: Pick<TicketRow, 'status' | 'queueId' | 'userId'>, after: TicketRow, by: TicketActor): TicketChangedEvent | undefined {
  const changed = (['status', 'queueId', 'userId'] as const).filter((k) => before[k] !== after[k]);
  if (!changed.length) return undefined;
  const state = (t: Pick<TicketRow, 'status' | 'queueId' | 'userId'>): TicketState => ({ status: t.status, queueId: t.queueId, userId: t.userId });
  return { companyId: after.companyId, ticketId: after.id, contactId: after.contactId, connectionId: after.whatsappId, before: state(before), after: state(after), changed, by };
}

/** The ticket as bus payloads and conversation handlers see it. */
export function ticketSnapshot(t: TicketRow): TicketSnapshot {
  return {
    id: t.id,
    uuid: t.uuid,
    status: t.status,
    queueId: t.queueId,
    userId: t.userId,
    contactId: t.contactId,
    connectionId: t.whatsappId,
    channel: t.channel,
    isGroup: t.isGroup,
    isBot: t.isBot,
    amountUsedBotQueues: t.amountUsedBotQueues,
    isOutOfHour: t.isOutOfHour,
    useIntegration: t.useIntegration,
    integrationId: t.integrationId,
    promptId: t.promptId,
    unreadMessages: t.unreadMessages,
  };
}
