import type { Knex } from 'knex';

/**
 * Brings databases that ran an early version of 20261121002100_list_indexes (which created
 * tickets_company_updated) to the final list indexes: that index is dropped (the planner preferred it for
 * one-status pages and then walked past thousands of newer active tickets) and tickets_active_visibility
 * is created. A no-op on databases that ran the final version.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tickets_company_updated');
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS tickets_active_visibility ON tickets (company_id, status, queue_id, user_id, is_group)
     INCLUDE (whatsapp_id, unread_messages, updated_at) WHERE status IN ('open', 'pending', 'group')`,
  );
}

export async function down(): Promise<void> {
  // Nothing to undo: 20261121002100_list_indexes owns tickets_active_visibility.
}
