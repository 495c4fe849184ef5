// The row types and status lists are part of the plugin's contract (src/contract.ts).
export { TICKET_LOG_TYPES, type TicketStatus, type TicketLogType, type TicketRow, type MessageRow } from './contract';
export { TICKET_STATUSES } from '@atendo/sdk/wire';
import type { TicketStatus } from './contract';
import type { TicketViewer } from '@atendo/sdk/wire';

/** The active statuses: they hold the one-active-ticket-per-contact rule. */
export const ACTIVE_STATUSES: TicketStatus[] = ['open', 'pending', 'group'];
/**
 * Statuses in which a ticket is the contact's current conversation on its connection (at most one per
 * contact and connection, `tickets_one_active_per_contact`): the active ones plus the bot's `lgpd` (waiting
 * for consent) and `nps` (waiting for a rating), so the customer's answer lands in that ticket.
 */
export const CONVERSATION_STATUSES: TicketStatus[] = ['open', 'pending', 'group', 'nps', 'lgpd'];

/** The viewer facts the visibility rule needs (spec 2-tickets.md §6; the wire `TicketViewer` and the company). */
export interface Viewer extends TicketViewer {
  companyId: number;
}
