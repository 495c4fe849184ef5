import type { Knex } from 'knex';

/**
 * `whatsapp_session_leases`: which kernel node runs each WhatsApp (Baileys) session (issue 33 item 4). One row
 * per connection whose session should run: `node_id` holds it until `expires_at` (renewed by that node every
 * few seconds); a row whose `expires_at` passed belongs to a node that died (or handed it over on shutdown)
 * and is taken over by another node. `epoch` counts the owners the lease had (1 for the first, +1 at each
 * takeover). No row: no session should run (never started, disconnected, logged out, TIMEOUT, deleted).
 * Tenant table: `company_id` NOT NULL and indexed; rows go away with their connection or company.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('whatsapp_session_leases', (t) => {
    t.integer('connection_id').primary().references('whatsapps.id').onDelete('CASCADE');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('node_id', 200).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('acquired_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.bigInteger('epoch').notNullable().defaultTo(1);
    t.index(['company_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('whatsapp_session_leases');
}
