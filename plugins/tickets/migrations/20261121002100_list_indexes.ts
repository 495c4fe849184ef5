import type { Knex } from 'knex';

/**
 * Indexes of the ticket lists (GET /tickets, GET /ticket/kanban) beyond the tickets migration's, chosen
 * with EXPLAIN ANALYZE at 100,000 tickets / 1,000,000 messages in one company (bench/README.md):
 * - tickets_company_updated: lists across every status (the search tab, statusFilter with several
 *   statuses), newest activity first, read in index order and stopped after 41 rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS tickets_company_updated ON tickets (company_id, updated_at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tickets_company_updated');
}
