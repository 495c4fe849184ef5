import type { Knex } from 'knex';

/**
 * The conversation chain asks, for every stored inbound message, whether a turn of the ticket is running
 * (services/conversation.ts `claimNext`). Only the open turns (pending, failed) had an index, so that question
 * scanned the whole `conversation_turns` table, which grows by one row per inbound message: a partial index on
 * the running turns (a handful at any time) answers it from the index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX conversation_turns_running ON conversation_turns (ticket_id) WHERE state = 'running'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS conversation_turns_running');
}
