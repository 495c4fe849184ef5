import type { Knex } from 'knex';

/**
 * - `prompts_prompts`: the company's AI prompts (spec "Prompt"); `api_key` and `voice_key` are stored
 *   encrypted (AES-256-GCM, `v1:` prefix), never answered in full.
 * - `prompts_sessions`: per ticket a prompt handled, active or released (a released ticket is not taken
 *   again by its queue's or connection's prompt until it closes).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prompts_prompts', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.text('prompt').notNullable();
    t.string('voice', 100).notNullable().defaultTo('texto');
    t.text('voice_key').notNullable().defaultTo('');
    t.string('voice_region', 100).notNullable().defaultTo('');
    t.integer('max_tokens').notNullable().defaultTo(100);
    t.float('temperature').notNullable().defaultTo(1);
    t.text('api_key').notNullable();
    t.integer('queue_id');
    t.integer('max_messages').notNullable().defaultTo(10);
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  await knex.schema.createTable('prompts_sessions', (t) => {
    t.integer('ticket_id').primary();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('prompt_id').notNullable();
    t.string('status', 20).notNullable();
    t.timestamps(true, true);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('prompts_sessions');
  await knex.schema.dropTableIfExists('prompts_prompts');
}
