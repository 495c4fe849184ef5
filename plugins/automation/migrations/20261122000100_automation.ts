import type { Knex } from 'knex';

/**
 * The automation plugin's own state (never another plugin's tables: tickets, contacts, queues and
 * connections are reached through their services). Every row carries `company_id` (FK companies, cascade).
 *
 * - `automation_bot_states`: where the bot is with one ticket: `stage` (`menu` queue menu, `options` a
 *   queue's option tree at `path`, `lgpd` waiting for consent, `nps` waiting for a rating, `human` the
 *   bot stopped), the counters of repeated prompts, the last waiting position sent. One row per ticket.
 * - `automation_processed_messages`: inbound message ids the bot has answered (at most one reply per
 *   inbound message, whatever the bus redelivers); purged after 7 days.
 * - `automation_out_of_hours`: the out-of-hours window (its start) the message was last sent in, per
 *   contact, connection and scope (`company`, `connection:<id>`, `queue:<id>`).
 * - `automation_nps_ratings`: one rating (0..10) per ticket with its attendant, queue and connection, for
 *   the dashboard.
 * - `automation_router_states`: per queue with `ativarRoteador`, the last user given a ticket (round-robin).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automation_bot_states', (t) => {
    t.integer('ticket_id').primary();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('stage', 20).notNullable();
    t.integer('queue_id');
    t.jsonb('path').notNullable().defaultTo('[]');
    t.integer('menu_uses').notNullable().defaultTo(0);
    t.integer('nps_uses').notNullable().defaultTo(0);
    t.integer('lgpd_uses').notNullable().defaultTo(0);
    t.integer('position_queue_id');
    t.integer('last_position');
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  await knex.raw("ALTER TABLE automation_bot_states ADD CONSTRAINT automation_bot_states_stage_check CHECK (stage IN ('menu', 'options', 'lgpd', 'nps', 'human'))");

  await knex.schema.createTable('automation_processed_messages', (t) => {
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.bigInteger('message_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['company_id', 'message_id']);
    t.index(['created_at']);
  });

  await knex.schema.createTable('automation_out_of_hours', (t) => {
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('contact_id').notNullable();
    t.integer('whatsapp_id').notNullable();
    t.string('scope', 40).notNullable();
    t.string('window_key', 40).notNullable();
    t.timestamp('sent_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['company_id', 'contact_id', 'whatsapp_id', 'scope']);
  });

  await knex.schema.createTable('automation_nps_ratings', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('ticket_id').notNullable();
    t.integer('user_id');
    t.integer('queue_id');
    t.integer('whatsapp_id');
    t.integer('contact_id').notNullable();
    t.smallint('rate').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['company_id', 'ticket_id']);
    t.index(['company_id', 'created_at']);
    t.index(['company_id', 'user_id']);
  });
  await knex.raw('ALTER TABLE automation_nps_ratings ADD CONSTRAINT automation_nps_ratings_rate_check CHECK (rate BETWEEN 0 AND 10)');

  await knex.schema.createTable('automation_router_states', (t) => {
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('queue_id').notNullable();
    t.integer('last_user_id');
    t.timestamp('next_run_at', { useTz: true });
    t.timestamps(true, true);
    t.primary(['company_id', 'queue_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['automation_router_states', 'automation_nps_ratings', 'automation_out_of_hours', 'automation_processed_messages', 'automation_bot_states']) {
    await knex.schema.dropTableIfExists(t);
  }
}
