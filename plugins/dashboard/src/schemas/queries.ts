import { BoolLike, IntLike, Type, type Static } from '@atendo/sdk';

const Day = Type.String({ maxLength: 30, description: 'YYYY-MM-DD (a longer ISO date-time is cut to its date)' });
const IdList = Type.String({ maxLength: 2000, description: 'JSON array of ids ([1,2]) or a comma list (1,2)' });

/**
 * Query of `GET /dashboard` and the chart routes: `days` (1..366, the last days up to today) or a range of
 * days: `date_from`/`date_to` (GET /dashboard) or `initialDate`/`finalDate` (the chart routes); neither:
 * the current month. Days are the company's time zone.
 */
export const RangeQuery = Type.Object({
  days: Type.Optional(IntLike({ minimum: 0, maximum: 100000 })),
  date_from: Type.Optional(Day),
  date_to: Type.Optional(Day),
  initialDate: Type.Optional(Day),
  finalDate: Type.Optional(Day),
});
export type RangeQuery = Static<typeof RangeQuery>;

/** Query of `GET /dashboard/moments` (spec 2-tickets.md: status, showAll, queueIds, dateStart, dateEnd, userId). */
export const MomentsQuery = Type.Object({
  /** A status or a list (JSON or comma): default open and pending. */
  status: Type.Optional(Type.String({ maxLength: 200 })),
  /** Admins only: every queue instead of the caller's queues (plus "no queue"). */
  showAll: Type.Optional(BoolLike()),
  queueIds: Type.Optional(IdList),
  dateStart: Type.Optional(Day),
  dateEnd: Type.Optional(Day),
  userId: Type.Optional(IntLike({ minimum: 1 })),
});
export type MomentsQuery = Static<typeof MomentsQuery>;

/** Query of `GET /ticket/reports`. */
export const ReportQuery = Type.Object({
  ...RangeQuery.properties,
  /** Queues (0: without a queue). */
  queueIds: Type.Optional(IdList),
  userIds: Type.Optional(IdList),
  /** Connections (`whatsappIds` on the wire). */
  whatsappIds: Type.Optional(IdList),
  /** A status or a list (JSON or comma) of ticket statuses. */
  status: Type.Optional(Type.String({ maxLength: 200 })),
  /** true: group conversations only (the group attendance report); false: 1:1 conversations only; absent: both. */
  isGroup: Type.Optional(BoolLike()),
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  /** Rows per page, 1..500 (default 50). */
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  // The names the product family's report page sends (GridReport): the same filters.
  /** = date_from / initialDate. */
  dateFrom: Type.Optional(Day),
  /** = date_to / finalDate. */
  dateTo: Type.Optional(Day),
  /** = pageNumber. */
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
  /** = userIds. */
  users: Type.Optional(IdList),
  /** = whatsappIds. */
  whatsappId: Type.Optional(IdList),
});
export type ReportQuery = Static<typeof ReportQuery>;

/**
 * Query of `GET /ticket/reports/research` (the customers' NPS answers): the range (as `GET /ticket/reports`:
 * `initialDate`/`finalDate`, `date_from`/`date_to` or `days`; none: the current month) is over the days the
 * customers answered, in the company's time zone.
 */
export const ResearchQuery = Type.Object({
  ...RangeQuery.properties,
  /** Queues (0: without a queue). */
  queueIds: Type.Optional(IdList),
  userIds: Type.Optional(IdList),
  /** Connections. */
  whatsappIds: Type.Optional(IdList),
  /** An NPS class or a list (JSON or comma) of them: promoter (9-10), passive (7-8), detractor (0-6). */
  npsClass: Type.Optional(Type.String({ maxLength: 100 })),
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  /** Answers per page, 1..500 (default 50). */
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
export type ResearchQuery = Static<typeof ResearchQuery>;
