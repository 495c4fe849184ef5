/**
 * The SLA plugin's contract (import it as `@atendo/plugin-sla/contract`): error codes, the wire shapes of
 * `/sla/*` and of the `company-{id}-sla` socket event, the `sla.breached` bus topic, the `sla.check` job and
 * the `sla` service (the dashboard reads the share of tickets that met each target through it). Types and
 * `define*` calls only: importing it pulls neither fastify nor knex, so the web areas may import it.
 *
 * Units: targets are minutes of the queue's business hours (its weekly schedules, on the company's time zone);
 * instants are ISO 8601 strings; shares are percentages 0..100 with two decimals.
 */
import { defineErrors, defineJob, defineService, defineTopic, Nullable, Type, type Static } from '@atendo/sdk';

// ---- error codes

export const errors = defineErrors({
  ERR_NO_SLA_FOUND: { status: 404, message: 'The ticket has no SLA' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---- targets per queue

/** Longest target: one year of business minutes. */
export const MAX_TARGET_MINUTES = 525_600;
/** Default share of a target's business time after which a ticket shows the "breach near" badge. */
export const DEFAULT_WARN_PERCENT = 80;

/** A queue's SLA targets as `GET /sla/policies` lists them (a queue without targets has both null). */
export const SlaPolicySchema = Type.Object(
  {
    queueId: Type.Integer(),
    queueName: Type.String(),
    queueColor: Type.String(),
    /** Business minutes from the start of the conversation to the first attendant message; null: no target. */
    firstResponseMinutes: Nullable(Type.Integer()),
    /** Business minutes from the start of the conversation to its close; null: no target. */
    resolutionMinutes: Nullable(Type.Integer()),
    /** Percent (1..99) of a target's business time after which the ticket is "near breach". */
    warnPercent: Type.Integer(),
    updatedAt: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type SlaPolicy = Static<typeof SlaPolicySchema>;

/** Body of `PUT /sla/policies/:queueId`: both targets null removes them. */
export const SlaPolicyBody = Type.Object(
  {
    firstResponseMinutes: Nullable(Type.Integer({ minimum: 1, maximum: MAX_TARGET_MINUTES })),
    resolutionMinutes: Nullable(Type.Integer({ minimum: 1, maximum: MAX_TARGET_MINUTES })),
    warnPercent: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })),
  },
  { additionalProperties: false },
);
export type SlaPolicyBody = Static<typeof SlaPolicyBody>;

// ---- a ticket's due times

/**
 * The state of one target of a ticket at the time of the answer: `ok` (running, not near), `warning` (past
 * `warnAt`), `breached` (past `dueAt`, not done), `met` (done by `dueAt`), `missed` (done after `dueAt`).
 */
export const SLA_STATES = ['ok', 'warning', 'breached', 'met', 'missed'] as const;
export type SlaState = (typeof SLA_STATES)[number];

/** The two targets. */
export const SLA_TARGETS = ['firstResponse', 'resolution'] as const;
export type SlaTargetName = (typeof SLA_TARGETS)[number];

/** One target of a ticket. */
export const SlaTargetSchema = Type.Object(
  {
    /** The target, in business minutes. */
    minutes: Type.Integer(),
    /** When the badge turns to "near breach" (null: the queue's hours never open). */
    warnAt: Nullable(Type.String()),
    /** When the target is due (null: the queue's hours never open). */
    dueAt: Nullable(Type.String()),
    /** When it was done: the first attendant message, or the close. */
    doneAt: Nullable(Type.String()),
    /** When the breach was recorded (and the supervisors notified). */
    breachedAt: Nullable(Type.String()),
    state: Type.Union(SLA_STATES.map((s) => Type.Literal(s))),
  },
  { additionalProperties: false },
);
export type SlaTarget = Static<typeof SlaTargetSchema>;

/** A ticket's SLA (`GET /sla/tickets`, socket `company-{id}-sla` update). */
export const SlaTicketSchema = Type.Object(
  {
    ticketId: Type.Integer(),
    uuid: Type.String(),
    queueId: Type.Integer(),
    userId: Nullable(Type.Integer()),
    /** When the clock started: the ticket's creation, or its last reopening. */
    startedAt: Type.String(),
    firstResponse: Nullable(SlaTargetSchema),
    resolution: Nullable(SlaTargetSchema),
  },
  { additionalProperties: false },
);
export type SlaTicket = Static<typeof SlaTicketSchema>;

/** A target breached and not done yet (`GET /sla/breaches`, socket `breach`). */
export const SlaBreachSchema = Type.Object(
  {
    ticketId: Type.Integer(),
    uuid: Type.String(),
    queueId: Type.Integer(),
    userId: Nullable(Type.Integer()),
    target: Type.Union(SLA_TARGETS.map((s) => Type.Literal(s))),
    dueAt: Type.String(),
    breachedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type SlaBreach = Static<typeof SlaBreachSchema>;

/** Query of `GET /sla/tickets`: up to 200 ticket ids, as a comma list (`1,2,3`) or a JSON array. */
export const SlaTicketsQuery = Type.Object(
  { ticketIds: Type.String({ minLength: 1, maxLength: 2400, pattern: '^\\s*\\[?\\s*\\d{1,10}(\\s*,\\s*\\d{1,10})*\\s*\\]?\\s*$' }) },
  { additionalProperties: false },
);
/** Most ticket ids one `GET /sla/tickets` answers. */
export const MAX_TICKET_IDS = 200;

// ---- socket event

/**
 * Socket event `company-{id}-sla`:
 * - `{action: 'update', sla}`: a ticket's due times or state changed (created, response, close, transfer, near
 *   breach, breach), to the audiences that see the ticket (as `company-{id}-ticket`);
 * - `{action: 'delete', ticketId}`: the ticket no longer has an SLA (deleted, moved to a queue without targets);
 * - `{action: 'breach', breach}`: to each supervisor of the ticket's queue (their user only).
 */
export type SlaSocketEvent = { action: 'update'; sla: SlaTicket } | { action: 'delete'; ticketId: number } | { action: 'breach'; breach: SlaBreach };
/** The socket event name. */
export const slaEventName = (companyId: number) => `company-${companyId}-sla`;

// ---- bus

/** Payload of `sla.breached`. */
export interface SlaBreachedEvent extends SlaBreach {
  companyId: number;
}
/**
 * `sla.breached`: a ticket passed a target's due time without it being done (published once per ticket, target
 * and cycle, in the transaction that records it). The plugin notifies the queue's supervisors from it.
 */
export const slaBreached = defineTopic<SlaBreachedEvent>('sla.breached', 'a ticket breached an SLA target');

/** The due-time check of one ticket (keyed `ticket-<id>`: one pending run per ticket, moved on every change). */
export const slaCheckJob = defineJob<{ companyId: number; ticketId: number }>('sla.check');

// ---- service

/** The counts of one target over a set of tickets. */
export const SlaShareSchema = Type.Object({
  /** Tickets with the target. */
  total: Type.Integer(),
  /** Done by the due time. */
  met: Type.Integer(),
  /** Done late, or past due and not done. */
  breached: Type.Integer(),
  /** Not done and not due yet (not counted in `share`). */
  running: Type.Integer(),
  /** met / (met + breached), percent with two decimals; null when nothing was decided. */
  share: Nullable(Type.Number()),
});
export type SlaShare = Static<typeof SlaShareSchema>;

/** The shares of both targets for one group (a queue, an attendant, or all). */
export const SlaSharesRowSchema = Type.Object({ firstResponse: SlaShareSchema, resolution: SlaShareSchema });

/** What `SlaService.shares` answers (ids only; the dashboard adds names). */
export interface SlaShares {
  totals: Static<typeof SlaSharesRowSchema>;
  queues: Array<{ queueId: number } & Static<typeof SlaSharesRowSchema>>;
  /**
   * Per attendant: the first response counts for the user who wrote it (else the ticket's user), the
   * resolution for the ticket's user when it closed (else now); 0 = no user.
   */
  users: Array<{ userId: number } & Static<typeof SlaSharesRowSchema>>;
}

/**
 * The `sla` service (`ctx.services.get(slaService)`, with `sla` in `dependsOn` / `optionalDependsOn`). Scoped to
 * `companyId`.
 */
export interface SlaService {
  /**
   * The share of tickets that met each target, over the tickets whose SLA clock started on the local days
   * `from`..`to` (`YYYY-MM-DD`, inclusive) of `timeZone`, per queue, per attendant and in all; `now` decides
   * which open targets are past due (default: now).
   */
  shares(companyId: number, range: { from: string; to: string; timeZone: string }, now?: Date): Promise<SlaShares>;
  /** The ticket's SLA, or undefined (another company's ticket, or no targets). */
  ticket(companyId: number, ticketId: number, now?: Date): Promise<SlaTicket | undefined>;
  /**
   * Runs the ticket's due-time check now (what the `sla.check` job does at each warn and due time): records
   * breaches up to `now` and publishes `sla.breached` for each. For operators and tests.
   */
  check(companyId: number, ticketId: number, now?: Date): Promise<void>;
}
/** The `sla` service ref. */
export const slaService = defineService<SlaService>('sla');
