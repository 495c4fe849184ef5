/**
 * The integrations plugin's contract (import it as `@atendo/plugin-integrations/contract`): the queue
 * integration wire shape, its socket event, the `integrations.types` extension point (a third party adds an
 * integration type with no change here), the job names and the plugin's error codes.
 * Types and `define*` calls only: importing it pulls neither fastify nor knex.
 */
import { defineErrors, defineExtensionPoint, defineJob, defineService, Type, type Static } from '@atendo/sdk';
import type { ContactSnapshot, InboundMessageSnapshot, TicketSnapshot } from '@atendo/plugin-tickets/contract';

export const errors = defineErrors({
  ERR_NO_INTEGRATION_FOUND: { status: 404, message: 'Queue integration not found' },
  ERR_INTEGRATION_URL_NOT_ALLOWED: { status: 400, message: 'The integration URL must be a public http(s) address' },
  ERR_INTEGRATION_TEST_FAILED: { status: 400, message: 'The integration did not answer the test' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** The built-in integration types (spec "Integration types"); contributed types add to them. */
export const BUILTIN_INTEGRATION_TYPES = ['dialogflow', 'n8n', 'webhook', 'typebot'] as const;
/** Dialogflow languages (spec "Integration languages"). */
export const INTEGRATION_LANGUAGES = ['pt-BR', 'en', 'es'] as const;

/**
 * A queue integration as every answer and event shows it (spec "Queue integration"). Secrets never appear:
 * `jsonContent` (Dialogflow's service-account JSON) is answered as '' with `hasJsonContent`; the webhook
 * signing secret only as `secretHint` (its last 4 characters), except once, in full, as `secret` in the
 * answer of the POST that generated it.
 */
export const QueueIntegrationSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    type: Type.String(),
    name: Type.String(),
    projectName: Type.String(),
    jsonContent: Type.String(),
    hasJsonContent: Type.Boolean(),
    language: Type.String(),
    urlN8N: Type.String(),
    typebotSlug: Type.String(),
    /** Minutes of silence after which a Typebot session restarts. */
    typebotExpires: Type.Integer(),
    /** Milliseconds between Typebot bubbles. */
    typebotDelayMessage: Type.Integer(),
    typebotKeywordFinish: Type.String(),
    typebotKeywordRestart: Type.String(),
    typebotUnknownMessage: Type.String(),
    typebotRestartMessage: Type.String(),
    secretHint: Type.String(),
    secret: Type.Optional(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type QueueIntegration = Static<typeof QueueIntegrationSchema>;

/** The socket.io event of the company's integrations: `{action: 'create'|'update', queueIntegration}` / `{action: 'delete', integrationId}`. */
export const queueIntegrationEvent = (companyId: number) => `company-${companyId}-queueIntegration`;

/** A stored integration with its secrets, as an integration type's handler gets it (never answered). */
export interface IntegrationRecord extends Omit<QueueIntegration, 'secret' | 'secretHint' | 'hasJsonContent'> {
  secret: string;
}

/** What an integration type's handler may do with the ticket it handles. */
export interface IntegrationTools {
  /** Sends a text to the customer through the tickets outbound path (as the handler `integrations`). */
  say(text: string): Promise<void>;
  /** Sends a media file at a public URL (downloaded SSRF-safely, size-capped), else its URL as text. */
  sayMedia(url: string, caption?: string): Promise<void>;
  /**
   * Hands the ticket back: to a user (open), else to a queue (default the ticket's) for its humans
   * (pending); clears `useIntegration`. `reason` goes into the ticket log.
   */
  handOff(to: { queueId?: number | null; userId?: number | null }, reason: string): Promise<void>;
  /** Closes the ticket (no farewell). */
  close(reason: string): Promise<void>;
  /**
   * An HTTP call that refuses private addresses (unless allow-listed by INTEGRATIONS_ALLOW_HOSTS) and
   * redirects, with the plugin's timeout and a 1 MB answer cap. Network errors and timeouts throw.
   */
  http(url: string, init?: HttpRequest): Promise<HttpAnswer>;
  /** Per-ticket state of this integration (e.g. a session id and its expiry). */
  session: {
    get(): Promise<{ externalId: string | null; expiresAt: Date | null; state: Record<string, unknown> } | undefined>;
    set(externalId: string | null, expiresAt: Date | null, state?: Record<string, unknown>): Promise<void>;
  };
  /** Milliseconds to pause (bounded; for delays between bubbles). */
  pause(ms: number): Promise<void>;
}

/** A request of `IntegrationTools.http`: a JSON `json` body sets the content type. */
export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  json?: unknown;
}
/** An answer of `IntegrationTools.http`. */
export interface HttpAnswer {
  status: number;
  ok: boolean;
  contentType: string;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** One customer message for an integration type. */
export interface IntegrationTurn {
  companyId: number;
  integration: IntegrationRecord;
  ticket: TicketSnapshot;
  contact: ContactSnapshot;
  message: InboundMessageSnapshot;
  /** Attempt of this turn (1-based) and attempts in all: a throw retries with backoff, the last hands over. */
  attempt: number;
  maxAttempts: number;
}

/**
 * An integration type, contributed to `integrationTypes` by a plugin with `integrations` in its
 * `dependsOn`: the CRUD accepts its `type`, and each customer message of a ticket handled by an
 * integration of that type runs `handle` in a job (retried with backoff when it throws; after the last
 * attempt the ticket goes to its queue's humans with a note saying why).
 */
export interface IntegrationType {
  /** The `type` value (lower-case letters, digits and dashes; unique). */
  type: string;
  /** Checks a body before it is stored (throw AppError ERR_VALIDATION); optional. */
  validate?(body: Record<string, unknown>): void;
  handle(turn: IntegrationTurn, tools: IntegrationTools): Promise<void>;
}

/** Extension point `integrations.types`: the integration types besides the built-in ones. */
export const integrationTypes = defineExtensionPoint<IntegrationType>('integrations.types');

/**
 * The job draining a ticket's waiting customer messages through its integration, oldest first, one at a
 * time (keyed by ticket).
 */
export interface IntegrationTurnData {
  companyId: number;
  ticketId: number;
}
export const integrationTurnJob = defineJob<IntegrationTurnData>('integrations.turn');

/** One waiting customer message of a ticket (a row of `integrations_inbox`). */
export interface IntegrationInboxTurn {
  ticket: TicketSnapshot;
  contact: ContactSnapshot;
  message: InboundMessageSnapshot;
}

/** The `integrations` service: read access to the company's integrations (no secrets). */
export interface IntegrationsService {
  /** One integration (public shape), or undefined. */
  get(companyId: number, id: number): Promise<QueueIntegration | undefined>;
}
export const integrationsService = defineService<IntegrationsService>('integrations');
