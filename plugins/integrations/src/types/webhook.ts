import { createHmac } from 'node:crypto';
import type { IntegrationTools, IntegrationTurn, IntegrationType } from '../contract';
import { PermanentError } from '../services/engine';

/** The signature header: `sha256=<hex HMAC-SHA256 of the raw body with the integration's secret>`. */
export const SIGNATURE_HEADER = 'x-atendo-signature';

/** `X-Atendo-Signature` of a body. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The JSON POSTed for each customer message (documented in the README). */
export function webhookPayload(turn: IntegrationTurn, sentAt: Date): Record<string, unknown> {
  const { ticket, contact, message, integration } = turn;
  return {
    event: 'message',
    sentAt: sentAt.toISOString(),
    companyId: turn.companyId,
    integration: { id: integration.id, name: integration.name, type: integration.type },
    ticket: { id: ticket.id, uuid: ticket.uuid, status: ticket.status, queueId: ticket.queueId, channel: ticket.channel },
    contact: { id: contact.id, name: contact.name, number: contact.number, email: contact.email, channel: contact.channel },
    connection: { id: ticket.connectionId },
    message: { id: message.id, wid: message.wid, body: message.body, mediaType: message.mediaType, mediaUrl: message.mediaUrl, mediaName: message.mediaName, createdAt: message.createdAt },
    attempt: turn.attempt,
  };
}

type Reply = string | { text?: unknown; mediaUrl?: unknown; caption?: unknown };

/**
 * Acts on the webhook's JSON answer: `messages` (strings or `{text}` / `{mediaUrl, caption}`, at most 10)
 * are sent in order; then `handoff` (`true`, or `{queueId?, userId?}`) hands the ticket to humans, or
 * `close: true` closes it. Anything else (an empty or non-JSON answer) sends nothing.
 */
export async function applyAnswer(json: unknown, tools: IntegrationTools, source: string): Promise<void> {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return;
  const a = json as { messages?: unknown; handoff?: unknown; close?: unknown; reason?: unknown };
  const replies: Reply[] = Array.isArray(a.messages) ? (a.messages as Reply[]).slice(0, 10) : [];
  for (const r of replies) {
    if (typeof r === 'string') await tools.say(r);
    else if (r && typeof r === 'object' && typeof r.mediaUrl === 'string') await tools.sayMedia(r.mediaUrl, typeof r.caption === 'string' ? r.caption : undefined);
    else if (r && typeof r === 'object' && typeof r.text === 'string') await tools.say(r.text);
  }
  const reason = typeof a.reason === 'string' && a.reason.trim() ? a.reason.trim().slice(0, 500) : `${source} handed the conversation over`;
  if (a.handoff === true) await tools.handOff({}, reason);
  else if (a.handoff && typeof a.handoff === 'object') {
    const h = a.handoff as { queueId?: unknown; userId?: unknown };
    const id = (v: unknown) => (Number.isInteger(v) && (v as number) > 0 ? (v as number) : null);
    await tools.handOff({ queueId: id(h.queueId), userId: id(h.userId) }, reason);
  } else if (a.close === true) await tools.close(reason);
}

/**
 * webhook and n8n: POST the message as signed JSON to `urlN8N` and act on the answer. A network error, a
 * timeout, a 5xx, 408 or 429 is retried (the job's backoff); another 4xx hands the ticket over at once.
 */
function postType(type: 'webhook' | 'n8n'): IntegrationType {
  return {
    type,
    async handle(turn, tools) {
      const body = JSON.stringify(webhookPayload(turn, new Date()));
      const res = await tools.http(turn.integration.urlN8N, { method: 'POST', body, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature(turn.integration.secret, body) } });
      if (res.status >= 500 || res.status === 408 || res.status === 429) throw new Error(`answered ${res.status}`);
      if (!res.ok) throw new PermanentError(`answered ${res.status}`);
      await applyAnswer(res.json, tools, turn.integration.name);
    },
  };
}

export const webhookType = postType('webhook');
export const n8nType = postType('n8n');
