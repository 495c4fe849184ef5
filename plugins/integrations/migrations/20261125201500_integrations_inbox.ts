import type { Knex } from 'knex';

/**
 * Turns of a ticket run one at a time, in order: `integrations_inbox` holds the customer messages waiting
 * for the ticket's integration (one row per message, drained oldest first by the `integrations.turn` job),
 * and `integrations_sessions.lease_until` marks the run draining a ticket (a lease, so a dead node's claim
 * expires).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('integrations_inbox', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('ticket_id').notNullable();
    t.integer('integration_id').notNullable();
    t.bigInteger('message_id').notNullable();
    t.jsonb('turn').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['company_id', 'message_id']);
    t.index(['ticket_id', 'id']);
    t.index(['company_id']);
  });
  await knex.schema.alterTable('integrations_sessions', (t) => {
    t.timestamp('lease_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('integrations_sessions', (t) => t.dropColumn('lease_until'));
  await knex.schema.dropTableIfExists('integrations_inbox');
}
