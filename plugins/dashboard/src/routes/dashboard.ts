import { errorResponses, hasRole, toBool, toInt, Type, type IdentityService, type PluginApp } from '@atendo/sdk';
import { TICKET_STATUSES } from '@atendo/sdk/wire';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import type { SlaService } from '@atendo/plugin-sla/contract';
import { DashboardSchema, DashboardSlaSchema, MOMENTS_WINDOW_DAYS, MomentTicketSchema, NPS_CLASSES, NpsInfoSchema, ReportPageSchema, ResearchPageSchema, TicketsPerDaySchema, TicketsPerQueueSchema, TicketsPerUserSchema, UserInfoSchema, type NpsClass } from '../contract';
import { MomentsQuery, RangeQuery, ReportQuery, ResearchQuery } from '../schemas/queries';
import { parseIds, resolveRange } from '../services/range';
import { parseStatuses, type DashboardStats } from '../services/stats';

const errors = errorResponses(400, 401, 403);
const admin = { role: 'admin' as const };

/**
 * The dashboard routes (every answer scoped to the caller's company; days in the company's time zone):
 * - `GET /dashboard` ?days | date_from&date_to (admin) -> `{counters, attendants}` (wire-shapes.md);
 * - `GET /dashboard/total-atendimentos`, `/dashboard/queues`, `/dashboard/ticketsUsers`, `/dashboard/user-info`,
 *   `/dashboard/nps-info`, `/dashboard/atendimentos-encerrados` ?initialDate&finalDate | days (admin) -> chart data
 *   (contract.ts), the last one a bare number;
 * - `GET /dashboard/moments` ?status&showAll&queueIds&dateStart&dateEnd&userId (any user) -> tickets of the panel;
 * - `GET /ticket/reports` (admin) -> a page of the attendance / group attendance (`isGroup=true`) / ticket
 *   duration report;
 * - `GET /ticket/reports/research` (admin) -> a page of the research report (the customers' NPS answers);
 * - `GET /dashboard/sla` ?days | date_from&date_to (admin; only with the SLA plugin) -> the share of tickets that
 *   met each SLA target, in all, per queue and per attendant (`DashboardSlaSchema`), from the `sla` service.
 * Errors: 400 ERR_VALIDATION (schema), ERR_DASHBOARD_RANGE, ERR_DASHBOARD_FILTER; 401; 403 ERR_NO_PERMISSION (role).
 */
export async function dashboardRoutes(app: PluginApp, deps: { stats: DashboardStats; queues: QueuesService; identity: IdentityService; sla?: SlaService }): Promise<void> {
  const { stats, queues, sla } = deps;
  const range = async (companyId: number, q: RangeQuery) =>
    resolveRange({ days: toInt(q.days), from: q.date_from ?? q.initialDate, to: q.date_to ?? q.finalDate }, await stats.timeZone(companyId));

  app.get('/dashboard', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Counters and attendants of the period', querystring: RangeQuery, response: { 200: DashboardSchema, ...errors } },
  }, async (req) => stats.dashboard(req.auth.companyId, await range(req.auth.companyId, req.query)));

  app.get('/dashboard/total-atendimentos', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Tickets per day and per hour of day', querystring: RangeQuery, response: { 200: TicketsPerDaySchema, ...errors } },
  }, async (req) => stats.perDay(req.auth.companyId, await range(req.auth.companyId, req.query)));

  app.get('/dashboard/queues', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Tickets per queue', querystring: RangeQuery, response: { 200: TicketsPerQueueSchema, ...errors } },
  }, async (req) => stats.perQueue(req.auth.companyId, await range(req.auth.companyId, req.query)));

  app.get('/dashboard/ticketsUsers', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Tickets per user', querystring: RangeQuery, response: { 200: TicketsPerUserSchema, ...errors } },
  }, async (req) => stats.perUser(req.auth.companyId, await range(req.auth.companyId, req.query)));

  app.get('/dashboard/user-info', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Tickets per attendant', querystring: RangeQuery, response: { 200: UserInfoSchema, ...errors } },
  }, async (req) => stats.userInfo(req.auth.companyId, await range(req.auth.companyId, req.query)));

  app.get('/dashboard/nps-info', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Ratings by NPS class', querystring: RangeQuery, response: { 200: NpsInfoSchema, ...errors } },
  }, async (req) => stats.npsInfo(req.auth.companyId, await range(req.auth.companyId, req.query)));

  app.get('/dashboard/atendimentos-encerrados', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Tickets closed in the period (a bare number)', querystring: RangeQuery, response: { 200: Type.Integer(), ...errors } },
  }, async (req) => stats.closedCount(req.auth.companyId, await range(req.auth.companyId, req.query)));

  if (sla) {
    app.get('/dashboard/sla', {
      config: admin,
      schema: { tags: ['dashboard'], summary: 'Share of tickets that met each SLA target, per queue and attendant', querystring: RangeQuery, response: { 200: DashboardSlaSchema, ...errors } },
    }, async (req) => {
      const { companyId } = req.auth;
      const r = await range(companyId, req.query);
      const [got, queueList, users] = await Promise.all([sla.shares(companyId, r), queues.listQueues(companyId), deps.identity.listUsers(companyId)]);
      const queueById = new Map(queueList.map((q) => [q.id, q]));
      const userById = new Map(users.map((u) => [u.id, u]));
      return {
        totals: got.totals,
        queues: got.queues.map((q) => ({ ...q, name: queueById.get(q.queueId)?.name ?? '', color: queueById.get(q.queueId)?.color ?? '' })),
        attendants: got.users.map((u) => ({ ...u, name: userById.get(u.userId)?.name ?? '' })),
      };
    });
  }

  app.get('/dashboard/moments', {
    schema: { tags: ['dashboard'], summary: 'Tickets of the real-time attendance panel', querystring: MomentsQuery, response: { 200: Type.Array(MomentTicketSchema), ...errors } },
  }, async (req) => {
    const { companyId } = req.auth;
    const q = req.query;
    const asked = parseIds(q.queueIds);
    let allowed: number[] | undefined;
    if (toBool(q.showAll) && hasRole(req.auth, 'admin')) allowed = asked;
    else {
      const mine = [0, ...(await queues.listQueueIds(companyId, req.auth.id))];
      allowed = asked ? asked.filter((x) => mine.includes(x)) : mine;
    }
    const hasRange = Boolean(q.dateStart || q.dateEnd);
    return stats.moments(companyId, {
      statuses: parseStatuses(q.status, TICKET_STATUSES) ?? ['open', 'pending'],
      queueIds: allowed,
      userId: toInt(q.userId),
      range: hasRange ? resolveRange({ from: q.dateStart, to: q.dateEnd }, await stats.timeZone(companyId)) : undefined,
      since: new Date(Date.now() - MOMENTS_WINDOW_DAYS * 86_400_000),
    });
  });

  app.get('/ticket/reports', {
    config: admin,
    schema: { tags: ['dashboard'], summary: 'Attendance, group attendance and ticket duration report (paged)', querystring: ReportQuery, response: { 200: ReportPageSchema, ...errors } },
  }, async (req) => {
    const q = req.query;
    return stats.report(req.auth.companyId, {
      range: await range(req.auth.companyId, { ...q, date_from: q.date_from ?? q.initialDate ?? q.dateFrom, date_to: q.date_to ?? q.finalDate ?? q.dateTo }),
      queueIds: parseIds(q.queueIds),
      userIds: parseIds(q.userIds ?? q.users),
      connectionIds: parseIds(q.whatsappIds ?? q.whatsappId),
      statuses: parseStatuses(q.status, TICKET_STATUSES),
      isGroup: toBool(q.isGroup),
      pageNumber: q.page ?? q.pageNumber,
      pageSize: q.pageSize ?? 50,
    });
  });

  app.get('/ticket/reports/research', {
    config: admin,
    schema: { tags: ['dashboard'], summary: "Research report: the customers' NPS answers (paged)", querystring: ResearchQuery, response: { 200: ResearchPageSchema, ...errors } },
  }, async (req) => {
    const q = req.query;
    return stats.research(req.auth.companyId, {
      range: await range(req.auth.companyId, q),
      queueIds: parseIds(q.queueIds),
      userIds: parseIds(q.userIds),
      connectionIds: parseIds(q.whatsappIds),
      classes: parseStatuses(q.npsClass, NPS_CLASSES) as NpsClass[] | undefined,
      pageNumber: q.pageNumber,
      pageSize: q.pageSize ?? 50,
    });
  });
}
