import type { Knex } from 'knex';

/**
 * `baileys_auth`: the Baileys (WhatsApp Web) auth state of each connection, one row per key (see
 * channels/whatsapp/src/auth-state.ts). `key_type` is `creds` (the credentials, key id `creds`) or a Baileys
 * signal key type (`pre-key`, `session`, `sender-key`, `app-state-sync-key`, `lid-mapping`, ...), `key_id` the
 * key's id, `value` the JSON text written with Baileys' `BufferJSON.replacer`. Tenant table: `company_id` NOT
 * NULL and indexed; rows go away with their connection or company. Secrets: never answered by any route.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('baileys_auth', (t) => {
    t.integer('connection_id').notNullable().references('whatsapps.id').onDelete('CASCADE');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('key_type', 64).notNullable();
    t.text('key_id').notNullable();
    t.text('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['connection_id', 'key_type', 'key_id']);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('baileys_auth');
}
