import type { Knex } from 'knex';

/**
 * Connections ("whatsapps" in the product family's API) and the queues they route to.
 *
 * - `whatsapps`: tenant table (`company_id` NOT NULL, indexed). Names are unique per company
 *   (case-insensitive); a company has at most one default connection (partial unique index); the
 *   external-API `token` is unique platform-wide; a Meta account id (`facebook_page_user_id`) is unique per
 *   channel platform-wide (webhooks are routed by it). Minutes fields are integers (0 = off).
 *   Secrets (`session`, `facebook_user_token`, `token_meta`) are stored here and never answered.
 * - `whatsapp_queues`: the queues a connection routes to. `queue_id` has no foreign key: queues belong to
 *   the optional queues plugin; rows of deleted queues are ignored on read and cleaned lazily. Rows go
 *   away with their connection or company.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('whatsapps', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 50).notNullable();
    t.string('channel', 20).notNullable().defaultTo('whatsapp');
    t.string('status', 50).notNullable().defaultTo('DISCONNECTED');
    t.text('qrcode').notNullable().defaultTo('');
    t.integer('retries').notNullable().defaultTo(0);
    t.string('number', 50).notNullable().defaultTo('');
    t.string('battery', 20);
    t.boolean('plugged');
    t.boolean('is_default').notNullable().defaultTo(false);
    t.boolean('allow_group').notNullable().defaultTo(false);
    t.text('greeting_message');
    t.text('complation_message');
    t.text('out_of_hours_message');
    t.text('rating_message');
    t.text('farewell_message');
    t.text('inactive_message');
    t.text('expires_inactive_message');
    t.string('token', 100).notNullable();
    t.string('provider', 20).notNullable().defaultTo('beta');
    t.integer('max_use_bot_queues').notNullable().defaultTo(3);
    t.integer('max_use_bot_queues_nps').notNullable().defaultTo(3);
    t.integer('expires_ticket').notNullable().defaultTo(0);
    t.integer('expires_ticket_nps').notNullable().defaultTo(0);
    t.integer('time_inactive_message').notNullable().defaultTo(0);
    t.integer('time_use_bot_queues').notNullable().defaultTo(0);
    t.integer('time_send_queue').notNullable().defaultTo(0);
    t.integer('send_id_queue');
    t.string('when_expires_ticket', 1).notNullable().defaultTo('0');
    t.integer('time_create_new_ticket').notNullable().defaultTo(0);
    t.string('group_as_ticket', 10).notNullable().defaultTo('disabled');
    t.string('greeting_media_attachment', 255);
    t.string('import_old_messages', 40);
    t.string('import_recent_messages', 40);
    t.boolean('import_old_messages_groups');
    t.boolean('closed_tickets_post_imported');
    t.string('status_import_messages', 50);
    t.integer('integration_id');
    t.integer('prompt_id');
    t.jsonb('schedules').notNullable().defaultTo('[]');
    t.string('facebook_user_id', 100);
    t.text('facebook_user_token');
    t.string('facebook_page_user_id', 64);
    t.text('token_meta');
    t.text('session');
    t.timestamps(true, true);
    t.index(['company_id']);
    t.unique(['token'], { indexName: 'whatsapps_token_unique' });
  });
  await knex.raw(`ALTER TABLE whatsapps ADD CONSTRAINT whatsapps_channel_check CHECK (channel IN ('whatsapp', 'whatsappapi', 'facebook', 'instagram'))`);
  await knex.raw(`ALTER TABLE whatsapps ADD CONSTRAINT whatsapps_group_as_ticket_check CHECK (group_as_ticket IN ('enabled', 'disabled'))`);
  await knex.raw(`ALTER TABLE whatsapps ADD CONSTRAINT whatsapps_when_expires_ticket_check CHECK (when_expires_ticket IN ('0', '1'))`);
  await knex.raw('CREATE UNIQUE INDEX whatsapps_company_name_unique ON whatsapps (company_id, lower(name))');
  await knex.raw('CREATE UNIQUE INDEX whatsapps_company_default_unique ON whatsapps (company_id) WHERE is_default');
  await knex.raw('CREATE UNIQUE INDEX whatsapps_channel_account_unique ON whatsapps (channel, facebook_page_user_id) WHERE facebook_page_user_id IS NOT NULL');

  await knex.schema.createTable('whatsapp_queues', (t) => {
    t.integer('whatsapp_id').notNullable().references('whatsapps.id').onDelete('CASCADE');
    t.integer('queue_id').notNullable();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.primary(['whatsapp_id', 'queue_id']);
    t.index(['queue_id']);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('whatsapp_queues');
  await knex.schema.dropTableIfExists('whatsapps');
}
