import type { Bus, Subscription, Topic } from '@atendo/sdk';
import type { MessageStoredEvent, TicketBusEvent, TicketChangedEvent } from '@atendo/plugin-tickets/contract';
import type { RatingRecordedEvent } from '@atendo/plugin-automation/contract';
import type { ReadModel } from './read-model';

/**
 * The ticket fields the read model keeps (`ReadModel.upsert`); `lastMessage` arrives with `message.stored`.
 */
const MODEL_FIELDS = new Set(['status', 'queueId', 'userId', 'whatsappId', 'contactId', 'isGroup', 'uuid', 'createdAt', 'acceptedAt', 'closedAt']);

/**
 * The dashboard's bus consumers (competing consumers on durable queues: each event is handled once):
 * - `ticket.created|updated|transferred|closed|deleted|changed` (queue `dashboard.tickets`): the ticket is
 *   re-read through the tickets service and stored (older snapshots never overwrite newer ones; a deleted
 *   ticket leaves the model); a `ticket.updated` whose `fields` name none of the model's is skipped;
 * - `message.stored` (queue `dashboard.messages`): the message's text as the ticket's last message (private
 *   notes ignored; no re-read, no `dashboard.changed`: no figure depends on it). Prefetch 128: the texts
 *   waiting together go in one UPDATE, so a burst costs a statement per up to 128 messages, not per 32;
 * - `rating.recorded` (queue `dashboard.ratings`): the rating (0..10) of the ticket.
 */
export async function subscribeEvents(d: {
  bus: Bus;
  model: ReadModel;
  ticketTopics: Topic<TicketBusEvent | TicketChangedEvent>[];
  messageStored: Topic<MessageStoredEvent>;
  ratingRecorded: Topic<RatingRecordedEvent>;
}): Promise<Subscription[]> {
  const opts = { maxRetries: 5, retryDelayMs: 500 };
  const tickets = await d.bus.subscribe<TicketBusEvent | TicketChangedEvent>(
    d.ticketTopics,
    async ({ payload: e }) => {
      // An update that says which fields it changed, none of them the model's (a bot's flags): nothing to re-read.
      const fields = (e as TicketBusEvent).fields;
      if (Array.isArray(fields) && !fields.some((f) => MODEL_FIELDS.has(f))) return;
      await d.model.refresh(e.companyId, e.ticketId);
    },
    { queue: 'dashboard.tickets', ...opts },
  );
  const messages = await d.bus.subscribe<MessageStoredEvent>(
    d.messageStored,
    async ({ payload: m }) => {
      if (!m.isPrivate) await d.model.lastMessage(m.companyId, m.ticketId, m.body, m.messageId);
    },
    { queue: 'dashboard.messages', prefetch: 128, ...opts },
  );
  const ratings = await d.bus.subscribe<RatingRecordedEvent>(
    d.ratingRecorded,
    ({ payload: r }) => d.model.rate(r.companyId, r.ticketId, r.rate),
    { queue: 'dashboard.ratings', ...opts },
  );
  return [tickets, messages, ratings];
}
