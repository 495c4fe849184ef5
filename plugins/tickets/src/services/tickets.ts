import type { Knex } from 'knex';
import type { Ticket } from '@atendo/sdk/wire';
import { AppError, messageVariables, type AuditRequestLike, type AuthUser, type PublicUser } from '@atendo/sdk';
import type { Connection } from '@atendo/plugin-connections/contract';
import type { Contact } from '@atendo/plugin-contacts/contract';
import { CONVERSATION_STATUSES, type TicketRow, type TicketStatus, type Viewer } from '../model';
import { applyVisibility, canSee, isAdmin } from '../visibility';
import { guardTicket } from './guard';
import { emitTicketDelete, emitTicketUpdate, getTicketOr404, isUniqueActiveViolation, loadViewer, logTicket, openTicket, serializeTickets, shouldMask, ticketBusEvent, ticketChangedEvent, ticketClosedEvent, ticketSnapshot } from './core';
import { ticketChanged, ticketClosed, ticketCreated, ticketDeleted, ticketTransferred, ticketUpdated, type TicketActor, type TicketBusEvent } from '../contract';
import { announceOutboundMessage, GREETING_MARKER, insertOutboundMessage, type StoredOutbound } from './messages';
import type { TicketsDeps } from './deps';
import type { CloseAllBody, CreateTicketBody, UpdateTicketBody } from '../schemas/tickets';

/**
 * The ticket state machine (spec 2-tickets.md §4): creating a ticket (POST /tickets), every status
 * transition of PUT /tickets/:id, delete, close-all and showing one ticket (with its access log entry).
 *
 * Rules every write follows: one transaction that locks the ticket row (`getTicketOr404(trx, ..., true)`)
 * and writes the ticket-log entries; the one-active-ticket-per-contact-and-connection rule is enforced by
 * the partial unique index `tickets_one_active_per_contact` (a 23505 on it is mapped to the spec's answer);
 * real-time events, bus events and automatic outbound messages go out only after commit.
 */

/** The `ticket.*` topics this module publishes after commit (contract.ts). */
export const TICKET_TOPICS = { created: ticketCreated, updated: ticketUpdated, transferred: ticketTransferred, closed: ticketClosed } as const;
export type { TicketBusEvent } from '../contract';
type TicketEventTopic = (typeof TICKET_TOPICS)[keyof typeof TICKET_TOPICS];

/** Default automatic texts (spec: greeting on accept; wire: transfer message). */
export const DEFAULT_GREETING_ACCEPTED = 'Olá {{firstName}}, meu nome é {{userName}} e agora vou prosseguir com seu atendimento!';
export const DEFAULT_TRANSFER_MESSAGE = 'Você foi transferido para o departamento {{queue}}';

const CLOSE_ALL_BATCH = 200;
const ACCESS_LOG_MINUTES = 5;

/** The conversation ticket (open, pending, group, lgpd or nps: CONVERSATION_STATUSES) of (contact, connection), read with `db` (a transaction or the pool). */
export async function findActive(db: Knex | Knex.Transaction, companyId: number, contactId: number, whatsappId: number | null): Promise<TicketRow | undefined> {
  const q = db('tickets').where({ companyId, contactId }).whereIn('status', CONVERSATION_STATUSES);
  if (whatsappId === null) q.whereNull('whatsappId');
  else q.where({ whatsappId });
  return (await q.orderBy('id', 'desc').first()) as TicketRow | undefined;
}

/** The status an assigned ticket takes: 'group' for group tickets, else 'open'. */
export function assignedStatus(t: Pick<TicketRow, 'isGroup'>): TicketStatus {
  return t.isGroup ? 'group' : 'open';
}

/**
 * Fills the variables of an automatic text that this transition decides (SDK `messageVariables`: `{{name}}`
 * the contact's full name, `{{firstName}}`, `{{fullName}}`, `{{userName}}`/`{{user}}` the given agent, and
 * `{{queue}}` when given); the others (`{{ms}}`, `{{date}}`, `{{protocol}}`, ...) are left for
 * `insertOutboundMessage`, which fills every outgoing text.
 */
export function fillTemplate(text: string, vars: { contactName?: string | null; user?: string | null; queue?: string | null }): string {
  const given = messageVariables({ contactName: vars.contactName, userName: vars.user, queueName: vars.queue });
  const keys = new Set(['name', 'firstname', 'fullname', 'user', 'username', ...(vars.queue ? ['queue'] : [])]);
  return text.replace(/\{\{\s*([A-Za-z_]+)\s*\}\}/g, (m, key: string) => {
    const k = key.toLowerCase();
    if (!keys.has(k)) return m;
    return Object.entries(given).find(([name]) => name.toLowerCase() === k)?.[1] ?? m;
  });
}

// ---------------------------------------------------------------------------------------------------
// Effects after commit

/**
 * The effects of a ticket write. Its events (`ticket.*`, and `ticket.changed` for each ticket whose status, queue
 * or user changed) are written into the transaction's outbox by `run` (they leave with the commit, and never
 * without it); after the commit, `flush` pushes the socket updates and the automatic messages stored in it (their
 * own events left with the transaction too). `by` is who wrote.
 */
export class AfterCommit {
  readonly updates: { ticket: TicketRow; previous?: TicketRow }[] = [];
  readonly events: { topic: string; publish: (deps: TicketsDeps, trx: Knex.Transaction) => Promise<void> }[] = [];
  /** Automatic messages stored in the transaction, pushed after commit. */
  readonly messages: StoredOutbound[] = [];

  constructor(readonly by: TicketActor) {}

  /** The ticket after a write; `previous`: its row before (absent for new tickets). */
  update(ticket: TicketRow, previous?: TicketRow): void {
    this.updates.push({ ticket, previous });
  }

  /** Queues a `ticket.*` event of `t` (`ticket.closed` carries who closed it); written by `run` before the commit. */
  event(topic: TicketEventTopic, t: TicketRow, extra: Partial<TicketBusEvent> = {}): void {
    if (topic === ticketClosed) {
      const payload = ticketClosedEvent(t, this.by, extra);
      this.events.push({ topic: topic.name, publish: (deps, trx) => deps.bus.publish(ticketClosed, payload, { trx }) });
    } else {
      const payload = ticketBusEvent(t, extra);
      this.events.push({ topic: topic.name, publish: (deps, trx) => deps.bus.publish(topic, payload, { trx }) });
    }
  }

  /**
   * Runs `body` in a transaction and, before it commits, writes the events queued meanwhile into its outbox
   * (`ticket.*` in order, then `ticket.changed` per ticket against its first previous state).
   */
  run<T>(deps: TicketsDeps, body: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return deps.db.transaction(async (trx) => {
      const result = await body(trx);
      for (const e of this.events) await e.publish(deps, trx);
      for (const u of this.lastStates().values()) {
        const change = u.previous ? ticketChangedEvent(u.previous, u.ticket, this.by) : undefined;
        if (change) await deps.bus.publish(ticketChanged, change, { trx });
      }
      return result;
    });
  }

  /** Only the last state of each ticket (a transition may update a ticket twice), against its first previous state. */
  private lastStates(): Map<number, { ticket: TicketRow; previous?: TicketRow }> {
    const last = new Map<number, { ticket: TicketRow; previous?: TicketRow }>();
    for (const u of this.updates) last.set(u.ticket.id, { ticket: u.ticket, previous: last.get(u.ticket.id)?.previous ?? u.previous });
    return last;
  }

  /** After commit: the socket pushes; failures are logged, never thrown (the write is committed, its events too). */
  async flush(deps: TicketsDeps): Promise<void> {
    const safe = async (what: string, fn: () => unknown) => {
      try {
        await fn();
      } catch (err) {
        deps.log.error({ err }, `tickets: ${what} after commit failed`);
      }
    };
    for (const m of this.messages) await safe('automatic message', () => announceOutboundMessage(deps, m, { emitTicket: false }));
    for (const u of this.lastStates().values()) await safe('ticket emit', () => emitTicketUpdate(deps, u.ticket, u.previous));
  }
}

/**
 * Stores an automatic outbound text message (greeting, transfer, farewell) for `ticket` inside `trx`
 * through the messages service (from_me, ack 0; the ticket's `lastMessage` follows), and queues its
 * announcement (`appMessage` push, `message.stored` and the `message.send` command) for after commit.
 * Returns the ticket row after the write.
 */
async function postAutomaticMessage(deps: TicketsDeps, trx: Knex.Transaction, fx: AfterCommit, ticket: TicketRow, body: string, userId: number | null, reason: string, dataJson?: string): Promise<TicketRow> {
  const stored = await insertOutboundMessage(trx, { ticket, body, userId, automatic: true, dataJson, by: { kind: 'system', reason } }, deps);
  fx.messages.push(stored);
  return stored.ticket;
}

// ---------------------------------------------------------------------------------------------------
// Reading

/**
 * The serialized ticket for `auth` (contact numbers masked per lgpdHideNumber for plain users), as the
 * single-ticket answers show it (wire `GET /tickets/u/:uuid`, `PUT /tickets/:id`): also `contact.extraInfo`
 * [{id, name, value}], `company` {id, name} and `queueIntegration` (null: no integrations plugin).
 */
export async function answerTicket(deps: TicketsDeps, auth: AuthUser, t: TicketRow): Promise<Ticket> {
  const mask = await shouldMask(deps, auth.companyId, auth.profile, auth.super);
  const [[out], details, company] = await Promise.all([
    serializeTickets(deps, auth.companyId, [t], { maskNumbers: mask }),
    deps.contacts.get(auth.companyId, t.contactId),
    deps.identity.getCompany(auth.companyId),
  ]);
  return {
    ...out,
    contact: out.contact ? { ...out.contact, extraInfo: details?.extraInfo ?? [] } : null,
    company: company ? { id: company.id, name: company.name } : null,
    queueIntegration: null,
  };
}

/**
 * One ticket by id or uuid for `auth`: 404 ERR_NO_TICKET_FOUND outside the company, 403 ERR_NO_PERMISSION
 * when the caller cannot see it. With `logAccess`, writes an 'access' log entry (at most one per user and
 * ticket every 5 minutes).
 */
export async function showTicket(deps: TicketsDeps, auth: AuthUser, key: { id: number } | { uuid: string }, opts: { logAccess?: boolean } = {}): Promise<TicketRow> {
  const { ticket: t } = await guardTicket(deps, auth, 'id' in key ? key.id : { uuid: key.uuid });
  if (opts.logAccess) {
    const recent = await deps.db('ticketLogs')
      .where({ ticketId: t.id, userId: auth.id, type: 'access' })
      .where('createdAt', '>', deps.db.raw(`now() - interval '${ACCESS_LOG_MINUTES} minutes'`))
      .first('id');
    if (!recent) await logTicket(deps.db, t, 'access', auth.id, t.queueId);
  }
  return t;
}

/** 404 ERR_NO_QUEUE_FOUND unless `queueId` is a queue of the company; returns it. */
export async function requireQueue(deps: TicketsDeps, companyId: number, queueId: number) {
  const q = await deps.queues.getQueue(companyId, queueId);
  if (!q) throw new AppError('ERR_NO_QUEUE_FOUND');
  return q;
}

/**
 * Whether a ticket of the company must have a department to be served: only when the company has queues
 * to choose from. A company fresh from sign-up has none, and its tickets are accepted, reopened and opened
 * without one (the UI's queue step likewise appears only where there are queues).
 */
export async function companyNeedsQueue(deps: TicketsDeps, companyId: number): Promise<boolean> {
  return (await deps.queues.listQueues(companyId)).length > 0;
}

/** The owner facts of an active ticket, as the ERR_OTHER_OPEN_TICKET answer carries them. */
async function ownerFacts(deps: TicketsDeps, t: TicketRow): Promise<Record<string, unknown>> {
  const [user, queue] = await Promise.all([
    t.userId !== null ? deps.identity.getUser(t.companyId, t.userId) : Promise.resolve(undefined),
    t.queueId !== null ? deps.queues.getQueue(t.companyId, t.queueId) : Promise.resolve(undefined),
  ]);
  const facts = {
    ticketId: t.id,
    uuid: t.uuid,
    status: t.status,
    userId: t.userId,
    queueId: t.queueId,
    user: user ? { id: user.id, name: user.name } : null,
    queue: queue ? { id: queue.id, name: queue.name, color: queue.color } : null,
  };
  return { ...facts, ticket: { id: t.id, ...facts } };
}

export async function otherOpenTicketError(deps: TicketsDeps, t: TicketRow): Promise<AppError> {
  return new AppError('ERR_OTHER_OPEN_TICKET', undefined, { extra: await ownerFacts(deps, t) });
}

// ---------------------------------------------------------------------------------------------------
// Create

/**
 * POST /tickets: opens a ticket for `contactId`, assigned to the caller (status 'group' for group contacts,
 * else 'open'; acceptedAt now; isBot false). Connection: `body.whatsappId` (404 ERR_NO_WAPP_FOUND), else the
 * caller's `whatsappId`, else the company's default for the contact's channel (404 ERR_NO_DEF_WAPP_FOUND).
 * Queue: required unless the caller is admin or the company has no queue (400 ERR_VALIDATION 'Selecione uma fila'); must be the
 * company's (404 ERR_NO_QUEUE_FOUND); a plain user only in one of their queues (403 ERR_NO_PERMISSION).
 * An active ticket of the contact on that connection -> 409 ERR_OTHER_OPEN_TICKET with its owner facts
 * (race-safe through the unique index). A closed ticket of the same contact and connection updated less than
 * `timeCreateNewTicket` minutes ago is reopened instead of creating one. Logs 'create' (or 'reopen') + 'open'.
 */
export async function createTicket(deps: TicketsDeps, auth: AuthUser, body: CreateTicketBody): Promise<TicketRow> {
  const companyId = auth.companyId;
  const caller = await deps.identity.getUser(companyId, auth.id);
  if (!caller) throw new AppError('ERR_NO_PERMISSION');
  const contact = await deps.contacts.get(companyId, body.contactId);
  if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND');

  let connection: Connection | undefined;
  if (body.whatsappId != null) {
    connection = await deps.connections.get(companyId, body.whatsappId);
    if (!connection) throw new AppError('ERR_NO_WAPP_FOUND');
  } else {
    if (caller.whatsappId != null) connection = await deps.connections.get(companyId, caller.whatsappId);
    if (!connection) connection = await deps.connections.getDefault(companyId, contact.channel);
    if (!connection) throw new AppError('ERR_NO_DEF_WAPP_FOUND');
  }

  const queueId = body.queueId ?? null;
  if (queueId === null) {
    if (!isAdmin(auth) && (await companyNeedsQueue(deps, companyId))) throw new AppError('ERR_VALIDATION', 'Selecione uma fila');
  } else {
    await requireQueue(deps, companyId, queueId);
    if (!auth.super && String(caller.profile).toLowerCase() === 'user') {
      const mine = await deps.queues.listQueueIds(companyId, auth.id);
      if (!mine.includes(queueId)) throw new AppError('ERR_NO_PERMISSION', 'You can only open tickets in your queues');
    }
  }

  const conn = connection;
  for (let attempt = 0; ; attempt++) {
    const fx = new AfterCommit({ kind: 'user', userId: auth.id });
    try {
      const ticket = await fx.run(deps, async (trx) => {
        const active = await findActive(trx, companyId, contact.id, conn.id);
        if (active) throw await otherOpenTicketError(deps, active);
        const { ticket: t, reopened: reuse } = await openTicket(trx, { companyId, userId: auth.id, contact, connection: conn, queueId, queueOnReopen: (previous) => queueId ?? previous });
        fx.update(t, reuse);
        fx.event(reuse ? TICKET_TOPICS.updated : TICKET_TOPICS.created, t);
        return t;
      });
      await fx.flush(deps);
      return ticket;
    } catch (err) {
      if (!isUniqueActiveViolation(err)) throw err;
      // Another request opened the contact's ticket on this connection first.
      const active = await findActive(deps.db, companyId, contact.id, conn.id);
      if (active) throw await otherOpenTicketError(deps, active);
      if (attempt >= 2) throw new AppError('ERR_CREATING_TICKET');
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Update: the state machine

/** Status groups the transition table is keyed by: open and group tickets are both "assigned". */
type Phase = 'pending' | 'assigned' | 'closed' | 'bot';
const PHASE: Record<TicketStatus, Phase> = { pending: 'pending', open: 'assigned', group: 'assigned', closed: 'closed', nps: 'bot', lgpd: 'bot' };

/** What a PUT does. */
export type TicketAction = 'accept' | 'ignore' | 'return' | 'transferUser' | 'transferQueue' | 'close' | 'reopen' | 'update';

interface Intent {
  t: TicketRow;
  body: UpdateTicketBody;
  viewer: Viewer;
}

const givesUser = (i: Intent) => i.body.userId !== undefined && i.body.userId !== null;
const changesQueue = (i: Intent) => i.body.queueId !== undefined && i.body.queueId !== i.t.queueId;

/**
 * The transition table: `<from phase>><to phase>` -> the guard that picks the action from the body.
 * A pair that is not listed answers 400 ERR_INVALID_TRANSITION.
 * - pending -> open/group: accept (userId absent or the caller) or transfer to another user;
 * - pending -> pending: transfer to a user or to a department, else nothing;
 * - pending -> closed: ignore (sendFarewellMessage false: no farewell, bot count 0) or close;
 * - open/group -> open/group: take an unassigned group ticket (accept), transfer to a user (or to a
 *   department when userId is null), else nothing;
 * - open/group -> pending: transfer to a department (queueId changes) or return to the queue;
 * - open/group -> closed: close;  closed -> open/group: reopen;  nps/lgpd -> closed: close.
 */
export const TRANSITIONS: Readonly<Record<string, (i: Intent) => TicketAction>> = {
  'pending>assigned': (i) => (givesUser(i) && i.body.userId !== i.viewer.id ? 'transferUser' : 'accept'),
  'pending>pending': (i) => (givesUser(i) ? 'transferUser' : changesQueue(i) ? 'transferQueue' : 'update'),
  'pending>closed': (i) => (i.body.sendFarewellMessage === false ? 'ignore' : 'close'),
  'assigned>assigned': (i) => {
    if (i.body.userId === null) return 'transferQueue';
    const target = i.body.userId ?? i.t.userId;
    if (i.t.userId === null && target === i.viewer.id && !changesQueue(i)) return 'accept';
    return target !== i.t.userId || changesQueue(i) ? 'transferUser' : 'update';
  },
  'assigned>pending': (i) => (givesUser(i) ? 'transferUser' : changesQueue(i) ? 'transferQueue' : 'return'),
  'assigned>closed': () => 'close',
  'closed>assigned': () => 'reopen',
  'bot>closed': () => 'close',
};

/** Picks the action of a PUT body on ticket `t` (see TRANSITIONS); 400 ERR_INVALID_TRANSITION otherwise. */
export function resolveAction(t: TicketRow, body: UpdateTicketBody, viewer: Viewer): TicketAction {
  if (body.status === undefined && body.userId === undefined && body.queueId === undefined) return 'update';
  const from = PHASE[t.status] ?? 'bot';
  const to = body.status !== undefined ? PHASE[body.status] : from;
  const guard = TRANSITIONS[`${from}>${to}`];
  if (!guard) throw new AppError('ERR_INVALID_TRANSITION', `A ticket cannot go from ${t.status} to ${body.status ?? t.status}`);
  return guard({ t, body, viewer });
}

/** Everything a transition handler needs. */
interface Transition {
  deps: TicketsDeps;
  trx: Knex.Transaction;
  t: TicketRow;
  body: UpdateTicketBody;
  viewer: Viewer;
  caller: PublicUser;
  fx: AfterCommit;
}

/** The plain fields a PUT may set with or without a transition. */
function plainFields(body: UpdateTicketBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['promptId', 'useIntegration', 'integrationId', 'isBot', 'amountUsedBotQueues'] as const) if (body[k] !== undefined) out[k] = body[k];
  return out;
}

async function save(x: Transition, fields: Record<string, unknown>): Promise<TicketRow> {
  const [row] = await x.trx('tickets').where({ id: x.t.id, companyId: x.t.companyId }).update({ ...plainFields(x.body), ...fields, updatedAt: x.trx.fn.now() }).returning('*');
  return row as TicketRow;
}

/** The contact and connection of a ticket, for automatic messages (undefined when either is gone). */
async function sendTarget(x: Transition, t: TicketRow): Promise<{ contact: Contact; connection: Connection } | undefined> {
  if (t.whatsappId === null) return undefined;
  const [contact, connection] = await Promise.all([x.deps.contacts.get(t.companyId, t.contactId), x.deps.connections.get(t.companyId, t.whatsappId)]);
  return contact && connection ? { contact, connection } : undefined;
}

/** True when automatic messages may go to this ticket: not a group, or a connection treating groups as tickets. */
const autoAllowed = (t: TicketRow, connection: Connection) => !t.isGroup || connection.groupAsTicket === 'enabled';

/** The queue id a body asks for (must exist when not null); undefined when absent. */
async function bodyQueue(x: Transition): Promise<{ id: number; name: string } | null | undefined> {
  if (x.body.queueId === undefined) return undefined;
  if (x.body.queueId === null) return null;
  return requireQueue(x.deps, x.t.companyId, x.body.queueId);
}

const HANDLERS: Record<TicketAction, (x: Transition) => Promise<TicketRow>> = {
  /** pending (or an unassigned group ticket) -> open/group, assigned to the caller; optional greeting. */
  async accept(x) {
    const q = await bodyQueue(x);
    const queueId = q ? q.id : x.t.queueId;
    // Group tickets are served by group-allowed users whatever their queue: they need none.
    if (queueId === null && !x.t.isGroup && (await companyNeedsQueue(x.deps, x.t.companyId))) throw new AppError('ERR_VALIDATION', 'queue required');
    let t = await save(x, { status: assignedStatus(x.t), userId: x.viewer.id, queueId, acceptedAt: x.trx.fn.now(), isBot: x.body.isBot ?? false });
    if (queueId !== x.t.queueId) await logTicket(x.trx, t, 'queue', x.viewer.id, queueId);
    await logTicket(x.trx, t, 'open', x.viewer.id, queueId);
    if (x.t.status === 'pending' && (await x.deps.identity.getCompanySetting(t.companyId, 'sendGreetingAccepted')) === 'enabled') {
      const target = await sendTarget(x, t);
      if (target && autoAllowed(t, target.connection)) {
        const template = (await x.deps.identity.getCompanySetting(t.companyId, 'greetingAcceptedMessage')).trim() || DEFAULT_GREETING_ACCEPTED;
        const text = fillTemplate(template, { contactName: target.contact.name, user: x.caller.name, queue: q?.name });
        t = await postAutomaticMessage(x.deps, x.trx, x.fx, t, text, x.viewer.id, 'greeting', GREETING_MARKER);
      }
    }
    x.fx.update(t, x.t);
    x.fx.event(TICKET_TOPICS.updated, t);
    return t;
  },

  /** pending -> closed with no farewell and the bot-use count reset. */
  async ignore(x) {
    const t = await save(x, { status: 'closed', closedAt: x.trx.fn.now(), unreadMessages: 0, amountUsedBotQueues: 0 });
    await logTicket(x.trx, t, 'closed', x.viewer.id, t.queueId, { ignored: true });
    x.fx.update(t, x.t);
    x.fx.event(TICKET_TOPICS.closed, t);
    return t;
  },

  /** open/group -> pending, no user, same queue. */
  async return(x) {
    const t = await save(x, { status: 'pending', userId: null });
    await logTicket(x.trx, t, 'pending', x.viewer.id, t.queueId);
    x.fx.update(t, x.t);
    x.fx.event(TICKET_TOPICS.updated, t);
    return t;
  },

  /** To a user (404 ERR_NO_USER_FOUND unless of the company): status open/group, queue = body's or kept. */
  async transferUser(x) {
    const targetId = x.body.userId ?? x.t.userId;
    const target = targetId !== null ? await x.deps.identity.getUser(x.t.companyId, targetId) : undefined;
    if (!target) throw new AppError('ERR_NO_USER_FOUND');
    const q = await bodyQueue(x);
    const queueId = q === undefined ? x.t.queueId : q === null ? null : q.id;
    const t = await save(x, { status: assignedStatus(x.t), userId: target.id, queueId, ...(x.t.status === 'pending' ? { acceptedAt: x.trx.fn.now() } : {}) });
    return finishTransfer(x, t, q ?? undefined, target);
  },

  /** To a department only: status pending, no user; a department is required (400 'queue required'). */
  async transferQueue(x) {
    const q = await bodyQueue(x);
    const queueId = q === undefined ? x.t.queueId : q === null ? null : q.id;
    if (queueId === null) throw new AppError('ERR_VALIDATION', 'queue required');
    const t = await save(x, { status: 'pending', userId: null, queueId });
    return finishTransfer(x, t, q ?? undefined, undefined);
  },

  /** open/group/pending/nps/lgpd -> closed; farewell unless refused or a group; requiredTag check. */
  async close(x) {
    if ((await x.deps.identity.getCompanySetting(x.t.companyId, 'requiredTag')) === 'enabled') {
      const tagged = await x.trx('ticketTags').where({ ticketId: x.t.id, companyId: x.t.companyId }).first('tagId');
      if (!tagged && !(await x.deps.contacts.hasTags(x.t.companyId, x.t.contactId))) {
        throw new AppError('ERR_REQUIRED_TAG', 'Add a tag to the contact or the ticket before closing it');
      }
    }
    // A conversation handler may keep it for a rating (NPS): status nps, no farewell (contract `onClosing`).
    if (x.body.sendFarewellMessage !== false && !x.t.isGroup && (x.t.status === 'open' || x.t.status === 'group')) {
      for (const h of x.deps.handlers?.() ?? []) {
        if (!h.onClosing || (await h.onClosing(x.t.companyId, ticketSnapshot(x.t))) !== 'rating') continue;
        const rated = await save(x, { status: 'nps' });
        await logTicket(x.trx, rated, 'closed', x.viewer.id, rated.queueId, { rating: h.id });
        x.fx.update(rated, x.t);
        x.fx.event(TICKET_TOPICS.updated, rated);
        return rated;
      }
    }
    let t = await save(x, { status: 'closed', closedAt: x.trx.fn.now(), unreadMessages: 0 });
    await logTicket(x.trx, t, 'closed', x.viewer.id, t.queueId);
    // A waiting (pending) ticket gets the farewell only with the setting sendFarewellWaitingTicket.
    const farewellAllowed = x.t.status !== 'pending' || (await x.deps.identity.getCompanySetting(t.companyId, 'sendFarewellWaitingTicket')) === 'enabled';
    if (x.body.sendFarewellMessage !== false && !t.isGroup && farewellAllowed) {
      const target = await sendTarget(x, t);
      const text = (x.caller.farewellMessage ?? '').trim() || (target?.connection.complationMessage ?? '').trim();
      if (target && text) {
        const agent = t.userId !== null && t.userId !== x.caller.id ? await x.deps.identity.getUser(t.companyId, t.userId) : x.caller;
        t = await postAutomaticMessage(x.deps, x.trx, x.fx, t, fillTemplate(text, { contactName: target.contact.name, user: agent?.name }), x.viewer.id, 'farewell');
      }
    }
    x.fx.update(t, x.t);
    x.fx.event(TICKET_TOPICS.closed, t);
    return t;
  },

  /**
   * closed -> open/group assigned to the caller (queue from the body or kept; none -> 400 'queue required'
   * when the company has queues).
   * When another active ticket exists for the contact and connection, that ticket is returned unchanged.
   */
  async reopen(x) {
    const q = await bodyQueue(x);
    const queueId = q ? q.id : x.t.queueId;
    if (queueId === null && !x.t.isGroup && (await companyNeedsQueue(x.deps, x.t.companyId))) throw new AppError('ERR_VALIDATION', 'queue required');
    const other = await findActive(x.trx, x.t.companyId, x.t.contactId, x.t.whatsappId);
    if (other) return other;
    let t: TicketRow;
    try {
      t = await x.trx.transaction(async (sp) => {
        const [row] = await sp('tickets')
          .where({ id: x.t.id, companyId: x.t.companyId })
          .update({ ...plainFields(x.body), status: assignedStatus(x.t), userId: x.viewer.id, queueId, closedAt: null, acceptedAt: sp.fn.now(), isBot: x.body.isBot ?? false, updatedAt: sp.fn.now() })
          .returning('*');
        return row as TicketRow;
      });
    } catch (err) {
      if (!isUniqueActiveViolation(err)) throw err;
      const winner = await findActive(x.trx, x.t.companyId, x.t.contactId, x.t.whatsappId);
      if (winner) return winner;
      throw err;
    }
    await logTicket(x.trx, t, 'reopen', x.viewer.id, queueId);
    if (queueId !== x.t.queueId) await logTicket(x.trx, t, 'queue', x.viewer.id, queueId);
    x.fx.update(t, x.t);
    x.fx.event(TICKET_TOPICS.updated, t);
    return t;
  },

  /** promptId/useIntegration/integrationId/isBot/amountUsedBotQueues only (no status change). */
  async update(x) {
    const fields = plainFields(x.body);
    if (!Object.keys(fields).length) return x.t;
    const t = await save(x, {});
    x.fx.update(t, x.t);
    x.fx.event(TICKET_TOPICS.updated, t);
    return t;
  },
};

/** Transfer logs ('transfered' by the caller, 'receivedTransfer' for the target), the optional message and events. */
async function finishTransfer(x: Transition, saved: TicketRow, q: { id: number; name: string } | undefined, target: PublicUser | undefined): Promise<TicketRow> {
  let t = saved;
  await logTicket(x.trx, t, 'transfered', x.viewer.id, x.t.queueId, { fromUserId: x.t.userId, toUserId: t.userId, toQueueId: t.queueId });
  await logTicket(x.trx, t, 'receivedTransfer', target?.id ?? null, t.queueId);
  if ((await x.deps.identity.getCompanySetting(t.companyId, 'sendMsgTransfTicket')) === 'enabled') {
    const dest = await sendTarget(x, t);
    if (dest && autoAllowed(t, dest.connection)) {
      const queue = q ?? (t.queueId !== null ? await x.deps.queues.getQueue(t.companyId, t.queueId) : undefined);
      const template = (await x.deps.identity.getCompanySetting(t.companyId, 'transferMessage')).trim() || DEFAULT_TRANSFER_MESSAGE;
      const text = fillTemplate(template, { contactName: dest.contact.name, user: target?.name ?? '', queue: queue?.name ?? '' });
      t = await postAutomaticMessage(x.deps, x.trx, x.fx, t, text, x.viewer.id, 'transfer');
    }
  }
  x.fx.update(t, x.t);
  x.fx.event(TICKET_TOPICS.transferred, t, { fromQueueId: x.t.queueId, fromUserId: x.t.userId });
  return t;
}

/**
 * PUT /tickets/:id: runs the transition the body asks for (see TRANSITIONS) in one transaction holding the
 * ticket's row lock. 404 ERR_NO_TICKET_FOUND outside the company; 403 ERR_NO_PERMISSION when the caller
 * cannot see the ticket; 400 ERR_INVALID_TRANSITION for a pair not in the table; 400 ERR_VALIDATION 'queue
 * required' (accept/reopen without a queue, in a company that has queues: companyNeedsQueue); 404 ERR_NO_USER_FOUND / ERR_NO_QUEUE_FOUND for unknown targets;
 * 400 ERR_REQUIRED_TAG. Returns the ticket to answer: the updated one, or (reopen conflict) the other
 * active ticket of the contact, unchanged.
 */
export async function updateTicket(deps: TicketsDeps, auth: AuthUser, id: number, body: UpdateTicketBody): Promise<TicketRow> {
  const [viewer, caller] = await Promise.all([loadViewer(deps, auth), deps.identity.getUser(auth.companyId, auth.id)]);
  if (!caller) throw new AppError('ERR_NO_PERMISSION');
  const fx = new AfterCommit({ kind: 'user', userId: auth.id });
  const result = await fx.run(deps, async (trx) => {
    const { ticket: t } = await guardTicket(deps, auth, id, { trx, lock: true, viewer });
    const action = resolveAction(t, body, viewer);
    return HANDLERS[action]({ deps, trx, t, body, viewer, caller, fx });
  });
  await fx.flush(deps);
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Delete and close-all

/**
 * DELETE /tickets/:id (admin): deletes the ticket with its messages, notes, logs and tags (FK cascade),
 * then emits `{action:'delete', ticketId}` and publishes `ticket.deleted` (read models drop it). 404
 * ERR_NO_TICKET_FOUND outside the company.
 */
export async function deleteTicket(deps: TicketsDeps, auth: AuthUser, id: number): Promise<void> {
  const t = await deps.db.transaction(async (trx) => {
    const { ticket: row } = await guardTicket(deps, auth, id, { trx, lock: 'delete' });
    await trx('tickets').where({ id: row.id, companyId: auth.companyId }).del();
    await deps.bus.publish(ticketDeleted, ticketBusEvent(row), { trx });
    return row;
  });
  emitTicketDelete(deps, t);
}

/**
 * POST /tickets/closeAll (admin): closes every active ticket the caller sees with status `body.status`
 * (default open and pending) and, with `body.queueIds`, one of those queues (0 = no queue). Batches of
 * 200 tickets, each in one transaction writing a 'closed' log entry and an audit entry (`close`, issue 34;
 * `req` gives the actor and address) per ticket; events after each batch. No farewell messages. Returns the
 * number closed.
 */
export async function closeAllTickets(deps: TicketsDeps, auth: AuthUser, body: CloseAllBody, req?: AuditRequestLike): Promise<number> {
  const viewer = await loadViewer(deps, auth);
  const statuses: TicketStatus[] = body.status ? [body.status] : ['open', 'pending'];
  const queueIds = body.queueIds ? [...new Set(body.queueIds)] : undefined;
  let lastId = 0;
  let closed = 0;
  for (;;) {
    const fx = new AfterCommit({ kind: 'user', userId: auth.id });
    const count = await fx.run(deps, async (trx) => {
      const q = trx('tickets').whereIn('tickets.status', statuses).where('tickets.id', '>', lastId).orderBy('tickets.id').limit(CLOSE_ALL_BATCH).forNoKeyUpdate();
      applyVisibility(q, viewer);
      if (queueIds) {
        const real = queueIds.filter((x) => x > 0);
        const none = queueIds.includes(0);
        q.where((w) => {
          if (real.length) w.whereIn('tickets.queueId', real);
          else w.whereRaw('false');
          if (none) w.orWhereNull('tickets.queueId');
        });
      }
      const rows = (await q.select('tickets.*')) as TicketRow[];
      if (!rows.length) return 0;
      lastId = rows[rows.length - 1].id;
      const updated = (await trx('tickets')
        .where({ companyId: auth.companyId })
        .whereIn('id', rows.map((r) => r.id))
        .update({ status: 'closed', closedAt: trx.fn.now(), unreadMessages: 0, updatedAt: trx.fn.now() })
        .returning('*')) as TicketRow[];
      await trx('ticketLogs').insert(updated.map((t) => ({ companyId: t.companyId, ticketId: t.id, type: 'closed', userId: auth.id, queueId: t.queueId, data: JSON.stringify({ closeAll: true }) })));
      const before = new Map(rows.map((r) => [r.id, r]));
      for (const t of updated) {
        fx.update(t, before.get(t.id));
        fx.event(TICKET_TOPICS.closed, t);
        const b = before.get(t.id)!;
        await deps.audit?.record(trx, { req: req ?? { auth }, companyId: auth.companyId, entity: 'ticket', entityId: t.id, action: 'close', before: { status: b.status, userId: b.userId, queueId: b.queueId }, after: { status: t.status, userId: t.userId, queueId: t.queueId, closeAll: true } });
      }
      return rows.length;
    });
    if (!count) break;
    closed += count;
    await fx.flush(deps);
    if (count < CLOSE_ALL_BATCH) break;
  }
  return closed;
}
