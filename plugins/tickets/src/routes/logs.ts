import { errorResponses, IdParams, iso, Type, type PluginApp } from '@atendo/sdk';
import type { TicketsDeps } from '../services/deps';
import { showTicket } from '../services/tickets';
import { TicketLogSchema } from '../schemas/tickets';

const errors = errorResponses(400, 401, 403, 404);

/**
 * `GET /tickets-log/:id` (spec 2-tickets.md §3 "Ticket log entry", §7): the ticket's log entries ordered by
 * `createdAt` (oldest first) as `[{id, type, createdAt, user: {id, name}|null, queue: {id, name, color}|null}]`.
 * Types: create, chatBot, queue, open, access, transfered, receivedTransfer, pending, closed, reopen.
 * 404 ERR_NO_TICKET_FOUND outside the caller's company; 403 ERR_NO_PERMISSION when the caller cannot see it.
 */
export async function ticketLogRoutes(app: PluginApp, deps: TicketsDeps): Promise<void> {
  app.get('/tickets-log/:id', {
    schema: { tags: ['tickets'], summary: "A ticket's log timeline", params: IdParams, response: { 200: Type.Array(TicketLogSchema), ...errors } },
  }, async (req) => {
    const t = await showTicket(deps, req.auth, { id: req.params.id });
    const rows: { id: string | number; type: string; createdAt: Date; userId: number | null; queueId: number | null }[] = await deps.db('ticketLogs')
      .where({ ticketId: t.id, companyId: t.companyId })
      .orderBy([{ column: 'createdAt' }, { column: 'id' }])
      .limit(5000)
      .select('id', 'type', 'createdAt', 'userId', 'queueId');
    const userIds = [...new Set(rows.map((r) => r.userId).filter((x): x is number => x !== null))];
    const queueIds = [...new Set(rows.map((r) => r.queueId).filter((x): x is number => x !== null))];
    const [users, queues] = await Promise.all([
      userIds.length ? deps.identity.listUsers(t.companyId, userIds) : Promise.resolve([]),
      Promise.all(queueIds.map((id) => deps.queues.getQueue(t.companyId, id))),
    ]);
    const userById = new Map(users.map((u) => [u.id, { id: u.id, name: u.name }]));
    const queueById = new Map(queues.filter((q) => q !== undefined).map((q) => [q.id, { id: q.id, name: q.name, color: q.color }]));
    return rows.map((r) => ({
      id: Number(r.id),
      type: r.type,
      createdAt: iso(r.createdAt),
      user: r.userId !== null ? (userById.get(r.userId) ?? null) : null,
      queue: r.queueId !== null ? (queueById.get(r.queueId) ?? null) : null,
    }));
  });
}
