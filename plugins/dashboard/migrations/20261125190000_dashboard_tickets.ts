import type { Knex } from 'knex';

/**
 * The dashboard's read model: one row per ticket (fed by the tickets plugin's bus topics and backfilled
 * through its service), the rating of the ticket (the automation plugin's `rating.recorded`), and the
 * companies whose existing tickets were backfilled. Never a foreign key to another plugin's table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_tickets', (t) => {
    t.integer('ticket_id').primary();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.uuid('uuid').notNullable();
    t.string('status', 20).notNullable();
    t.integer('queue_id');
    t.integer('user_id');
    t.integer('connection_id');
    t.integer('contact_id').notNullable();
    t.boolean('is_group').notNullable().defaultTo(false);
    t.text('last_message');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('closed_at', { useTz: true });
    /** The ticket's `updatedAt` when this row was written: older snapshots never overwrite newer ones. */
    t.timestamp('source_updated_at', { useTz: true }).notNullable();
    /** NPS rate 0..10 (null: not rated). */
    t.smallint('rating');
    t.timestamp('rated_at', { useTz: true });
    t.index(['company_id', 'created_at'], 'dashboard_tickets_company_created');
    t.index(['company_id', 'closed_at'], 'dashboard_tickets_company_closed');
    t.index(['company_id', 'status'], 'dashboard_tickets_company_status');
  });
  await knex.schema.createTable('dashboard_backfills', (t) => {
    t.integer('company_id').primary().references('companies.id').onDelete('CASCADE');
    t.integer('tickets').notNullable().defaultTo(0);
    t.timestamp('done_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dashboard_backfills');
  await knex.schema.dropTableIfExists('dashboard_tickets');
}
