/**
 * Messages of the tickets plugin (spec 2-tickets.md §2 "Conversation view", §3 "Message", §5, §7
 * "Messages"; wire-shapes §4 GET/POST /messages/:ticketId, §5 `company-{cid}-appMessage`).
 *
 * Outbound flow: the REST call stores the message as pending (ack 0, wid null) in one transaction with the
 * ticket's `lastMessage`; after commit it pushes `appMessage` {action:'create'} and the ticket update, and
 * publishes the `message.send` command. A channel adapter sends it and reports back on `message.sent`,
 * `message.failed` or `message.status`, which move the ack forward (0 pending, 1 sent, 2 delivered, 3 read,
 * 4 played) and push `appMessage` {action:'update'}. Private notes are never published.
 *
 * Every real-time push goes to the socket audiences of the message's ticket (`ticketAudiences`), so live
 * events follow the same visibility rule as the lists.
 */

// Files: serialize.ts (wire shape, acks, media types), outbound.ts (store + announce + `message.send`),
// conversation.ts (GET /messages), commands.ts (send, media, edit, delete, forward), results.ts (provider
// results and inbound changes), variables.ts (message variables, the accept greeting sent once).
export * from './serialize';
export * from './outbound';
export * from './conversation';
export * from './commands';
export * from './results';
export * from './variables';
export * from './reactions';
export * from './resend';
