import type { Knex } from 'knex';

/**
 * The companies an announcement is for: `target_company_ids` (null: every company). Readers of other
 * companies neither list it nor receive its socket events.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE announcements ADD COLUMN target_company_ids integer[]');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE announcements DROP COLUMN target_company_ids');
}
