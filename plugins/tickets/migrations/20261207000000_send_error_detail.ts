import type { Knex } from 'knex';

/**
 * `messages.send_error_detail`: the provider's reason for a failed send (the `error` of `message.failed`: its text,
 * or its code), next to the spec's `send_error` code. A partial index lists a company's failed sends newest first
 * (GET /messages/failed) without scanning its messages.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.text('send_error_detail').nullable();
  });
  await knex.raw('CREATE INDEX IF NOT EXISTS messages_failed_sends_idx ON messages (company_id, created_at DESC, id DESC) WHERE send_error IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS messages_failed_sends_idx');
  await knex.schema.alterTable('messages', (t) => {
    t.dropColumn('send_error_detail');
  });
}
