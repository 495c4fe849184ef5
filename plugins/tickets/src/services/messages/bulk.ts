import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, companyEvent, fillMessageVariables, hasMessageVariables, mediaTypeOfPath, sendTopic, type Channel, type SendCommand } from '@atendo/sdk';
import type { Contact } from '@atendo/plugin-contacts/contract';
import { ticketAudiences } from '../../visibility';
import { ticketCreated, type ContactSendInput, type ContactSendResult, type SendToContactsOptions, type TicketActor } from '../../contract';
import { CONVERSATION_STATUSES, type MessageRow, type TicketRow } from '../../model';
import { safeMediaPath } from '../inbound/fields';
import { serializeTickets, ticketBusEvent, ticketRooms } from '../core';
import type { TicketsDeps } from '../deps';
import { MESSAGE_MAX } from '../../schemas/messages';
import { MESSAGE_MEDIA_TYPES, messageStoredEvent, type StoredOutbound } from './outbound';
import { ACK, lastMessageOf, mediaTypeOf, mimeOfPath, normalize, serializeMessages } from './serialize';
import { messageStored } from '../../contract';

/** Most messages one `sendToContacts` call takes. */
export const BULK_MAX = 500;

const mediaAllowed = (mimeType: string) => MESSAGE_MEDIA_TYPES.some((a) => (a.endsWith('/*') ? mimeType.startsWith(a.slice(0, -1)) : a === mimeType));

/** Checks one input's text and media (the service is called by code): 400 ERR_VALIDATION, 415 ERR_UPLOAD_TYPE. */
function checkInput(i: ContactSendInput): { body: string; media?: { path: string; fileName: string; mimeType: string } } {
  if (!i || !Number.isInteger(i.contactId) || i.contactId < 1) throw new AppError('ERR_VALIDATION', 'contactId must be a positive integer');
  const body = typeof i.body === 'string' ? i.body.trim() : '';
  if ([...body].length > MESSAGE_MAX) throw new AppError('ERR_VALIDATION', `body must be at most ${MESSAGE_MAX} characters`);
  if (!i.media) {
    if (!body) throw new AppError('ERR_VALIDATION', 'body is required');
    return { body };
  }
  const path = safeMediaPath(typeof i.media.path === 'string' ? i.media.path : undefined);
  if (!path) throw new AppError('ERR_VALIDATION', 'media.path must be a stored upload path ({area}/{file})');
  const mimeType = mediaTypeOfPath(path);
  if (!mediaAllowed(mimeType)) throw new AppError('ERR_UPLOAD_TYPE', `${mimeType} cannot be sent as a message`);
  const fileName = (i.media.fileName ?? '').replace(/[\x00-\x1f\x7f/\\]/g, ' ').trim().slice(0, 200) || path.split('/').pop()!;
  return { body, media: { path, fileName, mimeType } };
}

/**
 * `TicketsService.sendToContacts` (see the contract): stores one outbound message per input in the
 * contact's conversation ticket on the connection, or in its newest closed ticket there, or in a new closed
 * ticket; all inside `trx` (the caller's) or a transaction of its own. Answers the stored rows in input order
 * and `announce`, which pushes and publishes them (call it after `trx` commits; without `opts.trx` it has
 * already run).
 */
export async function sendToContacts(deps: TicketsDeps, companyId: number, connectionId: number, inputs: ContactSendInput[], opts: SendToContactsOptions = {}): Promise<ContactSendResult> {
  if (!Array.isArray(inputs) || inputs.length === 0) return { messages: [], announce: async () => undefined };
  if (inputs.length > BULK_MAX) throw new AppError('ERR_VALIDATION', `at most ${BULK_MAX} messages per call`);
  const checked = inputs.map(checkInput);
  const connection = await deps.connections.get(companyId, connectionId);
  if (!connection) throw new AppError('ERR_NO_WAPP_FOUND');
  const contactIds = [...new Set(inputs.map((i) => i.contactId))];
  const by: TicketActor = { kind: 'bot', handlerId: opts.handlerId || 'bulk' };
  const needsVars = checked.some((c) => hasMessageVariables(c.body));
  const company = needsVars ? await deps.identity.getCompany(companyId) : undefined;

  const run = async (trx: Knex.Transaction): Promise<{ stored: StoredOutbound[]; created: TicketRow[] }> => {
    // Read in the transaction: the caller may have created the contacts in it.
    const contacts = new Map((await deps.contacts.getMany(companyId, contactIds, trx)).map((c) => [c.id, c]));
    for (const id of contactIds) if (!contacts.has(id)) throw new AppError('ERR_NO_CONTACT_FOUND');
    // The conversation ticket of each contact on the connection, locked (in id order: no deadlock between callers).
    const active = (await trx('tickets')
      .where({ companyId, whatsappId: connectionId })
      .whereIn('contactId', contactIds)
      .whereIn('status', CONVERSATION_STATUSES)
      .orderBy('id')
      .forNoKeyUpdate()) as TicketRow[];
    const byContact = new Map<number, TicketRow>();
    for (const t of active) if (!byContact.has(t.contactId) || byContact.get(t.contactId)!.id < t.id) byContact.set(t.contactId, t);
    const missing = contactIds.filter((id) => !byContact.has(id));
    if (missing.length) {
      // Newest closed ticket of each remaining contact (DISTINCT ON refuses FOR UPDATE: locked just after).
      const newest = (await trx('tickets')
        .distinctOn('contactId')
        .select('id')
        .where({ companyId, whatsappId: connectionId, status: 'closed' })
        .whereIn('contactId', missing)
        .orderBy([{ column: 'contactId' }, { column: 'updatedAt', order: 'desc' }, { column: 'id', order: 'desc' }])) as { id: number }[];
      const closed = newest.length
        ? ((await trx('tickets').where({ companyId }).whereIn('id', newest.map((r) => r.id)).orderBy('id').forNoKeyUpdate()) as TicketRow[])
        : [];
      for (const t of closed) byContact.set(t.contactId, t);
    }
    const toCreate = contactIds.filter((id) => !byContact.has(id));
    const created: TicketRow[] = [];
    if (toCreate.length) {
      const now = new Date();
      const rows = (await trx('tickets')
        .insert(
          toCreate.map((contactId) => ({
            uuid: randomUUID(),
            companyId,
            contactId,
            whatsappId: connectionId,
            queueId: null,
            userId: null,
            status: 'closed',
            closedAt: now,
            isGroup: false,
            channel: connection.channel,
            fromMe: true,
            unreadMessages: 0,
          })),
        )
        .returning('*')) as TicketRow[];
      for (const t of rows) {
        byContact.set(t.contactId, t);
        created.push(t);
      }
      const data = JSON.stringify({ by: 'bot', handlerId: by.kind === 'bot' ? by.handlerId : 'bulk' });
      await trx('ticketLogs').insert(rows.map((t) => ({ companyId, ticketId: t.id, type: 'create', userId: null, queueId: null, data })));
    }

    const queueNames = new Map<number, string | undefined>();
    const values = [];
    for (let n = 0; n < inputs.length; n++) {
      const t = byContact.get(inputs[n].contactId)!;
      const c = checked[n];
      let body = c.body;
      if (hasMessageVariables(body)) {
        if (t.queueId !== null && !queueNames.has(t.queueId)) queueNames.set(t.queueId, (await deps.queues.getQueue(companyId, t.queueId))?.name);
        const contact = contacts.get(t.contactId)!;
        body = fillMessageVariables(body, {
          contactName: contact.name,
          number: contact.isGroup ? '' : contact.number,
          email: contact.email ?? '',
          queueName: t.queueId !== null ? queueNames.get(t.queueId) : null,
          connectionName: connection.name,
          companyName: company?.name,
          ticketId: t.id,
        });
      }
      values.push({
        companyId,
        ticketId: t.id,
        contactId: null,
        wid: null,
        ack: ACK.pending,
        read: true,
        fromMe: true,
        body,
        mediaPath: c.media?.path ?? null,
        mediaName: c.media?.fileName ?? null,
        mediaType: c.media ? mediaTypeOf(c.media.mimeType) : 'conversation',
        isPrivate: false,
        isForwarded: false,
        quotedMsgId: null,
        queueId: t.queueId,
        userId: null,
        dataJson: null,
      });
    }
    const inserted = ((await trx('messages').insert(values).returning('*')) as MessageRow[]).map(normalize);
    // Each ticket's lastMessage is its last message of this call.
    const last = new Map<number, MessageRow>();
    for (const m of inserted) last.set(m.ticketId, m);
    const updates = [...last.values()];
    const bindings: (number | string)[] = [];
    const rowsSql = updates
      .map((m) => {
        bindings.push(m.ticketId, lastMessageOf(m.mediaType, m.body, m.mediaName));
        return '(?::int, ?::text)';
      })
      .join(', ');
    await trx.raw(`UPDATE tickets AS t SET last_message = v.lm, from_me = true, updated_at = now() FROM (VALUES ${rowsSql}) AS v(id, lm) WHERE t.id = v.id AND t.company_id = ?`, [...bindings, companyId]);
    const ticketsAfter = new Map(((await trx('tickets').where({ companyId }).whereIn('id', updates.map((m) => m.ticketId))) as TicketRow[]).map((t) => [t.id, t]));
    const stored: StoredOutbound[] = inserted.map((message) => ({ message, ticket: ticketsAfter.get(message.ticketId)!, by }));
    await publishBulk(deps, companyId, trx, stored, created, contacts);
    return { stored, created };
  };

  const announceAll = async (stored: StoredOutbound[], created: TicketRow[]) => {
    try {
      await announceBulk(deps, companyId, stored, created);
    } catch (err) {
      deps.log.error({ err, companyId }, 'tickets: announcing bulk messages failed');
    }
  };

  if (opts.trx) {
    const { stored, created } = await run(opts.trx);
    let announced = false;
    return {
      messages: stored.map((s) => s.message),
      announce: async () => {
        if (announced) return;
        announced = true;
        await announceAll(stored, created);
      },
    };
  }
  const { stored, created } = await deps.db.transaction(run);
  await announceAll(stored, created);
  return { messages: stored.map((s) => s.message), announce: async () => undefined };
}

/**
 * In the transaction, the events of a whole `sendToContacts` call: `ticket.created` for new tickets; per message
 * `message.stored` and the send command on its channel's topic (`message.send.<channel>`). They leave with the
 * commit (the outbox), so every stored message is sent.
 */
async function publishBulk(deps: TicketsDeps, companyId: number, trx: Knex.Transaction, stored: StoredOutbound[], created: TicketRow[], contacts: Map<number, Contact>): Promise<void> {
  for (const t of created) await deps.bus.publish(ticketCreated, ticketBusEvent(t), { trx });
  for (const s of stored) {
    const { message, ticket, by } = s;
    await deps.bus.publish(messageStored, messageStoredEvent(message, ticket, by), { id: `message.stored:${companyId}:${message.id}`, trx });
    const contact = contacts.get(ticket.contactId);
    const cmd: SendCommand = {
      companyId,
      messageId: message.id,
      ticketId: ticket.id,
      connectionId: ticket.whatsappId,
      channel: ticket.channel as Channel,
      to: contact?.number ?? '',
      isGroup: contact?.isGroup ?? ticket.isGroup,
      remoteJid: contact?.remoteJid ?? null,
      lid: contact?.lid ?? null,
      body: message.body,
      mediaType: message.mediaType,
      isForwarded: message.isForwarded,
    };
    if (message.mediaPath) cmd.media = { path: message.mediaPath, mimeType: mimeOfPath(message.mediaPath), fileName: message.mediaName ?? 'file', url: deps.uploads.url(companyId, message.mediaPath) };
    await deps.bus.publish(sendTopic(cmd.channel), cmd, { id: `message.send:${companyId}:${message.id}`, trx });
  }
}

/**
 * After commit, the pushes of a whole `sendToContacts` call with one read per relation: per message
 * `company-{cid}-appMessage` create (with its ticket and contact) to the ticket's audiences; per ticket one
 * `company-{cid}-ticket` update (its state after the call). The events left with the transaction (`publishBulk`).
 */
async function announceBulk(deps: TicketsDeps, companyId: number, stored: StoredOutbound[], _created: TicketRow[]): Promise<void> {
  if (!stored.length) return;
  const tickets = new Map<number, TicketRow>();
  for (const s of stored) tickets.set(s.ticket.id, s.ticket);
  const contacts = await deps.contacts.getMany(companyId, [...new Set([...tickets.values()].map((t) => t.contactId))]);
  const mask = (await deps.identity.getCompanySetting(companyId, 'lgpdHideNumber')) === 'enabled';
  const [serialized, wireTickets] = await Promise.all([
    serializeMessages(deps, companyId, stored.map((s) => s.message), { tickets: [...tickets.values()] }),
    serializeTickets(deps, companyId, [...tickets.values()], { maskNumbers: mask, known: { contacts } }),
  ]);
  const wireById = new Map(wireTickets.map((t) => [t.id, t]));
  const event = companyEvent(companyId, 'appMessage');
  stored.forEach((s, i) => {
    const wire = wireById.get(s.ticket.id)!;
    deps.realtime.emitToCompany(companyId, event, { action: 'create', message: serialized[i], ticket: wire, contact: wire.contact ?? null }, { audiences: ticketAudiences(s.ticket), rooms: ticketRooms(s.ticket) });
  });
  for (const t of tickets.values()) {
    deps.realtime.emitToCompany(companyId, companyEvent(companyId, 'ticket'), { action: 'update', ticket: wireById.get(t.id)!, ticketId: t.id }, { audiences: ticketAudiences(t), rooms: ticketRooms(t) });
  }
}
