import { AppError, errorResponses, Type, type AuthUser, type IdentityService, type PluginApp } from '@atendo/sdk';
import { canSeeTicket, type TicketViewer } from '@atendo/sdk/wire';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import { MAX_TICKET_IDS, SlaBreachSchema, SlaPolicyBody, SlaPolicySchema, SlaTicketSchema, SlaTicketsQuery } from '../contract';
import type { PolicyStore } from '../services/policies';
import { wireSla, type SlaRow, type SlaTracker } from '../services/tracker';
import type { BreachNotifier } from '../services/notifier';

const errors = errorResponses(400, 401, 403, 404);
const QueueParams = Type.Object({ queueId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const TicketParams = Type.Object({ ticketId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

/** The ids of `GET /sla/tickets?ticketIds=` (`1,2,3` or `[1,2,3]`), distinct; 400 ERR_VALIDATION past 200. */
export function parseTicketIds(raw: string): number[] {
  const ids = [...new Set(raw.replace(/[[\]\s]/g, '').split(',').filter(Boolean).map(Number))].filter((n) => Number.isSafeInteger(n) && n > 0 && n <= 2147483647);
  if (ids.length > MAX_TICKET_IDS) throw new AppError('ERR_VALIDATION', `at most ${MAX_TICKET_IDS} ticket ids`);
  return ids;
}

/**
 * The SLA routes, every one scoped to the caller's company:
 * - `GET /sla/policies` (supervisor) -> `SlaPolicy[]`: every queue with its targets (null when none).
 * - `PUT /sla/policies/:queueId` (admin) `{firstResponseMinutes, resolutionMinutes, warnPercent?}` -> the queue's
 *   `SlaPolicy`; both null remove the targets; audited (`queue`, `update`). 404 ERR_NO_QUEUE_FOUND (another
 *   company's queue too), 400 ERR_VALIDATION.
 * - `GET /sla/tickets?ticketIds=1,2,3` (user) -> `SlaTicket[]` of the listed tickets that have an SLA and that the
 *   caller sees (the tickets' visibility rule); others are left out. 400 ERR_VALIDATION (over 200 ids, bad list).
 * - `GET /sla/tickets/:ticketId` (user) -> `SlaTicket`; 404 ERR_NO_SLA_FOUND for a ticket without an SLA, of
 *   another company or that the caller does not see.
 * - `GET /sla/breaches` (supervisor) -> `SlaBreach[]`: the open breaches of the caller's queues (admins: all),
 *   newest first, at most 100.
 */
export async function slaRoutes(app: PluginApp, deps: { policies: PolicyStore; tracker: SlaTracker; notifier: BreachNotifier; identity: IdentityService; queues: QueuesService }): Promise<void> {
  const { policies, tracker, notifier } = deps;

  /** Filters rows to those the caller sees (as the ticket lists do). */
  const visible = async (auth: AuthUser, rows: SlaRow[]): Promise<SlaRow[]> => {
    if (!rows.length) return rows;
    const user = await deps.identity.getUser(auth.companyId, auth.id);
    if (!user) return [];
    const viewer: TicketViewer = { id: user.id, profile: user.profile, super: user.super, allTicket: user.allTicket, allowGroup: user.allowGroup, queueIds: await deps.queues.listQueueIds(auth.companyId, auth.id) };
    return rows.filter((r) => canSeeTicket(viewer, { isGroup: false, queueId: r.queueId, userId: r.userId }));
  };

  app.get('/sla/policies', {
    config: { role: 'supervisor' },
    schema: { tags: ['sla'], summary: "Every queue's SLA targets", response: { 200: Type.Array(SlaPolicySchema), ...errors } },
  }, (req) => policies.list(req.auth.companyId));

  app.put('/sla/policies/:queueId', {
    config: { role: 'admin' },
    schema: { tags: ['sla'], summary: "Set a queue's SLA targets (both null remove them)", params: QueueParams, body: SlaPolicyBody, response: { 200: SlaPolicySchema, ...errors } },
  }, (req) => policies.put(req, req.params.queueId, req.body));

  app.get('/sla/tickets', {
    schema: { tags: ['sla'], summary: 'Due times of the listed tickets', querystring: SlaTicketsQuery, response: { 200: Type.Array(SlaTicketSchema), ...errors } },
  }, async (req) => {
    const ids = parseTicketIds(req.query.ticketIds);
    if (!ids.length) return [];
    const rows = (await tracker.rows(req.auth.companyId, ids));
    const now = new Date();
    return (await visible(req.auth, rows)).map((r) => wireSla(r, now));
  });

  app.get('/sla/tickets/:ticketId', {
    schema: { tags: ['sla'], summary: "One ticket's due times", params: TicketParams, response: { 200: SlaTicketSchema, ...errors } },
  }, async (req) => {
    const row = await tracker.get(req.auth.companyId, req.params.ticketId);
    const [seen] = row ? await visible(req.auth, [row]) : [];
    if (!seen) throw new AppError('ERR_NO_SLA_FOUND');
    return wireSla(seen);
  });

  app.get('/sla/breaches', {
    config: { role: 'supervisor' },
    schema: { tags: ['sla'], summary: 'Open breaches of the queues the caller supervises', response: { 200: Type.Array(SlaBreachSchema), ...errors } },
  }, (req) => notifier.open(req.auth));
}
