/**
 * The dashboard plugin's contract (import it as `@atendo/plugin-dashboard/contract`): its error codes and
 * the wire shapes of `GET /dashboard*`, `GET /dashboard/moments` and `GET /ticket/reports` (spec
 * wire-shapes.md "GET /dashboard", 1-platform.md "Dashboard", 2-tickets.md "Dashboard moments"), which the
 * dashboard area and the /moments panel read. Types and `define*` calls only.
 *
 * Units: times are minutes (numbers with two decimals, null when nothing was measured); percentages are
 * 0..100 with two decimals; days and hours are the company's time zone (setting `timeZone`).
 */
import type { Knex } from 'knex';
import { defineErrors, defineService, defineTopic, Type, type Static } from '@atendo/sdk';
import { SlaShareSchema } from '@atendo/plugin-sla/contract';

export const errors = defineErrors({
  ERR_DASHBOARD_RANGE: { status: 400, message: 'The date range is invalid (start after end, or longer than 366 days)' },
  ERR_DASHBOARD_FILTER: { status: 400, message: 'A filter list is not a JSON array of ids nor a comma-separated list of ids' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

const Num = Type.Number();
const NullableNum = Type.Union([Type.Number(), Type.Null()]);

/** `counters` of `GET /dashboard`. */
export const DashboardCountersSchema = Type.Object({
  /** Mean minutes from acceptance to close of the closed tickets (null: none). */
  avgSupportTime: NullableNum,
  /** Mean minutes from creation to acceptance of the accepted tickets (null: none). */
  avgWaitTime: NullableNum,
  /** Tickets of the period now open (with an attendant). */
  supportHappening: Type.Integer(),
  /** Tickets of the period now pending (waiting for an attendant). */
  supportPending: Type.Integer(),
  /** Tickets of the period now closed. */
  supportFinished: Type.Integer(),
  /** Distinct contacts with a ticket in the period. */
  leads: Type.Integer(),
  /** Tickets created in the period. */
  tickets: Type.Integer(),
  /** Tickets waiting for the customer's rating (status nps). */
  waitRating: Type.Integer(),
  /** Closed tickets without a rating. */
  withoutRating: Type.Integer(),
  /** Closed tickets with a rating. */
  withRating: Type.Integer(),
  /** withRating / (withRating + withoutRating), percent. */
  percRating: Num,
  npsPromotersPerc: Num,
  npsPassivePerc: Num,
  npsDetractorsPerc: Num,
  /** % promoters - % detractors (-100..100). */
  npsScore: Num,
});
export type DashboardCounters = Static<typeof DashboardCountersSchema>;

/** One of `attendants` of `GET /dashboard`: every user of the company, with the period's figures. */
export const DashboardAttendantSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  online: Type.Boolean(),
  avgWaitTime: NullableNum,
  avgSupportTime: NullableNum,
  /** Tickets of the period assigned to the user. */
  tickets: Type.Integer(),
  /** Mean NPS rate (0..10) of the user's rated tickets, null without ratings. */
  rating: NullableNum,
  countRating: Type.Integer(),
});
export type DashboardAttendant = Static<typeof DashboardAttendantSchema>;

export const DashboardSchema = Type.Object({ counters: DashboardCountersSchema, attendants: Type.Array(DashboardAttendantSchema) });
export type Dashboard = Static<typeof DashboardSchema>;

/** `GET /dashboard/total-atendimentos`: tickets created per day (`data`, every day of the range) and per hour of day (`hours`, 0..23). */
export const TicketsPerDaySchema = Type.Object({
  count: Type.Integer(),
  data: Type.Array(Type.Object({ data: Type.String({ description: 'YYYY-MM-DD' }), total: Type.Integer() })),
  hours: Type.Array(Type.Object({ horario: Type.Integer({ minimum: 0, maximum: 23 }), total: Type.Integer() })),
});
export type TicketsPerDay = Static<typeof TicketsPerDaySchema>;

/**
 * `GET /dashboard/queues`: tickets per queue (queueId 0: without a queue), a bare array as the product
 * family's ChartsQueue charts it (`item.queue?.name || 'Sem fila'`, `item.quantidade`); `queue` is null for
 * tickets without a queue.
 */
export const TicketsPerQueueSchema = Type.Array(
  Type.Object({
    queueId: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    quantidade: Type.Integer(),
    queue: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }), Type.Null()]),
  }),
);
export type TicketsPerQueue = Static<typeof TicketsPerQueueSchema>;

/** `GET /dashboard/ticketsUsers`: tickets per attendant (userId 0: without one). */
export const TicketsPerUserSchema = Type.Object({
  data: Type.Array(Type.Object({ userId: Type.Integer(), nome: Type.String(), quantidade: Type.Integer() })),
});
export type TicketsPerUser = Static<typeof TicketsPerUserSchema>;

/** `GET /dashboard/user-info`: tickets per user (wire-shapes.md). */
export const UserInfoSchema = Type.Array(Type.Object({ userId: Type.Integer(), name: Type.String(), quantidade: Type.Integer() }));
export type UserInfo = Static<typeof UserInfoSchema>;

/** `GET /dashboard/nps-info`: one element; `boa` promoters (9-10), `media` passives (7-8), `ruim` detractors (0-6). */
export const NpsInfoSchema = Type.Array(Type.Object({ total_notas: Type.Integer(), ruim: Type.Integer(), media: Type.Integer(), boa: Type.Integer() }));
export type NpsInfo = Static<typeof NpsInfoSchema>;

const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });

/** One ticket of `GET /dashboard/moments` (the real-time attendance panel). */
export const MomentTicketSchema = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  status: Type.String(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  queueId: Type.Union([Type.Integer(), Type.Null()]),
  whatsappId: Type.Union([Type.Integer(), Type.Null()]),
  contactId: Type.Integer(),
  lastMessage: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  user: Type.Union([Ref, Type.Null()]),
  queue: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }), Type.Null()]),
  contact: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), number: Type.String() }), Type.Null()]),
  whatsapp: Type.Union([Ref, Type.Null()]),
});
export type MomentTicket = Static<typeof MomentTicketSchema>;

/** One row of `GET /ticket/reports` (attendance, group attendance and ticket duration reports). */
export const ReportRowSchema = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  status: Type.String(),
  /** A group conversation (the contact is the group). */
  isGroup: Type.Boolean(),
  contact: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), number: Type.String() }), Type.Null()]),
  queue: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }), Type.Null()]),
  user: Type.Union([Ref, Type.Null()]),
  whatsapp: Type.Union([Ref, Type.Null()]),
  createdAt: Type.String(),
  acceptedAt: Type.Union([Type.String(), Type.Null()]),
  closedAt: Type.Union([Type.String(), Type.Null()]),
  /** The ticket's last change (ISO-8601): its last activity. */
  updatedAt: Type.String(),
  /** The text of the ticket's last message (null: none known). */
  lastMessage: Type.Union([Type.String(), Type.Null()]),
  /** Minutes from creation to acceptance (null: not accepted). */
  waitTime: NullableNum,
  /** Minutes from acceptance to close (null: not closed or never accepted). */
  supportTime: NullableNum,
  /** Minutes from creation to close (null: not closed). */
  duration: NullableNum,
  /** NPS rate 0..10 or null. */
  rating: NullableNum,
  // The product family's report grid reads flat names and `NPS` (its GridReport page).
  whatsappName: Type.Union([Type.String(), Type.Null()]),
  contactName: Type.Union([Type.String(), Type.Null()]),
  userName: Type.Union([Type.String(), Type.Null()]),
  queueName: Type.Union([Type.String(), Type.Null()]),
  NPS: NullableNum,
});
export type ReportRow = Static<typeof ReportRowSchema>;

export const ReportPageSchema = Type.Object({
  tickets: Type.Array(ReportRowSchema),
  count: Type.Integer(),
  hasMore: Type.Boolean(),
  /** Over every matching ticket (not only the page); `contacts`: distinct contacts (groups in the group report). */
  totals: Type.Object({ tickets: Type.Integer(), contacts: Type.Integer(), avgWaitTime: NullableNum, avgSupportTime: NullableNum, avgDuration: NullableNum }),
  /** The company's IANA time zone (setting `timezone`, default America/Sao_Paulo): the screens show times in it. */
  timeZone: Type.String(),
  /** The product family's total (`totalTickets.total`, its GridReport page): the same as `count`. */
  totalTickets: Type.Object({ total: Type.Integer() }),
});
export type ReportPage = Static<typeof ReportPageSchema>;

/**
 * `GET /dashboard/sla` (only when the SLA plugin is loaded): the share of tickets that met each SLA target
 * (first response, resolution), over the tickets whose SLA clock started in the range, in all, per queue and per
 * attendant (first response: who wrote it; resolution: who closed it; userId 0 = nobody). See `SlaShare`
 * (`total`, `met`, `breached`, `running`, `share` percent or null) in `@atendo/plugin-sla/contract`.
 */
export const DashboardSlaSchema = Type.Object({
  totals: Type.Object({ firstResponse: SlaShareSchema, resolution: SlaShareSchema }),
  queues: Type.Array(Type.Object({ queueId: Type.Integer(), name: Type.String(), color: Type.String(), firstResponse: SlaShareSchema, resolution: SlaShareSchema })),
  attendants: Type.Array(Type.Object({ userId: Type.Integer(), name: Type.String(), firstResponse: SlaShareSchema, resolution: SlaShareSchema })),
});
export type DashboardSla = Static<typeof DashboardSlaSchema>;
/** NPS classes of a rate 0..10: detractor 0-6, passive 7-8, promoter 9-10. */
export const NPS_CLASSES = ['promoter', 'passive', 'detractor'] as const;
export type NpsClass = (typeof NPS_CLASSES)[number];

/** One answer of `GET /ticket/reports/research` (the research report: the customers' NPS answers). */
export const ResearchAnswerSchema = Type.Object({
  /** The rated ticket. */
  ticketId: Type.Integer(),
  uuid: Type.String(),
  /** The customer's answer, 0..10. */
  rate: Type.Integer(),
  npsClass: Type.Union(NPS_CLASSES.map((c) => Type.Literal(c))),
  /** When the customer answered (ISO-8601). */
  ratedAt: Type.String(),
  /** The ticket's creation and close (ISO-8601; closedAt null when it was reopened since). */
  createdAt: Type.String(),
  closedAt: Type.Union([Type.String(), Type.Null()]),
  contact: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), number: Type.String() }), Type.Null()]),
  queue: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }), Type.Null()]),
  user: Type.Union([Ref, Type.Null()]),
  whatsapp: Type.Union([Ref, Type.Null()]),
});
export type ResearchAnswer = Static<typeof ResearchAnswerSchema>;

/** `GET /ticket/reports/research`: one page of answers, newest first, with totals over every matching answer. */
export const ResearchPageSchema = Type.Object({
  answers: Type.Array(ResearchAnswerSchema),
  count: Type.Integer(),
  hasMore: Type.Boolean(),
  totals: Type.Object({
    answers: Type.Integer(),
    /** Mean rate 0..10, two decimals (null: no answer). */
    average: NullableNum,
    promoters: Type.Integer(),
    passives: Type.Integer(),
    detractors: Type.Integer(),
    /** Percentages 0..100, two decimals. */
    promotersPerc: Num,
    passivesPerc: Num,
    detractorsPerc: Num,
    /** % promoters - % detractors (-100..100, two decimals). */
    npsScore: Num,
  }),
  /** The company's IANA time zone: the days of the range and the times shown are in it. */
  timeZone: Type.String(),
});
export type ResearchPage = Static<typeof ResearchPageSchema>;

/** Period options of the screen (spec 1-platform.md §8) and the moments window in days. */
export const DASHBOARD_PERIODS = [3, 7, 15, 30, 60, 90] as const;
export const MOMENTS_WINDOW_DAYS = 30;

/** Payload of `dashboard.changed`. */
export interface DashboardChangedEvent {
  companyId: number;
}

/**
 * `dashboard.changed`: the dashboard's read model of a company changed (published after the write, by the
 * node that wrote it). Every node drops the company's cached figures on it (a broadcast subscription).
 */
export const dashboardChanged = defineTopic<DashboardChangedEvent>('dashboard.changed', "the dashboard's figures of a company changed");

/**
 * The dashboard service (`dashboard`), for the compliance plugin's anonymization (issue 34 item 2; LGPD art.
 * 18): the read model keeps a copy of each ticket's last message, which is the person's text.
 */
export interface DashboardService {
  /**
   * Inside `trx`: empties the copied last message of the contact's tickets and of `ticketIds` (the tickets
   * plugin's `lastMessageTicketIds`: group tickets whose newest message was the person's). Counts, times and
   * ratings stay, so no figure changes. Answers how many rows were touched.
   */
  anonymizeContact(companyId: number, who: { contactId: number; ticketIds?: number[] }, trx: Knex.Transaction): Promise<number>;
}
/** The typed handle of the `dashboard` service. */
export const dashboardService = defineService<DashboardService>('dashboard');
