import { Nullable, Type, type Static } from '@atendo/sdk';

/**
 * TypeBox schemas of the ticket state-machine routes (POST/PUT/DELETE /tickets, /tickets/closeAll,
 * GET /tickets/u/:uuid and /tickets/:id), the ticket log, ticket notes and ticket tags.
 * Wire shapes: wire-shapes.md §4; field rules: spec 2-tickets.md §5.
 */

export const MAX_ID = 2147483647;
/** Longest ticket note (spec: min 2; ours: at most 5,000 characters). */
export const NOTE_MAX = 5000;

/** Integer or null; `''` (old clients' empty inputs) is coerced to null. `nullable` keeps null from being coerced to 0. */
export const NullableId = () => Type.Unsafe<number | null>({ type: 'integer', nullable: true, minimum: 1, maximum: MAX_ID });

const Id = () => Type.Integer({ minimum: 1, maximum: MAX_ID });

export const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false });
export const QueueRef = Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }, { additionalProperties: false });
export const TagRef = Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }, { additionalProperties: false });

/**
 * A serialized ticket (wire TicketL: the row plus contact, queue {id,name,color}, user {id,name}, tags
 * [{id,name,color}], whatsapp {id,name,channel,groupAsTicket}). Extra row columns pass through.
 */
export const TicketSchema = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    status: Type.String(),
    companyId: Type.Integer(),
    contactId: Type.Integer(),
    whatsappId: Nullable(Type.Integer()),
    queueId: Nullable(Type.Integer()),
    userId: Nullable(Type.Integer()),
    unreadMessages: Type.Integer(),
    lastMessage: Nullable(Type.String()),
    isGroup: Type.Boolean(),
    isBot: Type.Boolean(),
    channel: Type.String(),
    amountUsedBotQueues: Type.Integer(),
    promptId: Nullable(Type.Integer()),
    useIntegration: Type.Boolean(),
    integrationId: Nullable(Type.Integer()),
    userRating: Nullable(Type.Integer()),
    closedAt: Nullable(Type.String()),
    acceptedAt: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    contact: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), number: Type.String() }, { additionalProperties: true })),
    queue: Nullable(QueueRef),
    user: Nullable(UserRef),
    tags: Type.Array(TagRef),
    whatsapp: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), channel: Type.String(), groupAsTicket: Type.String() }, { additionalProperties: false })),
    /** The ticket's company {id, name} (wire `GET /tickets/u/:uuid`, `PUT /tickets/:id`). */
    company: Type.Optional(Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false }))),
    /** The queue integration {id, name}; null (no integrations plugin is loaded). */
    queueIntegration: Type.Optional(Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false }))),
  },
  { additionalProperties: true },
);

/** Body of POST /tickets. `userId`, `status` and `companyId` of old clients are accepted and ignored. */
export const CreateTicketBody = Type.Object({
  contactId: Id(),
  queueId: Type.Optional(NullableId()),
  whatsappId: Type.Optional(NullableId()),
  userId: Type.Optional(Type.Unsafe<number | string | null>({ type: ['integer', 'string', 'null'], maxLength: 20 })),
  status: Type.Optional(Type.String({ maxLength: 20 })),
  companyId: Type.Optional(Type.Unsafe<number | string | null>({ type: ['integer', 'string', 'null'], maxLength: 20 })),
});
export type CreateTicketBody = Static<typeof CreateTicketBody>;

export const WRITABLE_STATUSES = ['pending', 'open', 'group', 'closed'] as const;

/**
 * Body of PUT /tickets/:id (every key optional; absent keys are left unchanged). `lastMessage` is accepted
 * and ignored (the server owns it).
 */
export const UpdateTicketBody = Type.Object({
  status: Type.Optional(Type.Union(WRITABLE_STATUSES.map((s) => Type.Literal(s)))),
  userId: Type.Optional(NullableId()),
  queueId: Type.Optional(NullableId()),
  sendFarewellMessage: Type.Optional(Type.Boolean()),
  amountUsedBotQueues: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  promptId: Type.Optional(NullableId()),
  useIntegration: Type.Optional(Type.Boolean()),
  integrationId: Type.Optional(NullableId()),
  isBot: Type.Optional(Type.Boolean()),
  lastMessage: Type.Optional(Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength: 100000 })),
});
export type UpdateTicketBody = Static<typeof UpdateTicketBody>;

/** Body of POST /tickets/closeAll: `status` (default both open and pending), `queueIds` (0 = no queue). */
export const CloseAllBody = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('pending')])),
  queueIds: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: MAX_ID }), { maxItems: 1000 })),
});
export type CloseAllBody = Static<typeof CloseAllBody>;
export const CloseAllAnswer = Type.Object({ closed: Type.Integer() });

export const UuidParams = Type.Object({
  uuid: Type.String({ maxLength: 36, pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
});
export type UuidParams = Static<typeof UuidParams>;

export const DeletedAnswer = Type.Object({ message: Type.String() });

/** One entry of GET /tickets-log/:id. */
export const TicketLogSchema = Type.Object(
  { id: Type.Integer(), type: Type.String(), createdAt: Type.String(), user: Nullable(UserRef), queue: Nullable(QueueRef) },
  { additionalProperties: false },
);

/** A ticket note as answers show it. */
export const NoteSchema = Type.Object(
  { id: Type.Integer(), note: Type.String(), createdAt: Type.String(), user: Nullable(UserRef), ticketId: Type.Integer(), contactId: Type.Integer() },
  { additionalProperties: false },
);
export const CreateNoteBody = Type.Object({
  note: Type.String({ minLength: 2, maxLength: NOTE_MAX }),
  ticketId: Id(),
  contactId: Id(),
});
export type CreateNoteBody = Static<typeof CreateNoteBody>;
export const ListNotesQuery = Type.Object({ ticketId: Id(), contactId: Type.Optional(Id()) });
export type ListNotesQuery = Static<typeof ListNotesQuery>;

export const TicketIdParams = Type.Object({ ticketId: Id() });
export type TicketIdParams = Static<typeof TicketIdParams>;
export const TicketTagParams = Type.Object({ ticketId: Id(), tagId: Id() });
export type TicketTagParams = Static<typeof TicketTagParams>;
export const TicketTagAnswer = Type.Object({ ticketId: Type.Integer(), tagId: Type.Integer() });
export const TicketTagsRemovedAnswer = Type.Object({ message: Type.String(), removed: Type.Integer() });
