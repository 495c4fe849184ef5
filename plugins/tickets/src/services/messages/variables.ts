import { fillMessageVariables, hasMessageVariables } from '@atendo/sdk';
import type { MessageRow, TicketRow } from '../../model';
import type { TicketsDeps } from '../deps';
import { serializeMessages, type SerializedMessage } from './serialize';

/** `dataJson` of the greeting posted on accept (sendGreetingAccepted), so a client's own greeting is not sent twice. */
export const GREETING_MARKER = JSON.stringify({ automatic: 'greetingAccepted' });

/** Seconds after an accept during which a client's greeting is taken for the one the server already sent. */
export const CLIENT_GREETING_WINDOW_SECONDS = 60;

/**
 * True for the accept greeting the product family's client posts itself when sendGreetingAccepted is on
 * (its text starts with a bold sender line and the unfilled `{{ms}} *{{name}}*`: `*Assistente Virtual:*\n{{ms}}
 * *{{name}}*, meu nome é ...`).
 */
export function isClientGreeting(raw: string | null | undefined): boolean {
  return /^\*[^*\n]{1,60}:\*\n\{\{\s*ms\s*\}\} \*\{\{\s*name\s*\}\}\*/i.test((raw ?? '').trim());
}

/**
 * `body` with its message variables filled (SDK `fillMessageVariables`) from the ticket's contact, queue,
 * connection and company and the sending user; a body without `{{` is returned as is (no lookups).
 */
export async function fillOutgoingVariables(deps: TicketsDeps, t: TicketRow, body: string, userId: number | null): Promise<string> {
  if (!hasMessageVariables(body)) return body;
  const [contact, user, queue, connection, company] = await Promise.all([
    deps.contacts.get(t.companyId, t.contactId),
    userId !== null ? deps.identity.getUser(t.companyId, userId) : Promise.resolve(undefined),
    t.queueId !== null ? deps.queues.getQueue(t.companyId, t.queueId) : Promise.resolve(undefined),
    t.whatsappId !== null ? deps.connections.get(t.companyId, t.whatsappId) : Promise.resolve(undefined),
    deps.identity.getCompany(t.companyId),
  ]);
  return fillMessageVariables(body, {
    contactName: contact?.name,
    number: contact && !contact.isGroup ? contact.number : '',
    email: contact?.email ?? '',
    userName: user?.name,
    queueName: queue?.name,
    connectionName: connection?.name,
    companyName: company?.name,
    ticketId: t.id,
  });
}

/**
 * The greeting the server posted when `ticket` was accepted (GREETING_MARKER, at or after `acceptedAt`),
 * when the accept was less than CLIENT_GREETING_WINDOW_SECONDS ago and nothing of ours was sent after it;
 * undefined otherwise. A client that posts its own greeting then gets this one back and nothing is sent
 * twice.
 */
export async function serverGreeting(deps: TicketsDeps, ticket: TicketRow): Promise<SerializedMessage | undefined> {
  if (!ticket.acceptedAt || Date.now() - new Date(ticket.acceptedAt).getTime() > CLIENT_GREETING_WINDOW_SECONDS * 1000) return undefined;
  const row = (await deps.db('messages')
    .where({ companyId: ticket.companyId, ticketId: ticket.id, fromMe: true, dataJson: GREETING_MARKER })
    .where('createdAt', '>=', ticket.acceptedAt)
    .orderBy('id', 'desc')
    .first()) as MessageRow | undefined;
  if (!row) return undefined;
  // Only the client's first message after the greeting is taken for its own copy of it.
  const later = await deps.db('messages').where({ companyId: ticket.companyId, ticketId: ticket.id, fromMe: true, isPrivate: false }).where('id', '>', row.id).first('id');
  if (later) return undefined;
  const [serialized] = await serializeMessages(deps, ticket.companyId, [row]);
  return serialized;
}
