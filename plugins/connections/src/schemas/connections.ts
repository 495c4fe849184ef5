import { Type, type Static, type TSchema } from '@atendo/sdk';

/** Channels a connection can belong to (wire-shapes "Whatsapp".channel). */
export const CHANNELS = ['whatsapp', 'whatsappapi', 'facebook', 'instagram'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Channels served through Meta's Graph API: they need a page / account id and an access token. */
export const META_CHANNELS: readonly Channel[] = ['whatsappapi', 'facebook', 'instagram'];

/**
 * Connection statuses (spec 2-tickets.md §4 "Connection status"). The session manager may also store
 * import-related markers; any string of at most 50 characters is accepted by `updateStatus`.
 */
export const CONNECTION_STATUSES = ['DISCONNECTED', 'OPENING', 'qrcode', 'CONNECTED', 'TIMEOUT', 'PAIRING'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const MAX_ID = 2147483647;
/** Upper bound of every minutes field: one year. */
export const MAX_MINUTES = 525_600;
/** Upper bound of the bot-repetition counters. */
export const MAX_BOT_USES = 1000;
/** Longest text accepted in any message field. */
export const MAX_TEXT = 5000;

/**
 * A number field of an old form: an integer, a string of digits (`'15'`, what text inputs send), `''` or
 * null (both "none"). Bodies are not type-coerced by the kernel, so the string forms are declared here and
 * converted (and bounded) by the service.
 */
const LooseInteger = (opts: { minimum: number; maximum: number }) =>
  Type.Unsafe<number | string | null>({ anyOf: [{ type: 'integer', ...opts }, { type: 'string', pattern: '^[0-9]{0,10}$' }, { type: 'null' }] });
/** String or null, at most `maxLength` characters. */
const NullableString = (maxLength: number) => Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength });
/** Boolean or null. */
const NullableBoolean = () => Type.Unsafe<boolean | null>({ type: 'boolean', nullable: true });
/** Nullable variant of any schema (response side). */
const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });

/** One weekday of a connection's service hours; times are `HH:mm` or `''` (checked in code). */
export const ScheduleItem = Type.Object(
  {
    weekday: Type.String({ maxLength: 30 }),
    weekdayEn: Type.String({ maxLength: 30 }),
    startTimeA: Type.Optional(NullableString(5)),
    endTimeA: Type.Optional(NullableString(5)),
    startTimeB: Type.Optional(NullableString(5)),
    endTimeB: Type.Optional(NullableString(5)),
  },
  { additionalProperties: false },
);

/**
 * The writable fields of POST/PUT /whatsapp (wire-shapes "POST /whatsapp"). Keys old clients send back
 * from a GET (`id`, `status`, `qrcode`, `queues`, `companyId`, `session`, ...) are accepted and ignored.
 * Number fields take integers or digit strings; minutes fields: `''`/null mean 0; counters: `''`/null mean
 * the default 3; id fields: `''`/null/0 mean none. JSON bodies are otherwise not type-coerced.
 */
const ConnectionFields = {
  name: Type.String({ minLength: 2, maxLength: 50 }),
  channel: Type.Optional(Type.Union(CHANNELS.map((c) => Type.Literal(c)))),
  isDefault: Type.Optional(NullableBoolean()),
  allowGroup: Type.Optional(NullableBoolean()),
  provider: Type.Optional(NullableString(20)),
  greetingMessage: Type.Optional(NullableString(MAX_TEXT)),
  complationMessage: Type.Optional(NullableString(MAX_TEXT)),
  outOfHoursMessage: Type.Optional(NullableString(MAX_TEXT)),
  ratingMessage: Type.Optional(NullableString(MAX_TEXT)),
  farewellMessage: Type.Optional(NullableString(MAX_TEXT)),
  inactiveMessage: Type.Optional(NullableString(MAX_TEXT)),
  expiresInactiveMessage: Type.Optional(NullableString(MAX_TEXT)),
  /** External-API token: 16..100 characters of A-Z, a-z, 0-9, `_`, `-`; empty -> generated (create) or kept (update). */
  token: Type.Optional(NullableString(100)),
  maxUseBotQueues: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_BOT_USES })),
  maxUseBotQueuesNPS: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_BOT_USES })),
  expiresTicket: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_MINUTES })),
  expiresTicketNPS: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_MINUTES })),
  timeInactiveMessage: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_MINUTES })),
  timeUseBotQueues: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_MINUTES })),
  timeSendQueue: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_MINUTES })),
  timeCreateNewTicket: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_MINUTES })),
  sendIdQueue: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_ID })),
  /** `'0'` or `'1'` (0 and 1 accepted). */
  whenExpiresTicket: Type.Optional(Type.Unsafe<string | number | null>({ anyOf: [{ type: 'string', maxLength: 1 }, { type: 'integer', minimum: 0, maximum: 1 }, { type: 'null' }] })),
  groupAsTicket: Type.Optional(NullableString(10)),
  greetingMediaAttachment: Type.Optional(NullableString(255)),
  importOldMessages: Type.Optional(NullableString(40)),
  importRecentMessages: Type.Optional(NullableString(40)),
  importOldMessagesGroups: Type.Optional(NullableBoolean()),
  closedTicketsPostImported: Type.Optional(NullableBoolean()),
  integrationId: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_ID })),
  promptId: Type.Optional(LooseInteger({ minimum: 0, maximum: MAX_ID })),
  queueIds: Type.Optional(Type.Unsafe<number[] | null>({ type: 'array', nullable: true, maxItems: 100, items: { type: 'integer', minimum: 1, maximum: MAX_ID } })),
  schedules: Type.Optional(Type.Unsafe<Static<typeof ScheduleItem>[] | null>({ type: 'array', nullable: true, maxItems: 7, items: ScheduleItem })),
  facebookUserId: Type.Optional(NullableString(100)),
  /** Meta channels: the page / Instagram account / phone-number id webhooks are routed by (digits). */
  facebookPageUserId: Type.Optional(NullableString(64)),
  /** Meta channels: the access token. Write-only: answers carry `hasToken` instead. */
  facebookUserToken: Type.Optional(NullableString(4096)),
  /** Meta channels: a second Meta secret (write-only). */
  tokenMeta: Type.Optional(NullableString(4096)),
};

export const CreateConnectionBody = Type.Object(ConnectionFields);
export const UpdateConnectionBody = Type.Partial(Type.Object(ConnectionFields));
export type ConnectionBody = Partial<Static<typeof CreateConnectionBody>>;

/** `GET /whatsapp` query: `session` and `companyId` of old clients are accepted and ignored. */
export const ListConnectionsQuery = Type.Object({
  session: Type.Optional(Type.String({ maxLength: 20 })),
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});

/** A queue of a connection as answers show it. */
export const ConnectionQueueSchema = Type.Object(
  { id: Type.Integer(), name: Type.String(), color: Type.String(), greetingMessage: Nullable(Type.String()) },
  { additionalProperties: false },
);

const connectionProperties = {
  id: Type.Integer(),
  companyId: Type.Integer(),
  name: Type.String(),
  channel: Type.String(),
  status: Type.String(),
  qrcode: Type.String(),
  retries: Type.Integer(),
  number: Type.String(),
  battery: Nullable(Type.String()),
  plugged: Nullable(Type.Boolean()),
  isDefault: Type.Boolean(),
  allowGroup: Type.Boolean(),
  provider: Type.String(),
  greetingMessage: Nullable(Type.String()),
  complationMessage: Nullable(Type.String()),
  outOfHoursMessage: Nullable(Type.String()),
  ratingMessage: Nullable(Type.String()),
  farewellMessage: Nullable(Type.String()),
  inactiveMessage: Nullable(Type.String()),
  expiresInactiveMessage: Nullable(Type.String()),
  maxUseBotQueues: Type.Integer(),
  maxUseBotQueuesNPS: Type.Integer(),
  expiresTicket: Type.Integer(),
  expiresTicketNPS: Type.Integer(),
  timeInactiveMessage: Type.Integer(),
  timeUseBotQueues: Type.Integer(),
  timeSendQueue: Type.Integer(),
  sendIdQueue: Nullable(Type.Integer()),
  whenExpiresTicket: Type.String(),
  timeCreateNewTicket: Type.Integer(),
  groupAsTicket: Type.String(),
  greetingMediaAttachment: Nullable(Type.String()),
  importOldMessages: Nullable(Type.String()),
  importRecentMessages: Nullable(Type.String()),
  importOldMessagesGroups: Nullable(Type.Boolean()),
  closedTicketsPostImported: Nullable(Type.Boolean()),
  statusImportMessages: Nullable(Type.String()),
  integrationId: Nullable(Type.Integer()),
  promptId: Nullable(Type.Integer()),
  schedules: Type.Array(Type.Object({}, { additionalProperties: true })),
  facebookUserId: Nullable(Type.String()),
  facebookPageUserId: Nullable(Type.String()),
  /** True when a Meta access token is stored (the token itself is never answered). */
  hasToken: Type.Boolean(),
  /** The external-API token: only in admin answers of GET /whatsapp/:id, POST and PUT. */
  token: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  queues: Type.Array(ConnectionQueueSchema),
};

/**
 * A connection as every answer and event shows it. `additionalProperties: false` makes the serializer drop
 * anything else, so stored secrets (session, facebookUserToken, tokenMeta) cannot leak even by mistake.
 */
export const ConnectionSchema = Type.Object(connectionProperties, { additionalProperties: false });
export type ConnectionOut = Static<typeof ConnectionSchema>;

export const DeletedAnswer = Type.Object({ message: Type.String() });
