/**
 * The connections plugin's contract (import it as `@atendo/plugin-connections/contract`): the `connections`
 * service ref and interface, the connection wire shapes (types and response schemas), the `connection.*` bus
 * topics with their payload, and the plugin's error codes. Types, TypeBox schemas and `define*` calls only:
 * importing it pulls neither fastify nor knex.
 */
import { defineErrors, defineService, defineTopic, Nullable, Type, type Static } from '@atendo/sdk';

// ---------------------------------------------------------------------------------------------------
// Errors

/** Error codes owned by the connections plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  // Codes of the product family's wire (spec 2-tickets.md §8), owned here.
  ERR_NO_OTHER_WHATSAPP: { status: 400, message: 'At least one default connection is required' },
  ERR_WAPP_GREETING_REQUIRED: { status: 400, message: 'Greeting message required when a connection has more than one queue' },
  ERR_NO_DEF_WAPP_FOUND: { status: 404, message: 'No default connection found' },
  ERR_DUPLICATED_TOKEN: { status: 409, message: 'This token is already used by another connection' },
  ERR_DUPLICATED_EXTERNAL_ACCOUNT: { status: 409, message: 'This account is already linked to another connection' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---------------------------------------------------------------------------------------------------
// Wire shapes

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

/** A queue of a connection as answers show it. */
export const ConnectionQueueSchema = Type.Object(
  { id: Type.Integer(), name: Type.String(), color: Type.String(), greetingMessage: Nullable(Type.String()) },
  { additionalProperties: false },
);

/** A queue of `GET /whatsapp/:id` (wire-shapes): the list's fields plus its settings and first-level chatbot options. */
export const ConnectionQueueDetailSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    greetingMessage: Nullable(Type.String()),
    integrationId: Nullable(Type.Integer()),
    fileListId: Nullable(Type.Integer()),
    closeTicket: Type.Boolean(),
    promptId: Nullable(Type.Integer()),
    chatbots: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), greetingMessage: Nullable(Type.String()), closeTicket: Type.Boolean() }, { additionalProperties: false })),
  },
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
/**
 * One connection (`GET /whatsapp/:id`): its queues with their settings and chatbot options, and `prompt`
 * (the AI prompt of `promptId`; null: no prompts plugin is loaded).
 */
export const ConnectionDetailSchema = Type.Object(
  { ...connectionProperties, queues: Type.Array(ConnectionQueueDetailSchema), prompt: Nullable(Type.Object({}, { additionalProperties: true })) },
  { additionalProperties: false },
);
export type ConnectionOut = Static<typeof ConnectionSchema>;

/** A queue of a connection as answers show it. */
export type ConnectionQueue = Static<typeof ConnectionQueueSchema>;
/** A queue of `GET /whatsapp/:id`, with its settings and first-level chatbot options. */
export type ConnectionQueueDetail = Static<typeof ConnectionQueueDetailSchema>;

/**
 * A connection as answers and events show it (wire-shapes "Whatsapp" without its secrets): no `session`,
 * `facebookUserToken` or `tokenMeta` ever; `hasToken` tells whether a Meta token is stored. `token` (the
 * external-API token) is only present where the caller asked for it (admin answers).
 */
export type Connection = Static<typeof ConnectionSchema>;

/** The secrets of a connection, for channel adapters and the external API only (never for answers). */
export interface ConnectionSecrets {
  /** External-API token (30 characters A-Z0-9 when generated). */
  token: string;
  /** Meta access token (Meta channels). */
  facebookUserToken: string | null;
  tokenMeta: string | null;
  /** Baileys auth state (whatsapp channel), as saved by `saveSession`. */
  session: string | null;
}

/** What webhook routing and the external API need to know about a connection. */
export interface ConnectionRef {
  id: number;
  companyId: number;
  channel: Channel;
}

/** A session status change reported by a channel adapter. */
export interface StatusUpdate {
  /** DISCONNECTED, OPENING, qrcode, CONNECTED, TIMEOUT, PAIRING or an import marker (1..50 chars). */
  status: string;
  /** The QR code text to show ('' clears it; the client closes its QR modal on ''). Unchanged when absent. */
  qrcode?: string;
  /** Reconnection attempts so far. Unchanged when absent. */
  retries?: number;
  /** The account's phone number (digits). Unchanged when absent. */
  number?: string;
  /**
   * Why the status changed, when the session manager knows (`connectionLost`, `loggedOut`, `livenessProbe`, ...;
   * at most 100 characters): kept in the status history only.
   */
  reason?: string;
}

/** One status change of a connection (`GET /whatsapp/:id/status-history`). */
export const StatusHistoryEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    /** The status the connection changed to (spec 2-tickets.md §4). */
    status: Type.String(),
    /** The status before (null for the first change recorded). */
    previousStatus: Nullable(Type.String()),
    /** Why, when known: a Baileys `DisconnectReason` name or `livenessProbe`. */
    reason: Nullable(Type.String()),
    /** Reconnection attempts at that moment. */
    retries: Type.Integer(),
    /** When (ISO 8601). */
    createdAt: Type.String(),
  },
  { additionalProperties: false },
);
export type StatusHistoryEntry = Static<typeof StatusHistoryEntrySchema>;

/**
 * The `connections` service: `ctx.services.get(connectionsService)` after declaring `dependsOn: ['connections']`. Every method that takes
 * a `companyId` is scoped to it: ids of another company are unknown. Read methods answer `undefined` for
 * unknown ids; write methods throw AppError 404 ERR_NO_WAPP_FOUND.
 */
export interface ConnectionsService {
  /** One connection (public shape, with queues; no secrets, no token). */
  get(companyId: number, id: number): Promise<Connection | undefined>;
  /**
   * The company's default connection. With `channel`: the default when it is on that channel, else the
   * channel's oldest connection preferring CONNECTED ones; undefined when the company has none there.
   */
  getDefault(companyId: number, channel?: Channel): Promise<Connection | undefined>;
  /** The company's connections ordered by id (public shape). */
  list(companyId: number): Promise<Connection[]>;
  /** The public shape plus the secrets: for channel adapters only, never to be answered to a client. */
  getWithSecrets(companyId: number, id: number): Promise<(Connection & ConnectionSecrets) | undefined>;
  /**
   * Webhook routing: the connection of `channel` whose Meta account id (`facebookPageUserId`: page id,
   * Instagram account id or WhatsApp Cloud phone-number id) is `externalAccountId`, across all companies.
   */
  findByExternalAccount(channel: Channel, externalAccountId: string): Promise<ConnectionRef | undefined>;
  /** External API: the connection whose external-API token is `token`, across all companies. */
  findByApiToken(token: string): Promise<ConnectionRef | undefined>;
  /**
   * Boot-time listing across all companies (for session managers): every connection of `channel` in
   * `status`, ordered by id. Returns references only, no settings or secrets.
   */
  listByChannelStatus(channel: Channel, status: string): Promise<ConnectionRef[]>;
  /**
   * Persists a session status change (and bumps `updatedAt`; a change of `status` also adds a status-history row
   * in the same transaction, with `reason`), then emits `company-{id}-whatsappSession`
   * `{action:'update', session:{id, status, qrcode, retries, updatedAt, number}}` and `company-{id}-whatsapp`
   * `{action:'update', whatsapp}`. Throws 404 ERR_NO_WAPP_FOUND, 400 ERR_VALIDATION for bad values.
   */
  updateStatus(companyId: number, id: number, update: StatusUpdate): Promise<Connection>;
  /**
   * The connection's status changes, newest first (at most `limit`, default 50, 1..200; the newest 200 are
   * kept). Undefined for unknown ids and other companies' ids.
   */
  statusHistory(companyId: number, id: number, limit?: number): Promise<StatusHistoryEntry[] | undefined>;
  /** Stores (or clears with null) the Baileys auth state; no event, `updatedAt` unchanged. 404 ERR_NO_WAPP_FOUND. */
  saveSession(companyId: number, id: number, session: string | null): Promise<void>;
  /** Ids of the existing queues the connection routes to, in queue order; [] for unknown connections. */
  queueIdsOf(companyId: number, id: number): Promise<number[]>;
}

/** The `connections` service ref. */
export const connectionsService = defineService<ConnectionsService>('connections');

// ---------------------------------------------------------------------------------------------------
// Bus topics (published after commit, for the session manager and other plugins to react to)

/** Payload of the `connection.*` bus events. `changed` lists the body keys an update applied. */
export interface ConnectionBusEvent {
  companyId: number;
  id: number;
  channel: Channel;
  changed?: string[];
}

/** A connection was created. */
export const connectionCreated = defineTopic<ConnectionBusEvent>('connection.created', 'a connection was created');
/** A connection's settings changed (`changed`: the body keys applied). */
export const connectionUpdated = defineTopic<ConnectionBusEvent>('connection.updated', "a connection's settings changed");
/** A connection was deleted. */
export const connectionDeleted = defineTopic<ConnectionBusEvent>('connection.deleted', 'a connection was deleted');
/** The three `connection.*` topics (created, updated, deleted), e.g. to subscribe to all of them. */
export const CONNECTION_TOPICS = [connectionCreated, connectionUpdated, connectionDeleted] as const;
