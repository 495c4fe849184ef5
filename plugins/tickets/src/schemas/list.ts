import { Nullable, Type, type Static, type TSchema } from '@atendo/sdk';
import { ContactSchema, ContactTagSchema } from '@atendo/plugin-contacts/contract';
import { TICKET_STATUSES } from '../model';
import { MAX_ID, QueueRef, UserRef } from './tickets';

/**
 * TypeBox schemas of the ticket lists: GET /tickets (the ticket manager's tabs and search) and
 * GET /ticket/kanban. Wire shapes: wire-shapes.md §4 "GET /tickets", "GET /ticket/kanban".
 *
 * Array parameters travel as JSON strings (`queueIds=[1,2]`, the product family's client) or as repeated
 * keys (`queueIds=1&queueIds=2`). The route's `preValidation` hook (`parseJsonArrayParams`) turns a JSON
 * string into an array BEFORE validation, so the arrays below are validated item by item by the schema:
 * malformed JSON, non-arrays, wrong item types and too many items answer 400 ERR_VALIDATION.
 */

/** Tickets per page of both lists (the product family's page size). */
export const LIST_PAGE_SIZE = 40;
/** Most items an array parameter may carry. */
export const MAX_ARRAY_PARAM = 200;

/** The ticket manager's tabs (`status` parameter). */
export const LIST_TABS = ['open', 'pending', 'closed', 'group', 'search'] as const;
export type ListTab = (typeof LIST_TABS)[number];

const IdArray = (what: string, minimum = 1) =>
  Type.Array(Type.Integer({ minimum, maximum: MAX_ID }), {
    maxItems: MAX_ARRAY_PARAM,
    description: `${what}: a JSON number[] in one parameter ("[1,2]") or the parameter repeated`,
  });

/** `YYYY-MM-DD`, a real calendar day; the day is taken in America/Sao_Paulo (see LIST_TIME_ZONE). */
const Day = (description: string) => Type.String({ format: 'date', maxLength: 10, description });

/** The list parameters GET /tickets and GET /ticket/kanban share. */
const CommonListParams = {
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1, description: '1-based page (40 tickets a page)' })),
  searchParam: Type.Optional(Type.String({ maxLength: 200, description: 'Free text: contact name, contact number digits, message bodies' })),
  showAll: Type.Optional(Type.Boolean({ description: "'true' shows every visible ticket; honoured only for admins and allTicket users" })),
  queueIds: Type.Optional(IdArray('Queues to narrow to (never widens what the caller may see; 0 = the "no queue" pseudo-queue, always included)', 0)),
  tags: Type.Optional(IdArray('Ticket tags (a ticket must carry every one)')),
  users: Type.Optional(IdArray('Assigned users (admins only; ignored for other profiles)')),
  withUnreadMessages: Type.Optional(Type.Boolean({ description: "'true': only tickets with unread messages" })),
  date: Type.Optional(Day('Only tickets last updated on this day')),
  updatedAt: Type.Optional(Day('Same as `date`')),
  dateStart: Type.Optional(Day('Only tickets last updated on or after this day')),
  dateEnd: Type.Optional(Day('Only tickets last updated on or before this day')),
};

/** Query of GET /tickets. Unknown parameters (old clients' extras) are ignored. */
export const ListTicketsQuery = Type.Object({
  ...CommonListParams,
  status: Type.Optional(Type.Union(LIST_TABS.map((s) => Type.Literal(s)), { description: 'Tab; absent: active tickets (open, pending, group)' })),
  whatsapps: Type.Optional(IdArray('Connections')),
  whatsappIds: Type.Optional(IdArray('Connections (alias of `whatsapps`)')),
  statusFilter: Type.Optional(
    Type.Array(Type.Union(TICKET_STATUSES.map((s) => Type.Literal(s))), { maxItems: TICKET_STATUSES.length * 2, description: 'Statuses of the search tab: a JSON string[] or the parameter repeated' }),
  ),
});
export type ListTicketsQuery = Static<typeof ListTicketsQuery>;

/**
 * Query of GET /ticket/kanban (the client also sends `teste=true`, ignored). `lane` narrows to one lane of
 * the board, so each lane pages and counts on its own: 0 = the default lane (tickets with no kanban tag), a
 * tag id = the tickets linked to that tag.
 */
export const KanbanQuery = Type.Object({
  ...CommonListParams,
  lane: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'One lane: 0 = tickets with no kanban tag (the default lane), else a kanban tag id' })),
});
export type KanbanQuery = Static<typeof KanbanQuery>;

/** Every parameter that may arrive as a JSON array string. */
export const JSON_ARRAY_PARAMS = ['queueIds', 'tags', 'users', 'whatsapps', 'whatsappIds', 'statusFilter'] as const;

const NullableInt = () => Nullable(Type.Integer());
const NullableText = () => Nullable(Type.String());

/**
 * A ticket of the lists (wire-shapes §4 TicketL): every `tickets` column, plus `contact` (with its tags),
 * `queue` {id, name, color}, `user` {id, name}, `tags` [{id, name, color}] and `whatsapp` {id, name,
 * channel, groupAsTicket}. The properties are enumerated (the response serializer is then about twice as
 * fast as with free-form objects); keys added later to the row still pass (`additionalProperties`).
 */
export const TicketListItem = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    status: Type.String(),
    companyId: Type.Integer(),
    contactId: Type.Integer(),
    whatsappId: NullableInt(),
    queueId: NullableInt(),
    userId: NullableInt(),
    unreadMessages: Type.Integer(),
    lastMessage: NullableText(),
    isGroup: Type.Boolean(),
    isBot: Type.Boolean(),
    channel: Type.String(),
    fromMe: Type.Boolean(),
    amountUsedBotQueues: Type.Integer(),
    amountUsedBotQueuesNPS: Type.Integer(),
    promptId: NullableInt(),
    useIntegration: Type.Boolean(),
    integrationId: NullableInt(),
    imported: Type.Boolean(),
    isOutOfHour: Type.Boolean(),
    sendInactiveMessage: Type.Boolean(),
    lgpdSendMessageAt: NullableText(),
    lgpdAcceptedAt: NullableText(),
    userRating: NullableInt(),
    closedAt: NullableText(),
    acceptedAt: NullableText(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    contact: Nullable(Type.Object({ ...ContactSchema.properties, tags: Type.Array(ContactTagSchema) }, { additionalProperties: false })),
    queue: Nullable(QueueRef),
    user: Nullable(UserRef),
    tags: Type.Array(QueueRef),
    whatsapp: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), channel: Type.String(), groupAsTicket: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: true },
) as TSchema;

/** Per-tab badge counts (active tickets the caller sees, with the same filters). */
export const TabCounts = Type.Object({ open: Type.Integer(), pending: Type.Integer(), group: Type.Integer() }, { additionalProperties: false });

/**
 * Answer of GET /tickets: `tickets` (TicketL, newest activity first), `count` (matching tickets, exact up
 * to 10,000 then capped; for a text search a lower bound), `hasMore` (another page exists), `counts`.
 */
export const ListTicketsAnswer = Type.Object({
  tickets: Type.Array(TicketListItem),
  count: Type.Integer(),
  hasMore: Type.Boolean(),
  counts: TabCounts,
});
export type ListTicketsAnswer = Static<typeof ListTicketsAnswer>;

/** Answer of GET /ticket/kanban: open and pending tickets with their tags (kanban lanes), paged like the list. */
export const KanbanAnswer = Type.Object({
  tickets: Type.Array(TicketListItem),
  count: Type.Integer(),
  hasMore: Type.Boolean(),
});
export type KanbanAnswer = Static<typeof KanbanAnswer>;
