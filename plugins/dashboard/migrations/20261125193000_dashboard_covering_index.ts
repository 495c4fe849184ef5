import type { Knex } from 'knex';

/**
 * The figures read the tickets of a company created in a range: this index holds every column they use,
 * so PostgreSQL answers from the index alone (index-only scans) instead of visiting each row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX dashboard_tickets_company_created_cover ON dashboard_tickets (company_id, created_at)
       INCLUDE (status, queue_id, user_id, contact_id, accepted_at, closed_at, rating, connection_id)`,
  );
  await knex.raw('DROP INDEX IF EXISTS dashboard_tickets_company_created');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS dashboard_tickets_company_created ON dashboard_tickets (company_id, created_at)');
  await knex.raw('DROP INDEX IF EXISTS dashboard_tickets_company_created_cover');
}
