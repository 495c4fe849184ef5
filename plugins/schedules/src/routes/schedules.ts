import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { ScheduleSchema } from '../contract';
import { CreateScheduleBody, ListSchedulesQuery, SchedulePage, UpdateScheduleBody } from '../schemas/schedules';
import type { ScheduleStore } from '../services/schedules';

const errors = errorResponses(400, 401, 403, 404, 409);

/**
 * The schedule routes (spec 2-tickets.md §2 "Schedules", §5 "Schedule", §7 "Schedules"; wire-shapes
 * "GET /schedules"), gated by the plan flag `useSchedules` (403 ERR_FEATURE_NOT_IN_PLAN). Any signed-in user
 * of the company lists and creates; users change and delete only their own schedules, admins and
 * supervisors any (403 ERR_NO_PERMISSION). Another company's id answers 404 ERR_NO_SCHEDULE_FOUND.
 * - `GET /schedules`, `GET /schedules/` ?searchParam&contactId&userId&pageNumber -> `{schedules, count,
 *   hasMore}`, 20 a page, newest first.
 * - `GET /schedules/:id` -> Schedule.
 * - `POST /schedules` {body 5..4096, contactId, sendAt} -> Schedule (PENDENTE); `sendAt` is the client's
 *   `YYYY-MM-DDTHH:mm` in the company's time zone or an ISO time with an offset; 400 ERR_SCHEDULE_IN_PAST
 *   for a time not in the future, 400 ERR_VALIDATION for a bad one, 404 ERR_NO_CONTACT_FOUND.
 * - `PUT /schedules/:id` (the same fields, each optional) -> Schedule; 409 ERR_SCHEDULE_ALREADY_SENT once sent.
 * - `DELETE /schedules/:id` -> `{message}`; its pending send is cancelled.
 * Writes emit `company-{cid}-schedule` and `company{cid}-schedule` after commit: `{action: 'create'|'update',
 * schedule}` or `{action: 'delete', scheduleId}`; sends and failures emit `update`.
 */
export async function scheduleRoutes(app: PluginApp, deps: { store: ScheduleStore }): Promise<void> {
  const { store } = deps;

  for (const url of ['/schedules', '/schedules/']) {
    app.get(url, {
      schema: { tags: ['schedules'], summary: "A page of the company's schedules, newest first", querystring: ListSchedulesQuery, response: { 200: SchedulePage, ...errors } },
    }, (req) => store.list(req.auth.companyId, req.query));
  }

  app.get('/schedules/:id', {
    schema: { tags: ['schedules'], summary: 'One schedule', params: IdParams, response: { 200: ScheduleSchema, ...errors } },
  }, (req) => store.getOr404(req.auth.companyId, req.params.id));

  app.post('/schedules', {
    schema: { tags: ['schedules'], summary: 'Schedule a message to a contact', body: CreateScheduleBody, response: { 200: ScheduleSchema, ...errors } },
  }, (req) => store.create(req.auth, req.body));

  app.put('/schedules/:id', {
    schema: { tags: ['schedules'], summary: 'Change a schedule that was not sent', params: IdParams, body: UpdateScheduleBody, response: { 200: ScheduleSchema, ...errors } },
  }, (req) => store.update(req.auth, req.params.id, req.body));

  app.delete('/schedules/:id', {
    schema: { tags: ['schedules'], summary: 'Delete a schedule (its pending send is cancelled)', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth, req.params.id);
    return { message: 'Schedule deleted' };
  });
}
