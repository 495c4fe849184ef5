/**
 * The durable inbox (`ctx.inbox`): what the platform acknowledges to the outside world (a provider's
 * webhook) is written to PostgreSQL first, then processed from there.
 *
 * - `accept(source, {key, payload, meta})` resolves once the event is committed (many concurrent accepts
 *   share one INSERT and one commit). Answer the provider only after it resolved: a process killed at any
 *   moment afterwards loses nothing. It rejects with `AppError('ERR_SERVICE_UNAVAILABLE')` (503: the
 *   provider delivers again later) when the database is unreachable or the backlog of unprocessed events is
 *   full (INBOX_MAX_BACKLOG). An event whose `key` is already waiting in the inbox is accepted without a
 *   second row (`duplicate: true`).
 * - `process(source, handler)` registers the handler of a source (once, by the source's owner). Each
 *   event is handed to a handler on one node (the node that accepted it when it can, another one after the
 *   lease of a node that died, INBOX_LEASE_MS), and removed once the handler resolved. The handler must
 *   make its effect durable before resolving (e.g. `bus.publish(topic, payload, {durable: true})`), and be
 *   idempotent: an event may be handed out again after a crash.
 *   A handler that throws a `PermanentError` dead-letters the event at once (state `dead`, kept with its
 *   error for `npm run redrive`); an outage (`isOutage`: the database unreachable...) is retried with a
 *   delay doubling up to a few seconds for as long as it lasts; any other error is retried with a doubling
 *   delay (up to a minute) and dead-lettered after INBOX_MAX_ATTEMPTS tries.
 * - Source names start with the owner plugin's id and a dot (`channels.meta`).
 */
export interface InboxItem {
  /** Dedupe key within the source (e.g. the sha256 of a webhook body); at most 200 characters. */
  key: string;
  /** The raw event, exactly as received. */
  payload: Buffer;
  /** Small JSON facts about it (e.g. which secret verified its signature). */
  meta?: Record<string, unknown>;
}

/** An accepted event, as its handler gets it. */
export interface InboxEvent {
  /** Row id (grows with arrival). */
  id: number;
  source: string;
  key: string;
  payload: Buffer;
  meta: Record<string, unknown>;
  /** ISO time it was accepted. */
  receivedAt: string;
  /** Earlier tries that failed (outages not counted). */
  attempts: number;
}

export type InboxHandler = (event: InboxEvent) => Promise<void>;

export interface Inbox {
  /** Writes the event durably; see the module comment. */
  accept(source: string, item: InboxItem): Promise<{ id?: number; duplicate: boolean }>;
  /** Registers the handler of `source` (one per source, in `register`). */
  process(source: string, handler: InboxHandler): void;
}
