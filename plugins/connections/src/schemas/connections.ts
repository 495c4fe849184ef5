import { Nullable, Type, type Static } from '@atendo/sdk';
import { CHANNELS } from '../contract';


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
const NullableString = (maxLength: number) => Nullable(Type.String({ maxLength }));
/** Boolean or null. */
const NullableBoolean = () => Nullable(Type.Boolean());

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

/** `GET /whatsapp/:id/status-history` query: how many changes (1..200, default 50). */
export const StatusHistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});

export const DeletedAnswer = Type.Object({ message: Type.String() });
