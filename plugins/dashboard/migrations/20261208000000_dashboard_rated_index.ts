import type { Knex } from 'knex';

/**
 * The research report (`GET /ticket/reports/research`) reads a company's rated tickets by the day the
 * customer answered: a partial index on `(company_id, rated_at)` of the rated rows only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS dashboard_tickets_company_rated ON dashboard_tickets (company_id, rated_at) WHERE rating IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS dashboard_tickets_company_rated');
}
