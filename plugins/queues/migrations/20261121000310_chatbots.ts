import type { Knex } from 'knex';

/**
 * Chatbot options of a queue (spec 2-tickets.md §3 "Chatbot option (nested recursively)"; wire-shapes §2
 * "Chatbot"), an ordered tree:
 *
 * - root options have `queue_id` set and `chatbot_id` null; nested options have `chatbot_id` (the parent
 *   option) set and `queue_id` null. Both FKs cascade, so deleting a queue or an option deletes its subtree.
 * - `order` is the option's position among its siblings (0-based; the API writes the array index).
 * - `company_id` (NOT NULL) is repeated on every row so every read and write filters on the tenant.
 * - `opt_queue_id` / `opt_user_id` point at the queue / attendant the option hands the ticket to; they are
 *   set to null when that queue or user is deleted. `opt_integration_id` / `opt_file_id` refer to records of
 *   other plugins and carry no FK.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chatbots', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('queue_id').references('queues.id').onDelete('CASCADE');
    t.integer('chatbot_id').references('chatbots.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.text('greeting_message');
    t.string('queue_type', 20).notNullable().defaultTo('text');
    t.integer('opt_queue_id').references('queues.id').onDelete('SET NULL').withKeyName('chatbots_opt_queue_id_foreign');
    t.integer('opt_user_id').references('users.id').onDelete('SET NULL').withKeyName('chatbots_opt_user_id_foreign');
    t.integer('opt_integration_id');
    t.integer('opt_file_id');
    t.boolean('close_ticket').notNullable().defaultTo(false);
    t.boolean('is_agent').notNullable().defaultTo(false);
    t.integer('order').notNullable().defaultTo(0);
    t.timestamps(true, true);
    t.index(['company_id', 'queue_id']);
    t.index(['chatbot_id']);
    t.index(['opt_queue_id']);
    t.index(['opt_user_id']);
  });
  await knex.raw(
    "ALTER TABLE chatbots ADD CONSTRAINT chatbots_queue_type_check CHECK (queue_type IN ('text', 'attendent', 'queue', 'integration', 'file'))",
  );
  // Exactly one parent: a queue (root option) or another option (nested option).
  await knex.raw('ALTER TABLE chatbots ADD CONSTRAINT chatbots_one_parent_check CHECK ((queue_id IS NULL) <> (chatbot_id IS NULL))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('chatbots');
}
