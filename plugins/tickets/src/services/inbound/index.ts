import type { ConnectionBusEvent } from '@atendo/plugin-connections/contract';
import type { TicketsDeps } from '../deps';
import { InboundPipeline } from './pipeline';
import type { InboundPressure } from '../pressure';

/**
 * The inbound pipeline (DESIGN.md §1, §4): envelopes published by the channel adapters on
 * `channel.inbound.<channel>.<kind>` (bus message id = the envelope's idempotency key) become contacts,
 * tickets and messages, then live events.
 *
 * One consumer, queue `tickets.inbound` (prefetch 128: two batches of up to 64 in flight, 5 retries 200 ms apart, then `tickets.inbound.dlq`).
 * A payload that is not an `Envelope` (SDK schema, compiled checker: the same rules as `Value.Check`) or
 * names an unknown connection is dead-lettered at once (`PermanentError`). Kinds:
 * - `message`: stored once per provider id (`INSERT ... ON CONFLICT (company_id, wid) DO NOTHING`), in the
 *   contact's active ticket of the connection, else a closed one reopened within `timeCreateNewTicket`
 *   minutes, else a new one (race-safe through `tickets_one_active_per_contact`). Messages are processed in
 *   small batches (the envelopes in flight at one time): one contacts call, one transaction and one
 *   serialization per batch, whatever its size. After commit: `company-{id}-appMessage` {action:'create'}
 *   per message and `company-{id}-ticket` {action:'update'} per ticket to the ticket's socket audiences, and
 *   bus events `message.received` and `message.stored` (and `ticket.created` / `ticket.updated` +
 *   `ticket.changed` for new / reopened tickets).
 * - `status`: ack forward only (ACK_OF_STATUS); `failed` marks `send_error`. Watermarks (Messenger) move every
 *   outbound message of the thread sent up to the watermark.
 * - `reaction`, `edit`, `delete`: applied to the stored message (see ../messages/results.ts).
 * - `typing`: `company-{id}-presence` {action:'update-presence', ticketId, presence} to the audiences of the
 *   contact's active ticket.
 * - `connection`: the connection's status through the connections service.
 *
 * Messages are acknowledged on the bus once their transaction has committed; the live events follow
 * asynchronously (in batch order). A process dying in between loses events, never data.
 *
 * Files: pipeline.ts (batching, linger, back-pressure), store.ts (the batch transaction), announce.ts (live
 * and bus events after commit), changes.ts (status, reaction, edit, delete, typing, connection envelopes),
 * fields.ts (pure content mapping), connections.ts (the connection cache).
 */

export { InboundPipeline } from './pipeline';
export { messageFields, inboundStatus, type MessageFields } from './fields';
export { ECHO_RETRY_ATTEMPTS } from './store';
export { STATUS_RETRY_ATTEMPTS, CHANGE_RETRY_ATTEMPTS } from './changes';

/** Topic pattern of the adapters' envelopes (`channel.inbound.<channel>.<kind>`). */
export const INBOUND_PATTERN = 'channel.inbound.#';
/** The consumer queue (dead letters in `tickets.inbound.dlq`). */
export const INBOUND_QUEUE = 'tickets.inbound';
/** Subscription options of the consumer. */
export const INBOUND_SUBSCRIPTION = { queue: INBOUND_QUEUE, prefetch: 128, maxRetries: 5, retryDelayMs: 200 } as const;

/**
 * Starts the inbound consumer (queue `tickets.inbound`; the kernel's bus namespaces queue names by
 * exchange, so installs sharing a broker never share it) and the connection-cache invalidation (broadcast
 * subscription to `connection.updated` / `connection.deleted`). Returns the pipeline and the stop function
 * (for `ctx.onClose`): it stops consuming, then waits for the pending live events.
 */
export async function subscribeInbound(deps: TicketsDeps, pressure?: InboundPressure): Promise<{ pipeline: InboundPipeline; close: () => Promise<void> }> {
  const pipeline = new InboundPipeline(deps);
  const invalidation = await deps.bus.subscribe<ConnectionBusEvent>(
    ['connection.updated', 'connection.deleted'],
    (m) => {
      if (m.payload && Number.isInteger(m.payload.companyId) && Number.isInteger(m.payload.id)) pipeline.connections.invalidate(m.payload.companyId, m.payload.id);
    },
    { broadcast: true, maxRetries: 0 },
  );
  // Its deliveries in progress are counted (`pressure`): the conversation turns yield while it is busy.
  const sub = await deps.bus.subscribe(INBOUND_PATTERN, pressure ? pressure.track(pipeline.handle) : pipeline.handle, INBOUND_SUBSCRIPTION);
  return {
    pipeline,
    close: async () => {
      await sub.unsubscribe();
      await invalidation.unsubscribe();
      await pipeline.idle();
    },
  };
}
