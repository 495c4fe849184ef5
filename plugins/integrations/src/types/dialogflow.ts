import { createSign } from 'node:crypto';
import type { IntegrationTools, IntegrationType } from '../contract';
import { PermanentError } from '../services/engine';

/** The fields of a Google service-account JSON this type uses. */
interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri?: string;
}

const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/dialogflow';
const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** Parses the stored `jsonContent`; PermanentError when it is not a service account. */
export function serviceAccount(json: string): ServiceAccount {
  let sa: Partial<ServiceAccount>;
  try {
    sa = JSON.parse(json);
  } catch {
    throw new PermanentError('jsonContent is not JSON');
  }
  if (typeof sa.client_email !== 'string' || typeof sa.private_key !== 'string') throw new PermanentError('jsonContent is not a service account');
  return sa as ServiceAccount;
}

/**
 * An OAuth access token for the service account (the JWT-bearer grant, RS256-signed with its private key,
 * at its `token_uri`). Throws on a refused grant.
 */
export async function accessToken(sa: ServiceAccount, http: IntegrationTools['http'], now = Date.now()): Promise<string> {
  const tokenUri = sa.token_uri || DEFAULT_TOKEN_URI;
  const iat = Math.floor(now / 1000);
  const unsigned = `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${b64url(JSON.stringify({ iss: sa.client_email, scope: SCOPE, aud: tokenUri, iat, exp: iat + 3600 }))}`;
  let sig: string;
  try {
    sig = createSign('RSA-SHA256').update(unsigned).sign(sa.private_key, 'base64url');
  } catch {
    throw new PermanentError('the private key of jsonContent cannot sign');
  }
  const res = await http(tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${sig}` }).toString(),
  });
  const token = (res.json as { access_token?: unknown } | undefined)?.access_token;
  if (res.status >= 500) throw new Error(`token endpoint answered ${res.status}`);
  if (!res.ok || typeof token !== 'string') throw new PermanentError(`Google refused the credentials (${res.status})`);
  return token;
}

interface QueryResult {
  fulfillmentText?: string;
  fulfillmentMessages?: { text?: { text?: string[] } }[];
  intent?: { endInteraction?: boolean; displayName?: string };
  diagnosticInfo?: { end_conversation?: boolean };
}

/** Detects the intent of `text` in the session `sessionId` (Dialogflow ES v2 REST). */
export async function detectIntent(baseUrl: string, projectId: string, sessionId: string, text: string, languageCode: string, token: string, http: IntegrationTools['http']): Promise<QueryResult> {
  const url = `${baseUrl.replace(/\/+$/, '')}/v2/projects/${encodeURIComponent(projectId)}/agent/sessions/${encodeURIComponent(sessionId)}:detectIntent`;
  const res = await http(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, json: { queryInput: { text: { text: text.slice(0, 256) || '.', languageCode } } } });
  if (res.status >= 500 || res.status === 429) throw new Error(`Dialogflow answered ${res.status}`);
  if (!res.ok) throw new PermanentError(`Dialogflow answered ${res.status}`);
  return ((res.json as { queryResult?: QueryResult } | undefined)?.queryResult ?? {}) as QueryResult;
}

/**
 * dialogflow: each customer message goes to Dialogflow ES `detectIntent` (REST, authenticated with the
 * stored service-account JSON) in a session per ticket; the fulfilment texts are sent back; an intent
 * that ends the interaction hands the ticket to humans.
 */
export function dialogflowType(baseUrl: string): IntegrationType {
  return {
    type: 'dialogflow',
    async handle(turn, tools) {
      const i = turn.integration;
      const sa = serviceAccount(i.jsonContent);
      const token = await accessToken(sa, tools.http);
      const result = await detectIntent(baseUrl, i.projectName, `atendo-${turn.companyId}-${turn.ticket.id}`, turn.message.body, i.language || 'pt-BR', token, tools.http);
      const texts = (result.fulfillmentMessages ?? []).flatMap((m) => m.text?.text ?? []).filter((t) => t.trim());
      for (const t of texts.length ? texts : result.fulfillmentText ? [result.fulfillmentText] : []) await tools.say(t);
      if (result.intent?.endInteraction || result.diagnosticInfo?.end_conversation) await tools.handOff({}, `Dialogflow ended the conversation (${result.intent?.displayName ?? 'end'})`);
    },
  };
}
