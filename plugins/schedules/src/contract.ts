/**
 * The schedules plugin's contract (import it as `@atendo/plugin-schedules/contract`): the wire shape of a
 * schedule, its statuses, the socket events, the send job and the plugin's error codes. Types and `define*`
 * calls only: importing it pulls neither fastify nor knex.
 */
import type { Knex } from 'knex';
import { defineErrors, defineJob, defineService, Nullable, Type, type Static } from '@atendo/sdk';

/** Error codes owned by the schedules plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_SCHEDULE_FOUND: { status: 404, message: 'Schedule not found' },
  ERR_SCHEDULE_ALREADY_SENT: { status: 409, message: 'This schedule was already sent' },
  ERR_SCHEDULE_IN_PAST: { status: 400, message: 'The send time must be in the future' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** Schedule statuses (the wire's values): pending, sent, error. */
export const SCHEDULE_STATUSES = ['PENDENTE', 'ENVIADA', 'ERRO'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** Page size of `GET /schedules`. */
export const PAGE_SIZE = 20;
/** Shortest body (spec 2-tickets.md §5: "Mensagem muito curta" under 5 characters) and the longest (a WhatsApp text). */
export const BODY_MIN = 5;
export const BODY_MAX = 4096;

/** A schedule as every answer shows it (wire-shapes "GET /schedules"). Times are ISO 8601 strings (UTC). */
export const ScheduleSchema = Type.Object(
  {
    id: Type.Integer(),
    body: Type.String(),
    sendAt: Type.String(),
    /** When it went out (null until then). */
    sentAt: Nullable(Type.String()),
    contactId: Type.Integer(),
    /** The ticket whose conversation holds the sent message (null until sent). */
    ticketId: Nullable(Type.Integer()),
    userId: Nullable(Type.Integer()),
    companyId: Type.Integer(),
    status: Type.Union(SCHEDULE_STATUSES.map((s) => Type.Literal(s))),
    /** Why the schedule is ERRO (the last failure), else null. */
    error: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    contact: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false })),
    user: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type Schedule = Static<typeof ScheduleSchema>;

/**
 * The socket.io events of a company's schedules: `company-{cid}-schedule`, and the product family's
 * `company{cid}-schedule` (no dash) for its clients, with `{action: 'create'|'update', schedule}` or
 * `{action: 'delete', scheduleId}`.
 */
export const scheduleEvents = (companyId: number) => [`company-${companyId}-schedule`, `company${companyId}-schedule`] as const;
export type ScheduleEvent = { action: 'create' | 'update'; schedule: Schedule } | { action: 'delete'; scheduleId: number };

/** The durable send job of one schedule (key `schedule-{id}`; due at `sendAt`). */
export const sendScheduleJob = defineJob<{ companyId: number; scheduleId: number }>('schedules.send');
/** The job key of a schedule. */
export const scheduleJobKey = (scheduleId: number) => `schedule-${scheduleId}`;

/**
 * The `schedules` service (`ctx.services.get(schedulesService)`; declare `schedules` in `dependsOn` or
 * `optionalDependsOn`). Scoped to `companyId`: schedules of another company are unknown.
 */
export interface SchedulesService {
  /** One schedule, or undefined. */
  get(companyId: number, id: number): Promise<Schedule | undefined>;
  /** The contact's schedules still to send (PENDENTE), soonest first. */
  pendingForContact(companyId: number, contactId: number): Promise<Schedule[]>;
  /** Added (additive, issue 34: the data subject's export): every schedule of the contact, oldest first. */
  allForContact?(companyId: number, contactId: number): Promise<Schedule[]>;
  /** Added (additive, issue 34: anonymization): deletes every schedule of the contact inside `trx`; answers how many. */
  removeForContact?(companyId: number, contactId: number, trx: Knex.Transaction): Promise<number>;
}

export const schedulesService = defineService<SchedulesService>('schedules');
