import type { Knex } from 'knex';

/**
 * - `integrations_queue_integrations`: the company's queue integrations (spec "Queue integration"), with
 *   the webhook signing secret (`secret`) and Dialogflow's service-account JSON (`json_content`), never
 *   answered in full.
 * - `integrations_sessions`: per ticket handled by an integration, its state (active or released, the
 *   Typebot session and when it expires). Keyed by ticket; a released row keeps a queue's or connection's
 *   integration from taking the ticket again after it was handed to humans.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('integrations_queue_integrations', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('type', 40).notNullable();
    t.string('name', 100).notNullable();
    t.string('project_name', 200).notNullable().defaultTo('');
    t.text('json_content').notNullable().defaultTo('');
    t.string('language', 10).notNullable().defaultTo('');
    t.string('url_n8n', 2000).notNullable().defaultTo('');
    t.string('typebot_slug', 200).notNullable().defaultTo('');
    t.integer('typebot_expires').notNullable().defaultTo(1);
    t.integer('typebot_delay_message').notNullable().defaultTo(1000);
    t.string('typebot_keyword_finish', 200).notNullable().defaultTo('');
    t.string('typebot_keyword_restart', 200).notNullable().defaultTo('');
    t.text('typebot_unknown_message').notNullable().defaultTo('');
    t.text('typebot_restart_message').notNullable().defaultTo('');
    t.string('secret', 200).notNullable();
    t.timestamps(true, true);
    t.index(['company_id', 'name']);
  });
  await knex.schema.createTable('integrations_sessions', (t) => {
    t.integer('ticket_id').primary();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('integration_id').notNullable();
    t.string('status', 20).notNullable();
    t.string('typebot_session_id', 200);
    t.timestamp('expires_at', { useTz: true });
    t.jsonb('state').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('integrations_sessions');
  await knex.schema.dropTableIfExists('integrations_queue_integrations');
}
