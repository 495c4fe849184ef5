import { createHash, createPrivateKey } from 'node:crypto';
import type { IntegrationType } from '../contract';
import { PermanentError } from '../services/engine';

/** The fields of a Google service-account JSON this type uses. */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
}

/** Parses the stored `jsonContent`; PermanentError when it is not a service account with a usable private key. */
export function serviceAccount(json: string): ServiceAccount {
  let sa: Partial<ServiceAccount>;
  try {
    sa = JSON.parse(json);
  } catch {
    throw new PermanentError('jsonContent is not JSON');
  }
  if (!sa || typeof sa.client_email !== 'string' || typeof sa.private_key !== 'string') throw new PermanentError('jsonContent is not a service account');
  try {
    createPrivateKey(sa.private_key);
  } catch {
    throw new PermanentError('the private key of jsonContent cannot sign');
  }
  return sa as ServiceAccount;
}

/** What this type reads of a detectIntent answer's `queryResult` (Dialogflow ES v2). */
export interface QueryResult {
  fulfillmentText?: string | null;
  fulfillmentMessages?: { text?: { text?: string[] | null } | null }[] | null;
  intent?: { endInteraction?: boolean | null; displayName?: string | null } | null;
}

/** The part of the official `SessionsClient` used here. */
interface Sessions {
  projectAgentSessionPath(project: string, session: string): string;
  detectIntent(request: { session: string; queryInput: { text: { text: string; languageCode: string } } }, options: { timeout: number }): Promise<[{ queryResult?: QueryResult | null }, ...unknown[]]>;
  close(): Promise<void>;
}

/** Milliseconds a detectIntent call may take, gax's own retries of UNAVAILABLE included. */
export const DETECT_INTENT_TIMEOUT_MS = 15_000;
/** Clients kept open (one per distinct service account; the least recently used is closed beyond this). */
const MAX_CLIENTS = 32;
/**
 * gRPC status codes of a refusal that a retry cannot fix (the credentials, the project or the request):
 * INVALID_ARGUMENT 3, NOT_FOUND 5, PERMISSION_DENIED 7, FAILED_PRECONDITION 9, UNIMPLEMENTED 12,
 * UNAUTHENTICATED 16. Others (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, INTERNAL) are retried.
 */
const PERMANENT_CODES = new Set([3, 5, 7, 9, 12, 16]);

/**
 * Dialogflow ES through Google's official client library (`@google-cloud/dialogflow`, SessionsClient),
 * authenticated with the stored service-account JSON (a self-signed JWT per call, so no token endpoint is
 * involved) over its HTTP/1.1 REST transport (`fallback: true`: no gRPC channel to keep per tenant).
 * `apiUrl` is the API's base URL (`INTEGRATIONS_DIALOGFLOW_URL`, https://dialogflow.googleapis.com; an
 * http:// URL reaches a local stand-in in tests). The library loads on first use (it is large), and a
 * client is kept per service account.
 */
export class DialogflowSessions {
  private readonly clients = new Map<string, Promise<Sessions>>();
  private readonly endpoint: { protocol: 'http' | 'https'; apiEndpoint: string; port: number };

  constructor(apiUrl: string) {
    const u = new URL(apiUrl);
    const protocol = u.protocol === 'http:' ? 'http' : 'https';
    this.endpoint = { protocol, apiEndpoint: u.hostname, port: u.port ? Number(u.port) : protocol === 'http' ? 80 : 443 };
  }

  /**
   * Detects the intent of `text` (at most 256 characters, Dialogflow's limit) in session `sessionId` of
   * `projectName`. Throws PermanentError when `jsonContent` is no usable service account or Google refuses
   * the credentials, project or request; another Error (retried by the caller) for a network failure or an outage.
   */
  async detectIntent(jsonContent: string, projectName: string, sessionId: string, text: string, languageCode: string): Promise<QueryResult> {
    const client = await this.client(jsonContent);
    try {
      const [answer] = await client.detectIntent(
        { session: client.projectAgentSessionPath(projectName, sessionId), queryInput: { text: { text: text.slice(0, 256) || '.', languageCode } } },
        { timeout: DETECT_INTENT_TIMEOUT_MS },
      );
      return answer.queryResult ?? {};
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const message = `Dialogflow: ${(err as Error).message}`;
      if (typeof code === 'number' && PERMANENT_CODES.has(code)) throw new PermanentError(message);
      throw new Error(message);
    }
  }

  /** Closes every client (plugin stop). */
  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((c) => c.then((s) => s.close(), () => undefined)));
  }

  private client(jsonContent: string): Promise<Sessions> {
    // Keyed by the stored JSON itself: a hit neither parses it nor checks its key again.
    const key = createHash('sha256').update(jsonContent).digest('hex');
    const hit = this.clients.get(key);
    if (hit) {
      // Most recently used last.
      this.clients.delete(key);
      this.clients.set(key, hit);
      return hit;
    }
    const sa = serviceAccount(jsonContent);
    const made = import('@google-cloud/dialogflow').then(
      ({ SessionsClient }) =>
        new SessionsClient({
          ...this.endpoint,
          fallback: true,
          credentials: { client_email: sa.client_email, private_key: sa.private_key },
          // No user scopes: the library signs its own JWT for the API's audience (no OAuth round trip).
          scopes: [],
          // Node's own fetch: gaxios would otherwise load node-fetch, an ES module, by dynamic import.
          clientOptions: { transporterOptions: { fetchImplementation: fetch } },
        }) as unknown as Sessions,
    );
    made.catch(() => this.clients.delete(key));
    this.clients.set(key, made);
    if (this.clients.size > MAX_CLIENTS) {
      const [oldKey, oldest] = this.clients.entries().next().value as [string, Promise<Sessions>];
      this.clients.delete(oldKey);
      void oldest.then((s) => s.close(), () => undefined);
    }
    return made;
  }
}

/**
 * dialogflow: each customer message goes to Dialogflow ES `detectIntent` (see DialogflowSessions) in a
 * session per ticket (`atendo-{companyId}-{ticketId}`) and language `language` (default pt-BR); the
 * fulfilment texts are sent back (else `fulfillmentText`); an intent that ends the interaction hands the
 * ticket to the queue's humans.
 */
export function dialogflowType(sessions: DialogflowSessions): IntegrationType {
  return {
    type: 'dialogflow',
    async handle(turn, tools) {
      const i = turn.integration;
      const result = await sessions.detectIntent(i.jsonContent, i.projectName, `atendo-${turn.companyId}-${turn.ticket.id}`, turn.message.body, i.language || 'pt-BR');
      const texts = (result.fulfillmentMessages ?? []).flatMap((m) => m.text?.text ?? []).filter((t) => t.trim());
      for (const t of texts.length ? texts : result.fulfillmentText ? [result.fulfillmentText] : []) await tools.say(t);
      if (result.intent?.endInteraction) await tools.handOff({}, `Dialogflow ended the conversation (${result.intent.displayName || 'end'})`);
    },
  };
}
