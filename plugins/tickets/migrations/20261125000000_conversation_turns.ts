import type { Knex } from 'knex';

/**
 * `conversation_turns`: one row per inbound message offered to the conversation handlers
 * (services/conversation.ts). The primary key on the message makes a turn run at most once whatever the
 * bus redelivers or how many kernels consume; `state` records the outcome:
 * `pending` (queued), `running` (claimed; stays so when the process died mid-turn: never re-run),
 * `done` (`handled_by` the handler that answered, null when every handler passed), `failed` (a handler threw;
 * retried while `attempts` < 5), `abandoned` (failed 5 times).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversation_turns', (t) => {
    t.bigInteger('message_id').primary().references('messages.id').onDelete('CASCADE');
    t.integer('company_id').notNullable();
    t.integer('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.string('state', 16).notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('handled_by', 100);
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // The turns of a ticket still to run, oldest message first.
  await knex.raw(`CREATE INDEX conversation_turns_open ON conversation_turns (ticket_id, message_id) WHERE state IN ('pending', 'failed')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('conversation_turns');
}
