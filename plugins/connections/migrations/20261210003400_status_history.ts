import type { Knex } from 'knex';

/**
 * `whatsapp_status_history`: the status changes of each connection (issue 33 item 3), written by
 * `updateStatus` in the transaction that changes the status, one row per change of `status` (QR refreshes and
 * repeated retries of one status are not new rows). `reason` says why a close happened when the session
 * manager knew it (`connectionLost`, `loggedOut`, `livenessProbe`, ...). The newest 200 rows of a connection are
 * kept. Tenant table: `company_id` NOT NULL, indexed with the connection; rows go with the connection.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('whatsapp_status_history', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('whatsapp_id').notNullable().references('whatsapps.id').onDelete('CASCADE');
    t.string('status', 50).notNullable();
    t.string('previous_status', 50);
    t.string('reason', 100);
    t.integer('retries').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['company_id', 'whatsapp_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('whatsapp_status_history');
}
