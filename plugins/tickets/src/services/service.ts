import type { Knex } from 'knex';
import { AppError, BatchLoader, hasMessageVariables } from '@atendo/sdk';
import { ACTIVE_STATUSES, CONVERSATION_STATUSES, TICKET_LOG_TYPES, type MessageRow, type TicketRow, type TicketStatus } from '../model';
import type { SendMediaInput, SendOptions, TicketActor, TicketLogInput, TicketPatch, TicketsService } from '../contract';
import { MESSAGE_MAX } from '../schemas/messages';
import { randomUUID } from 'node:crypto';
import { getTicketOr404, isUniqueActiveViolation, logTicket, openTicket, ticketBusEvent, ticketSnapshot } from './core';
import type { TicketsDeps } from './deps';
import { AfterCommit, findActive, otherOpenTicketError, requireQueue, TICKET_TOPICS } from './tickets';
import { announceOutboundMessage, checkText, insertOutboundMessage, MESSAGE_MEDIA_TYPES, mimeOfPath, resolveQuoted, SENDABLE, storeOutboundAtOnce, type OutboundMedia, type StoredOutbound } from './messages';
import { safeMediaPath } from './inbound/fields';
import { sendToContacts } from './messages/bulk';
import { anonymizeContact, exportForContact, staleContactIds } from './data-subject';
import { mergeContacts, previewContactMerge } from './contact-merge';

/**
 * The `tickets` service other plugins use (contract.ts `TicketsService`): reading tickets, and the writes
 * a conversation handler needs to answer and hand back. Every write goes through the same code as the
 * REST routes: outbound messages through `insertOutboundMessage` + `announceOutboundMessage` (stored
 * fromMe, pushed, `message.stored`, `message.send`, acks from the channel), ticket changes through
 * `AfterCommit` (socket update to the old and new audiences, `ticket.*`, `ticket.changed`).
 */
export function ticketsServiceImpl(deps: TicketsDeps): TicketsService {
  const logs = logWriter(deps);
  return {
    get: (companyId, id) => deps.db('tickets').where({ companyId, id }).first() as Promise<TicketRow | undefined>,
    getMany: async (companyId, ids) => {
      const wanted = [...new Set(ids)].filter((v) => Number.isInteger(v) && v > 0 && v <= 2147483647);
      return wanted.length ? ((await deps.db('tickets').where({ companyId }).whereIn('id', wanted)) as TicketRow[]) : [];
    },
    findActiveForContact: (companyId, contactId, whatsappId) => findActive(deps.db, companyId, contactId, whatsappId),
    snapshot: async (companyId, id) => {
      const t = (await deps.db('tickets').where({ companyId, id }).first()) as TicketRow | undefined;
      return t ? ticketSnapshot(t) : undefined;
    },
    sendText: async (companyId, ticketId, body, opts) => sendOutbound(deps, companyId, ticketId, { body: checkText(body) }, opts ?? {}),
    sendMedia: async (companyId, ticketId, media, opts) => sendOutbound(deps, companyId, ticketId, mediaContent(media), opts ?? {}),
    update: async (companyId, ticketId, patch, by) => updateTicketAs(deps, companyId, ticketId, patch, by ?? { kind: 'system', reason: 'service' }),
    addLog: async (companyId, ticketId, entry) => addLog(logs, companyId, ticketId, entry),
    close: async (companyId, ticketId, by) => updateTicketAs(deps, companyId, ticketId, { status: 'closed' }, by),
    sendToContacts: (companyId, connectionId, inputs, opts) => sendToContacts(deps, companyId, connectionId, inputs, opts),
    listWaiting: async (companyId, queueId, limit) =>
      (await deps.db('tickets')
        .where({ companyId, queueId, status: 'pending' })
        .whereNull('userId')
        .orderBy([{ column: 'createdAt', order: 'asc' }, { column: 'id', order: 'asc' }])
        .limit(Math.max(1, Math.min(1000, Math.floor(limit) || 1)))) as TicketRow[],
    waitingSummary: async (companyId, olderThan) => {
      const q = () => deps.db('tickets').where({ companyId, status: 'pending' }).whereNull('userId').where('createdAt', '<=', olderThan);
      const [{ n }] = (await q().count<{ n: string }[]>({ n: '*' })) as { n: string }[];
      const oldest = Number(n) > 0 ? ((await q().orderBy([{ column: 'createdAt', order: 'asc' }, { column: 'id', order: 'asc' }]).first()) as TicketRow) : null;
      return { count: Number(n), oldest };
    },
    findOrOpen: async (companyId, input) => findOrOpen(deps, companyId, input),
    exportForContact: (companyId, contactId) => exportForContact(deps, companyId, contactId),
    anonymizeContact: (companyId, contactId, trx) => anonymizeContact(deps, companyId, contactId, trx),
    staleContactIds: (companyId, before, afterContactId, limit) => staleContactIds(deps, companyId, before, afterContactId, limit),
    previewContactMerge: (companyId, targetId, sourceIds) => previewContactMerge(deps, companyId, targetId, sourceIds),
    mergeContacts: (companyId, targetId, sourceIds, trx) => mergeContacts(deps, companyId, targetId, sourceIds, trx),
    recentMessages: async (companyId, ticketId, limit) => {
      const rows = (await deps.db('messages')
        .where({ companyId, ticketId, isPrivate: false, isDeleted: false })
        // Storage order (ids): inbound createdAt is the provider's second-precision time.
        .orderBy('id', 'desc')
        .limit(Math.max(1, Math.min(100, Math.floor(limit) || 1)))) as MessageRow[];
      return rows.reverse();
    },
    latestForContact: async (companyId, contactId) =>
      (await deps.db('tickets')
        .where({ companyId, contactId })
        .whereNotNull('whatsappId')
        .orderBy([{ column: 'updatedAt', order: 'desc' }, { column: 'id', order: 'desc' }])
        .first()) as TicketRow | undefined,
    listAfter: async (companyId, afterId, limit) =>
      (await deps.db('tickets')
        .where({ companyId })
        .where('id', '>', Math.max(0, Math.floor(afterId) || 0))
        .orderBy('id', 'asc')
        .limit(Math.max(1, Math.min(1000, Math.floor(limit) || 1)))) as TicketRow[],
  };
}

/** `TicketsService.findOrOpen` (see the contract's docstring). */
async function findOrOpen(deps: TicketsDeps, companyId: number, input: { contactId: number; whatsappId: number; queueId?: number | null; userId?: number | null }): Promise<TicketRow> {
  const contact = await deps.contacts.get(companyId, input.contactId);
  if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND');
  const conn = await deps.connections.get(companyId, input.whatsappId);
  if (!conn) throw new AppError('ERR_NO_WAPP_FOUND');
  const queueId = input.queueId ?? null;
  const userId = input.userId ?? null;
  if (queueId !== null) await requireQueue(deps, companyId, queueId);
  if (userId !== null && !(await deps.identity.getUser(companyId, userId))) throw new AppError('ERR_NO_USER_FOUND');
  for (let attempt = 0; ; attempt++) {
    const active = await findActive(deps.db, companyId, contact.id, conn.id);
    if (active) {
      const patch: TicketPatch = {};
      if (queueId !== null && active.queueId !== queueId) patch.queueId = queueId;
      if (userId !== null && active.userId !== userId) patch.userId = userId;
      if (userId !== null && active.status === 'pending') patch.status = 'open';
      return Object.keys(patch).length ? updateTicketAs(deps, companyId, active.id, patch, { kind: 'system', reason: 'external-api' }) : active;
    }
    const fx = new AfterCommit(userId !== null ? { kind: 'user', userId } : { kind: 'system', reason: 'external-api' });
    try {
      const ticket = await fx.run(deps, async (trx) => {
        if (userId !== null) {
          const { ticket: t, reopened } = await openTicket(trx, { companyId, userId, contact, connection: conn, queueId, queueOnReopen: (previous) => queueId ?? previous });
          fx.update(t, reopened);
          fx.event(reopened ? TICKET_TOPICS.updated : TICKET_TOPICS.created, t);
          return t;
        }
        const [t] = (await trx('tickets')
          .insert({ uuid: randomUUID(), companyId, contactId: contact.id, whatsappId: conn.id, queueId, status: contact.isGroup ? 'group' : 'pending', userId: null, isGroup: contact.isGroup, channel: conn.channel, fromMe: true, unreadMessages: 0 })
          .returning('*')) as TicketRow[];
        await logTicket(trx, t, 'create', null, t.queueId);
        fx.update(t);
        fx.event(TICKET_TOPICS.created, t);
        return t;
      });
      await fx.flush(deps);
      return ticket;
    } catch (err) {
      if (!isUniqueActiveViolation(err)) throw err;
      if (attempt >= 2) throw new AppError('ERR_CREATING_TICKET');
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Sending

/** True when `mimeType` is one of MESSAGE_MEDIA_TYPES (exact or `type/*`). */
function mediaAllowed(mimeType: string): boolean {
  return MESSAGE_MEDIA_TYPES.some((a) => (a.endsWith('/*') ? mimeType.startsWith(a.slice(0, -1)) : a === mimeType));
}

/** The body and media of a `sendMedia` call; 400 ERR_VALIDATION (path, caption), 415 ERR_UPLOAD_TYPE. */
function mediaContent(media: SendMediaInput): { body: string; media: OutboundMedia } {
  const path = safeMediaPath(typeof media?.path === 'string' ? media.path : undefined);
  if (!path) throw new AppError('ERR_VALIDATION', 'media.path must be a stored upload path ({area}/{file})');
  const mimeType = mimeOfPath(path);
  if (!mediaAllowed(mimeType)) throw new AppError('ERR_UPLOAD_TYPE', `${mimeType} cannot be sent as a message`);
  const caption = (media.caption ?? '').trim();
  if ([...caption].length > MESSAGE_MAX) throw new AppError('ERR_VALIDATION', `caption must be at most ${MESSAGE_MAX} characters`);
  const fileName = (media.fileName ?? '').replace(/[\x00-\x1f\x7f/\\]/g, ' ').trim().slice(0, 200) || path.split('/').pop()!;
  return { body: caption, media: { path, fileName, mimeType } };
}

/**
 * Stores and announces one outbound message of a service call (see `TicketsService.sendText`): the status
 * rule of `SendOptions.fromBot` is checked under the ticket's row lock.
 */
async function sendOutbound(deps: TicketsDeps, companyId: number, ticketId: number, content: { body: string; media?: OutboundMedia }, opts: SendOptions): Promise<MessageRow> {
  const fromBot = Boolean(opts.fromBot);
  const userId = fromBot ? null : (opts.userId ?? null);
  if (userId !== null && !(await deps.identity.getUser(companyId, userId))) throw new AppError('ERR_NO_USER_FOUND');
  const fields = checkSendTicketFields(opts.ticket);
  // The quoted message must be of this conversation (read before the transaction, only when one is given).
  const quotedMsgId = opts.quotedMsgId === undefined ? null : await resolveQuoted(deps, await getTicketOr404(deps.db, companyId, ticketId), opts.quotedMsgId);
  const by: TicketActor = fromBot ? { kind: 'bot', handlerId: opts.handlerId || 'bot' } : userId !== null ? { kind: 'user', userId } : { kind: 'system', reason: 'service' };
  const allowed: readonly TicketStatus[] = fromBot ? CONVERSATION_STATUSES : SENDABLE;
  const isPrivate = Boolean(opts.isPrivate) && !content.media;
  let changed: string[] = [];
  let stored: StoredOutbound;
  // The plain fields that changed with the message: announced as a service `update` would, with its transaction.
  const publishChanged = async (trx: Knex.Transaction, s: StoredOutbound) => {
    if (changed.length) await deps.bus.publish(TICKET_TOPICS.updated, ticketBusEvent(s.ticket, { fields: [...changed, 'lastMessage', 'fromMe'] }), { trx });
  };
  const notAllowed = () => new AppError('ERR_TICKET_NOT_OPEN', fromBot ? 'Handlers can answer only pending, open, group, lgpd or nps tickets' : undefined);
  if (quotedMsgId === null && !hasMessageVariables(content.body)) {
    // A final body (no message variables, no quote): one statement (storeOutboundAtOnce), its events with it.
    stored = await deps.db.transaction(async (trx) => {
      const done = await storeOutboundAtOnce(deps, { companyId, ticketId, allowed, ticketFields: fields, body: content.body, media: content.media, isPrivate, userId, by }, trx);
      if (!done.stored) {
        if (done.status === null) throw new AppError('ERR_NO_TICKET_FOUND');
        throw notAllowed();
      }
      changed = (Object.keys(fields) as (keyof typeof fields)[]).filter((k) => done.before[k] !== fields[k]);
      await publishChanged(trx, done.stored);
      return done.stored;
    });
  } else stored = await deps.db.transaction(async (trx) => {
    const t = await getTicketOr404(trx, companyId, ticketId, true);
    if (!allowed.includes(t.status)) throw notAllowed();
    const ticketFields = Object.fromEntries(Object.entries(fields).filter(([k, v]) => t[k as keyof typeof fields] !== v));
    changed = Object.keys(ticketFields);
    const s = await insertOutboundMessage(trx, { ticket: t, locked: true, ticketFields, body: content.body, media: content.media, userId, quotedMsgId, automatic: true, by, isPrivate }, deps);
    await publishChanged(trx, s);
    return s;
  });
  await announceOutboundMessage(deps, stored);
  return stored.message;
}

// ---------------------------------------------------------------------------------------------------
// Ticket changes

/** The fields of `after` that differ from `before` (dates by time; `updatedAt` left out). */
function changedFields(before: TicketRow, after: TicketRow): string[] {
  const same = (a: unknown, b: unknown) => a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());
  return Object.keys(after).filter((k) => k !== 'updatedAt' && !same(after[k as keyof TicketRow], before[k as keyof TicketRow]));
}

const PLAIN_KEYS = ['isBot', 'amountUsedBotQueues', 'isOutOfHour', 'useIntegration', 'integrationId', 'promptId'] as const;

/** `SendOptions.ticket` checked (the service is called by code): 400 ERR_VALIDATION. */
function checkSendTicketFields(fields: SendOptions['ticket']): { isBot?: boolean; amountUsedBotQueues?: number } {
  if (fields === undefined) return {};
  if (!fields || typeof fields !== 'object') throw new AppError('ERR_VALIDATION', 'ticket must be an object');
  const out: { isBot?: boolean; amountUsedBotQueues?: number } = {};
  if (fields.isBot !== undefined) {
    if (typeof fields.isBot !== 'boolean') throw new AppError('ERR_VALIDATION', 'isBot must be a boolean');
    out.isBot = fields.isBot;
  }
  if (fields.amountUsedBotQueues !== undefined) {
    const n = fields.amountUsedBotQueues;
    if (!(Number.isInteger(n) && n >= 0 && n <= 1000)) throw new AppError('ERR_VALIDATION', 'amountUsedBotQueues must be an integer from 0 to 1000');
    out.amountUsedBotQueues = n;
  }
  return out;
}

/** The log entries' user (an attendant acting) and the data naming who acted otherwise. */
function actorLog(by: TicketActor): { userId: number | null; data: Record<string, unknown> } {
  switch (by.kind) {
    case 'user':
      return { userId: by.userId, data: {} };
    case 'bot':
      return { userId: null, data: { by: 'bot', handlerId: by.handlerId } };
    case 'system':
      return { userId: null, data: { by: 'system', reason: by.reason } };
    default:
      return { userId: null, data: { by: by.kind } };
  }
}

/** Checks a patch's shape (the service is called by code, not through a route schema): 400 ERR_VALIDATION. */
function checkPatch(patch: TicketPatch): void {
  if (!patch || typeof patch !== 'object') throw new AppError('ERR_VALIDATION', 'patch must be an object');
  const id = (v: unknown) => v === null || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2147483647);
  if (patch.status !== undefined && !(['pending', 'open', 'group', 'closed', 'nps', 'lgpd'] as unknown[]).includes(patch.status)) throw new AppError('ERR_VALIDATION', 'unknown status');
  for (const k of ['queueId', 'userId', 'integrationId', 'promptId'] as const) if (patch[k] !== undefined && !id(patch[k])) throw new AppError('ERR_VALIDATION', `${k} must be a positive integer or null`);
  for (const k of ['isBot', 'isOutOfHour', 'useIntegration'] as const) if (patch[k] !== undefined && typeof patch[k] !== 'boolean') throw new AppError('ERR_VALIDATION', `${k} must be a boolean`);
  if (patch.amountUsedBotQueues !== undefined && !(Number.isInteger(patch.amountUsedBotQueues) && patch.amountUsedBotQueues >= 0 && patch.amountUsedBotQueues <= 1000)) {
    throw new AppError('ERR_VALIDATION', 'amountUsedBotQueues must be an integer from 0 to 1000');
  }
}

/**
 * `TicketsService.update` / `close`: applies `patch` to the ticket under its row lock, writes the log
 * entries, then emits and publishes after commit (see the contract's docstring).
 */
async function updateTicketAs(deps: TicketsDeps, companyId: number, ticketId: number, patch: TicketPatch, by: TicketActor): Promise<TicketRow> {
  checkPatch(patch);
  const fx = new AfterCommit(by);
  const log = actorLog(by);
  const result = await fx.run(deps, async (trx) => {
    const t = await getTicketOr404(trx, companyId, ticketId, true);
    if (patch.queueId != null && patch.queueId !== t.queueId) await requireQueue(deps, companyId, patch.queueId);
    const target = patch.userId != null && patch.userId !== t.userId ? await deps.identity.getUser(companyId, patch.userId) : undefined;
    if (patch.userId != null && patch.userId !== t.userId && !target) throw new AppError('ERR_NO_USER_FOUND');

    const next: Record<string, unknown> = {};
    for (const k of PLAIN_KEYS) if (patch[k] !== undefined && patch[k] !== t[k]) next[k] = patch[k];
    if (patch.queueId !== undefined && patch.queueId !== t.queueId) next.queueId = patch.queueId;
    if (patch.userId !== undefined && patch.userId !== t.userId) next.userId = patch.userId;
    const status = patch.status ?? t.status;
    const userId = patch.userId !== undefined ? patch.userId : t.userId;
    const statusChanges = status !== t.status;
    if ((statusChanges || userId !== t.userId) && status === 'open' && userId === null) throw new AppError('ERR_VALIDATION', 'An open ticket needs a user');
    const reopening = statusChanges && t.status === 'closed' && ACTIVE_STATUSES.includes(status);
    if (statusChanges) {
      next.status = status;
      if (status === 'closed') Object.assign(next, { closedAt: trx.fn.now(), unreadMessages: 0 });
      if (reopening) next.closedAt = null;
      if ((status === 'open' || status === 'group') && t.status !== 'open' && t.status !== 'group') next.acceptedAt = trx.fn.now();
    }
    if (!Object.keys(next).length) return t;
    if (reopening) {
      const other = await findActive(trx, companyId, t.contactId, t.whatsappId);
      if (other && other.id !== t.id) throw await otherOpenTicketError(deps, other);
    }

    let row: TicketRow;
    try {
      // A savepoint: the one-active-ticket index may refuse a reopen raced by another transaction.
      row = await trx.transaction(async (sp) => {
        const [r] = (await sp('tickets').where({ id: t.id, companyId }).update({ ...next, updatedAt: sp.fn.now() }).returning('*')) as TicketRow[];
        return r;
      });
    } catch (err) {
      if (!isUniqueActiveViolation(err)) throw err;
      const other = await findActive(trx, companyId, t.contactId, t.whatsappId);
      if (other) throw await otherOpenTicketError(deps, other);
      throw err;
    }

    await writeLogs(trx, t, row, log);
    fx.update(row, t);
    const moved = row.queueId !== t.queueId || row.userId !== t.userId;
    if (statusChanges && row.status === 'closed') fx.event(TICKET_TOPICS.closed, row);
    else if (moved && row.status !== 'closed') fx.event(TICKET_TOPICS.transferred, row, { fromQueueId: t.queueId, fromUserId: t.userId });
    else fx.event(TICKET_TOPICS.updated, row, { fields: changedFields(t, row) });
    return row;
  });
  await fx.flush(deps);
  return result;
}

/** The log entries of a service change from `t` to `row` (status, queue, user). */
async function writeLogs(trx: Knex.Transaction, t: TicketRow, row: TicketRow, log: { userId: number | null; data: Record<string, unknown> }): Promise<void> {
  const data = Object.keys(log.data).length ? log.data : undefined;
  if (row.status !== t.status) {
    const type = t.status === 'closed' ? 'reopen' : row.status === 'closed' ? 'closed' : row.status === 'pending' ? 'pending' : row.status === 'open' || row.status === 'group' ? 'open' : undefined;
    if (type) await logTicket(trx, row, type, log.userId, row.queueId, data);
  }
  if (row.queueId !== t.queueId) await logTicket(trx, row, 'queue', log.userId, row.queueId, data);
  if (row.userId !== t.userId) {
    await logTicket(trx, row, 'transfered', log.userId, t.queueId, { ...log.data, fromUserId: t.userId, toUserId: row.userId, toQueueId: row.queueId });
    if (row.userId !== null) await logTicket(trx, row, 'receivedTransfer', row.userId, row.queueId);
  }
}

/** One checked log entry of `addLog`. */
interface LogItem {
  companyId: number;
  ticketId: number;
  type: string;
  userId: number | null;
  /** False: the ticket's queue at the time of writing. */
  given: boolean;
  queueId: number | null;
  data: string | null;
}

/**
 * The log entries written at the same time (the turns of several tickets), in one statement: each entry
 * only when its ticket is the company's. Resolves true per entry written.
 */
function logWriter(deps: TicketsDeps): BatchLoader<LogItem, boolean> {
  return new BatchLoader(async (items) => {
    const { rows } = (await deps.db.raw(
      `INSERT INTO ticket_logs (company_id, ticket_id, type, user_id, queue_id, data)
       SELECT t.company_id, t.id, v.type, v.user_id, CASE WHEN v.given THEN v.queue_id ELSE t.queue_id END, v.data
       FROM unnest(?::int[], ?::int[], ?::varchar[], ?::int[], ?::boolean[], ?::int[], ?::jsonb[]) WITH ORDINALITY AS v(company_id, ticket_id, type, user_id, given, queue_id, data, i)
       JOIN tickets t ON t.id = v.ticket_id AND t.company_id = v.company_id
       ORDER BY v.i
       RETURNING company_id, ticket_id`,
      [
        items.map((i) => i.companyId),
        items.map((i) => i.ticketId),
        items.map((i) => i.type),
        items.map((i) => i.userId),
        items.map((i) => i.given),
        items.map((i) => i.queueId),
        items.map((i) => i.data),
      ] as unknown as readonly string[],
    )) as { rows: { company_id: number; ticket_id: number }[] };
    const written = new Set(rows.map((r) => `${r.company_id}:${r.ticket_id}`));
    return items.map((i) => written.has(`${i.companyId}:${i.ticketId}`));
  });
}

/** `TicketsService.addLog`: 404 ERR_NO_TICKET_FOUND, 400 ERR_VALIDATION (type, ids, data over 10,000 characters of JSON). */
async function addLog(logs: BatchLoader<LogItem, boolean>, companyId: number, ticketId: number, entry: TicketLogInput): Promise<void> {
  if (!entry || !(TICKET_LOG_TYPES as readonly string[]).includes(entry.type)) throw new AppError('ERR_VALIDATION', 'unknown ticket log type');
  const id = (v: unknown) => v === undefined || v === null || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2147483647);
  if (!id(entry.userId) || !id(entry.queueId)) throw new AppError('ERR_VALIDATION', 'userId and queueId must be positive integers or null');
  if (entry.data !== undefined && (typeof entry.data !== 'object' || entry.data === null || JSON.stringify(entry.data).length > 10_000)) {
    throw new AppError('ERR_VALIDATION', 'data must be an object of at most 10,000 characters of JSON');
  }
  if (!Number.isInteger(companyId) || !Number.isInteger(ticketId) || ticketId < 1 || ticketId > 2147483647) throw new AppError('ERR_NO_TICKET_FOUND');
  // The entry is written only when the ticket is the company's (its queue by default); entries written at
  // the same time share the statement.
  const given = entry.queueId !== undefined;
  const written = await logs.load({
    companyId,
    ticketId,
    type: entry.type,
    userId: entry.userId ?? null,
    given,
    queueId: given ? (entry.queueId ?? null) : null,
    data: entry.data ? JSON.stringify(entry.data) : null,
  });
  if (!written) throw new AppError('ERR_NO_TICKET_FOUND');
}
