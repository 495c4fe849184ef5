import { BatchLoader, TtlCache } from '@atendo/sdk';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import type { TicketActor, TicketRow, TicketSnapshot, TicketsService } from '@atendo/plugin-tickets/contract';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import { joinParts } from '../rules/menu';
import { renderTemplate, DEFAULT_TIME_ZONE } from '../rules/template';
import type { BotConnection, BotTicket, ConnectionsPort, ContactsPort, QueuesPort, TicketsPort } from './ports';
import type { ScheduleRow } from '../rules/hours';

/** The handler id the bot answers as (`message.stored` `by`, ticket logs). */
export const HANDLER_ID = 'automation';
export const BY_BOT: TicketActor = { kind: 'bot', handlerId: HANDLER_ID };

/** A tickets row or a turn's snapshot as the bot reads it. */
export function botTicket(companyId: number, t: TicketRow | TicketSnapshot): BotTicket {
  const row = t as Partial<TicketRow> & Partial<TicketSnapshot>;
  return {
    id: t.id,
    companyId,
    contactId: t.contactId,
    whatsappId: row.whatsappId !== undefined ? row.whatsappId : (row.connectionId ?? null),
    queueId: t.queueId,
    userId: t.userId,
    status: t.status,
    isGroup: t.isGroup,
    isBot: t.isBot,
    channel: t.channel,
    amountUsedBotQueues: t.amountUsedBotQueues,
    useIntegration: t.useIntegration,
    integrationId: t.integrationId,
    promptId: t.promptId,
    isOutOfHour: t.isOutOfHour,
    createdAt: row.createdAt ?? new Date(0),
    updatedAt: row.updatedAt ?? new Date(),
  };
}


/** How long a connection read is reused (changes are also dropped at once on `connection.updated`). */
export const CONNECTION_TTL_MS = 5000;

export function connectionsPort(svc: ConnectionsService): ConnectionsPort & { forget(companyId: number, id: number): void } {
  const cache = new TtlCache<BotConnection | undefined>(CONNECTION_TTL_MS);
  return {
    get: (companyId, id) =>
      cache.get(`${companyId}:${id}:`, async () => {
        const c = await svc.get(companyId, id);
        return c ? ({ ...c, schedules: (c.schedules ?? []) as ScheduleRow[], queues: c.queues.map((q) => ({ id: q.id })) } as BotConnection) : undefined;
      }),
    forget: (companyId, id) => cache.deletePrefix(`${companyId}:${id}:`),
  };
}

/** How long a queue read is reused by the bot (menus read every queue of the connection). */
export const QUEUE_TTL_MS = 2000;

export function queuesPort(svc: QueuesService): QueuesPort {
  const cache = new TtlCache<Awaited<ReturnType<QueuesService['getQueue']>>>(QUEUE_TTL_MS);
  return {
    getQueue: (c, id) => cache.get(`${c}:${id}`, () => svc.getQueue(c, id)),
    chatbotTree: (c, id) => svc.chatbotTree(c, id),
    userIdsOfQueue: (c, id) => svc.userIdsOfQueue(c, id),
  };
}

export function contactsPort(svc: ContactsService): ContactsPort {
  return {
    get: async (c, id) => {
      const x = await svc.get(c, id);
      return x ? { id: x.id, name: x.name, number: x.number, isGroup: x.isGroup, active: x.active, disableBot: x.disableBot, lgpdAcceptedAt: x.lgpdAcceptedAt } : undefined;
    },
    setLgpdAcceptedAt: (c, id, at) => svc.setLgpdAcceptedAt(c, id, at),
  };
}

/**
 * The bot's view of the tickets service: answers are sent as the `automation` handler (`fromBot`), status
 * changes and logs go through `update` / `addLog` / `close` with `by: {kind: 'bot', handlerId: 'automation'}`.
 * `close` with `farewell` sends the connection's `complationMessage` (after `message`) in one message first.
 */
export function ticketsPort(svc: TicketsService, conns: ConnectionsPort, contacts: ContactsPort, timeZoneOf: (companyId: number) => Promise<string>): TicketsPort {
  // Reads of the turns running at the same time share one statement per company (tickets.getMany).
  const reads = new BatchLoader<{ companyId: number; id: number }, TicketRow | undefined>(async (items) => {
    const found = new Map<string, TicketRow>();
    const byCompany = new Map<number, Set<number>>();
    for (const i of items) byCompany.set(i.companyId, (byCompany.get(i.companyId) ?? new Set()).add(i.id));
    for (const [companyId, ids] of byCompany) for (const t of await svc.getMany(companyId, [...ids])) found.set(`${companyId}:${t.id}`, t);
    return items.map((i) => found.get(`${i.companyId}:${i.id}`));
  });
  const get = async (companyId: number, id: number) => {
    const t = await reads.load({ companyId, id });
    return t ? botTicket(companyId, t) : undefined;
  };
  const update = async (companyId: number, id: number, patch: Parameters<TicketsService['update']>[2]) => botTicket(companyId, await svc.update(companyId, id, patch, BY_BOT));
  return {
    get,
    sendText: async (companyId, ticketId, body, ticket) => {
      await svc.sendText(companyId, ticketId, body, { fromBot: true, handlerId: HANDLER_ID, ...(ticket ? { ticket } : {}) });
    },
    update: (companyId, id, patch) => update(companyId, id, patch),
    toQueue: (companyId, id, queueId) => update(companyId, id, { queueId, userId: null, status: 'pending' }),
    assign: async (companyId, id, userId) => {
      const t = await svc.get(companyId, id);
      return update(companyId, id, { userId, status: t?.isGroup ? 'group' : 'open', isBot: false });
    },
    close: async (companyId, id, opts) => {
      let text = (opts.message ?? '').trim();
      if (opts.farewell) {
        const t = await svc.get(companyId, id);
        const conn = t?.whatsappId != null ? await conns.get(companyId, t.whatsappId) : undefined;
        if (t && conn?.complationMessage?.trim() && !t.isGroup) {
          const contact = await contacts.get(companyId, t.contactId);
          const farewell = renderTemplate(conn.complationMessage, { contactName: contact?.name, connectionName: conn.name, ticketId: t.id, timeZone: (await timeZoneOf(companyId)) || DEFAULT_TIME_ZONE });
          text = joinParts(text, farewell);
        }
      }
      if (text) await svc.sendText(companyId, id, text, { fromBot: true, handlerId: HANDLER_ID });
      await svc.close(companyId, id, BY_BOT);
    },
    addLog: (companyId, id, type, data) => svc.addLog(companyId, id, { type, data: { by: HANDLER_ID, ...data } }),
    listWaiting: async (companyId, queueId, limit) => (await svc.listWaiting(companyId, queueId, limit)).map((t) => botTicket(companyId, t)),
  };
}
