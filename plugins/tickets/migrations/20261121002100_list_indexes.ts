import type { Knex } from 'knex';

/**
 * Indexes of the ticket lists (GET /tickets, GET /ticket/kanban) beyond the tickets migration's, chosen
 * with EXPLAIN ANALYZE at 100,000 tickets / 1,000,000 messages in one company (bench/README.md).
 *
 * - tickets_active_visibility: the active tickets (open, pending, group: a few percent of a company's
 *   tickets) with every column the visibility rule and the list filters read, so the per-tab badge
 *   counts (COUNT(*) FILTER over active tickets) are an index-only scan instead of a heap visit per
 *   ticket (5 ms -> under 1 ms for a plain user at 6,000 active tickets).
 *
 * Pages themselves need no new index: one status is read in order from tickets_company_status_updated
 * and several statuses are merged per status (see TicketListService.ordered). An index on
 * (company_id, updated_at) was tried and dropped: the planner preferred it for one-status pages and
 * then skipped thousands of newer active tickets to reach the closed ones (13 ms instead of 0.3 ms).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS tickets_active_visibility ON tickets (company_id, status, queue_id, user_id, is_group)
     INCLUDE (whatsapp_id, unread_messages, updated_at) WHERE status IN ('open', 'pending', 'group')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tickets_active_visibility');
}
