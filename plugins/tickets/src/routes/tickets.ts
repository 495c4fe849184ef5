import { AppError, errorResponses, IdParams, type PluginApp } from '@atendo/sdk';
import type { TicketsDeps } from '../services/deps';
import { answerTicket, closeAllTickets, createTicket, deleteTicket, showTicket, updateTicket } from '../services/tickets';
import {
  CloseAllAnswer,
  CloseAllBody,
  CreateTicketBody,
  DeletedAnswer,
  TicketSchema,
  UpdateTicketBody,
  UuidParams,
} from '../schemas/tickets';

const errors = errorResponses(400, 401, 403, 404, 409);

/**
 * The ticket state-machine routes (spec 2-tickets.md §4, §7 "Tickets"; wire-shapes §4). Every route is
 * scoped to the caller's company; ticket ids of other companies answer 404 ERR_NO_TICKET_FOUND, tickets the
 * caller may not see (the visibility rule) 403 ERR_NO_PERMISSION.
 * - `POST /tickets` {contactId, queueId|null, whatsappId|null} -> 200 the serialized ticket (TicketL),
 *   opened by and assigned to the caller. 409 when the contact has an active ticket on that connection:
 *   `{error, code: 'ERR_OTHER_OPEN_TICKET', message, ticketId, uuid, status, userId, queueId, user:
 *   {id,name}|null, queue: {id,name,color}|null, ticket: {same}}`, where `error` is that ticket as a JSON
 *   string (`{code, id, uuid, status, userId, queueId, user, queue}`): the product family's client runs
 *   `JSON.parse(error)` on every error of this call (wire-shapes §4 "POST /tickets", §6.7). 400 ERR_VALIDATION 'Selecione uma fila' (queue required unless
 *   admin), 404 ERR_NO_CONTACT_FOUND / ERR_NO_WAPP_FOUND / ERR_NO_DEF_WAPP_FOUND / ERR_NO_QUEUE_FOUND, 403
 *   ERR_NO_PERMISSION (a plain user's queue must be theirs).
 * - `PUT /tickets/:id` {status?, userId?, queueId?, sendFarewellMessage?, amountUsedBotQueues?, promptId?,
 *   useIntegration?, integrationId?, isBot?} -> 200 the serialized ticket (for a reopen while another
 *   active ticket exists: that other ticket, unchanged). Transitions and their errors: services/tickets.ts.
 * - `DELETE /tickets/:id` (admin) -> {message}; emits `{action:'delete', ticketId}`.
 * - `POST /tickets/closeAll` (admin) {status?: 'open'|'pending', queueIds?: number[] (0 = no queue)} -> {closed};
 *   each ticket closed is audited (`close`, issue 34).
 * - `GET /tickets/u/:uuid` -> the serialized ticket; writes an 'access' log entry (once per 5 minutes and user).
 * - `GET /tickets/:id` -> the serialized ticket.
 */
export async function ticketRoutes(app: PluginApp, deps: TicketsDeps): Promise<void> {
  app.post('/tickets', {
    schema: { tags: ['tickets'], summary: 'Open a ticket for a contact, assigned to the caller', body: CreateTicketBody, response: { 200: TicketSchema, ...errors } },
  }, async (req, reply) => {
    try {
      const t = await createTicket(deps, req.auth, req.body);
      return await answerTicket(deps, req.auth, t);
    } catch (err) {
      if (err instanceof AppError && err.code === 'ERR_OTHER_OPEN_TICKET') return reply.status(409).send(otherOpenTicketBody(err));
      throw err;
    }
  });

  app.post('/tickets/closeAll', {
    config: { role: 'admin' },
    schema: { tags: ['tickets'], summary: 'Close every active ticket of the given statuses and queues', body: CloseAllBody, response: { 200: CloseAllAnswer, ...errors } },
  }, async (req) => ({ closed: await closeAllTickets(deps, req.auth, req.body ?? {}, req) }));

  app.get('/tickets/u/:uuid', {
    schema: { tags: ['tickets'], summary: 'One ticket by uuid (logs an access entry)', params: UuidParams, response: { 200: TicketSchema, ...errors } },
  }, async (req) => {
    const t = await showTicket(deps, req.auth, { uuid: req.params.uuid }, { logAccess: true });
    return answerTicket(deps, req.auth, t);
  });

  app.get('/tickets/:id', {
    schema: { tags: ['tickets'], summary: 'One ticket by id', params: IdParams, response: { 200: TicketSchema, ...errors } },
  }, async (req) => {
    const t = await showTicket(deps, req.auth, { id: req.params.id });
    return answerTicket(deps, req.auth, t);
  });

  app.put('/tickets/:id', {
    schema: { tags: ['tickets'], summary: 'Ticket transition (accept, ignore, return, transfer, close, reopen) or field update', params: IdParams, body: UpdateTicketBody, response: { 200: TicketSchema, ...errors } },
  }, async (req) => {
    const before = await deps.db('tickets').where({ id: req.params.id, companyId: req.auth.companyId }).first('status', 'userId', 'queueId');
    const t = await updateTicket(deps, req.auth, req.params.id, req.body ?? {});
    if (before && t.id === req.params.id) await deps.audit?.record(deps.db, { req, entity: 'ticket', entityId: t.id, action: ticketAuditAction(before, t), before, after: { status: t.status, userId: t.userId, queueId: t.queueId } });
    return answerTicket(deps, req.auth, t);
  });

  app.delete('/tickets/:id', {
    config: { role: 'admin' },
    schema: { tags: ['tickets'], summary: 'Delete a ticket with its messages, notes, logs and tags', params: IdParams, response: { 200: DeletedAnswer, ...errors } },
  }, async (req) => {
    const before = await deps.db('tickets').where({ id: req.params.id, companyId: req.auth.companyId }).first('status', 'userId', 'queueId', 'contactId');
    await deleteTicket(deps, req.auth, req.params.id);
    await deps.audit?.record(deps.db, { req, entity: 'ticket', entityId: req.params.id, action: 'delete', before });
    return { message: 'Ticket deleted' };
  });
}

/**
 * The audit action of a ticket update (issue 34): `accept` (pending to open), `close`, `reopen` (closed to
 * open or pending), `transfer` (another user or queue), else `update`.
 */
export function ticketAuditAction(before: { status: string; userId: number | null; queueId: number | null }, after: { status: string; userId: number | null; queueId: number | null }): string {
  if (before.status !== 'closed' && after.status === 'closed') return 'close';
  if (before.status === 'closed' && after.status !== 'closed') return 'reopen';
  if (before.status === 'pending' && after.status === 'open') return 'accept';
  if (before.userId !== after.userId || before.queueId !== after.queueId) return 'transfer';
  return 'update';
}

/**
 * The 409 body of `POST /tickets` for an active ticket of the contact (see the route's comment): the owner
 * facts flat and under `ticket`, `code` ERR_OTHER_OPEN_TICKET, and `error` the JSON string of the ticket.
 */
export function otherOpenTicketBody(err: AppError): { error: string; message: string; [key: string]: unknown } {
  const facts = (err.extra ?? {}) as { ticketId?: number; uuid?: string; status?: string; userId?: number | null; queueId?: number | null; user?: unknown; queue?: unknown };
  const ticket = { code: err.code, id: facts.ticketId, uuid: facts.uuid, status: facts.status, userId: facts.userId ?? null, queueId: facts.queueId ?? null, user: facts.user ?? null, queue: facts.queue ?? null };
  return { ...facts, code: err.code, message: err.message, error: JSON.stringify(ticket) };
}
