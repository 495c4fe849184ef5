import type { Knex } from 'knex';

/**
 * Campaigns (spec 3-campaigns-and-tools.md): contact lists and their items, campaigns, their recipients
 * ("shippings": one row per recipient of a started campaign, the dispatcher's unit of work and the report's
 * source) and the key/value campaign settings. Every table carries `company_id` (FK companies, cascade).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaigns_contact_lists', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 50).notNullable();
    t.timestamps(true, true);
    t.index(['company_id', 'name']);
  });

  await knex.schema.createTable('campaigns_contact_list_items', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('contact_list_id').notNullable().references('campaigns_contact_lists.id').onDelete('CASCADE');
    t.string('name', 50).notNullable();
    // E.164 digits without '+' (or as typed when libphonenumber cannot read it); '' when none.
    t.string('number', 50).notNullable().defaultTo('');
    t.string('email', 200).notNullable().defaultTo('');
    // null: unknown (no connection could check it).
    t.boolean('is_whatsapp_valid');
    t.timestamps(true, true);
    t.index(['company_id', 'contact_list_id', 'name']);
  });
  await knex.raw(`CREATE UNIQUE INDEX campaigns_contact_list_items_number ON campaigns_contact_list_items (contact_list_id, number) WHERE number <> ''`);

  await knex.schema.createTable('campaigns', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 50).notNullable();
    for (let i = 1; i <= 5; i++) t.text(`message${i}`).notNullable().defaultTo('');
    for (let i = 1; i <= 5; i++) t.text(`confirmation_message${i}`).notNullable().defaultTo('');
    t.string('status', 20).notNullable().defaultTo('INATIVA');
    t.boolean('confirmation').notNullable().defaultTo(false);
    t.timestamp('scheduled_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.integer('contact_list_id').references('campaigns_contact_lists.id').onDelete('SET NULL');
    t.integer('tag_list_id');
    // The chosen connections, in rotation order (ids of the connections plugin; no FK across plugins).
    t.specificType('whatsapp_ids', 'integer[]').notNullable().defaultTo('{}');
    t.string('media_path', 300);
    t.string('media_name', 200);
    // Dispatcher state: earliest time of the next send, sends since the last long pause, rotation cursor,
    // why it waits (null, 'connection'), when the dispatcher last ran.
    t.timestamp('next_send_at', { useTz: true });
    t.integer('sent_in_block').notNullable().defaultTo(0);
    t.integer('rotation').notNullable().defaultTo(0);
    t.string('paused', 20);
    t.timestamp('ticked_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['company_id', 'name']);
    t.index(['status']);
  });
  await knex.raw(`ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('INATIVA','PROGRAMADA','EM_ANDAMENTO','CANCELADA','FINALIZADA'))`);

  await knex.schema.createTable('campaigns_shippings', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    // The list item it was taken from (kept when the item is deleted later).
    t.integer('contact_list_item_id');
    t.integer('seq').notNullable();
    t.string('number', 50).notNullable();
    t.string('name', 50).notNullable().defaultTo('');
    t.string('email', 200).notNullable().defaultTo('');
    t.smallint('variant').notNullable();
    t.string('status', 20).notNullable().defaultTo('pending');
    t.integer('whatsapp_id');
    t.integer('contact_id');
    t.integer('ticket_id');
    t.bigInteger('message_id');
    t.bigInteger('confirmation_message_id');
    t.text('error');
    t.timestamp('confirmation_requested_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['campaign_id', 'seq']);
    t.index(['campaign_id', 'status', 'seq']);
  });
  await knex.raw(`ALTER TABLE campaigns_shippings ADD CONSTRAINT campaigns_shippings_status_check CHECK (status IN ('pending','confirmation','confirmed','delivered','failed'))`);
  await knex.raw(`CREATE UNIQUE INDEX campaigns_shippings_item ON campaigns_shippings (campaign_id, contact_list_item_id) WHERE contact_list_item_id IS NOT NULL`);
  // Replies looked up by the conversation handler: only rows awaiting a confirmation.
  await knex.raw(`CREATE INDEX campaigns_shippings_awaiting_contact ON campaigns_shippings (company_id, contact_id) WHERE status = 'confirmation'`);
  await knex.raw(`CREATE INDEX campaigns_shippings_awaiting_number ON campaigns_shippings (company_id, number) WHERE status = 'confirmation'`);
  // message.failed results mapped back to their recipient.
  await knex.raw(`CREATE INDEX campaigns_shippings_message ON campaigns_shippings (company_id, message_id) WHERE message_id IS NOT NULL`);
  await knex.raw(`CREATE INDEX campaigns_shippings_confirmation_message ON campaigns_shippings (company_id, confirmation_message_id) WHERE confirmation_message_id IS NOT NULL`);

  await knex.schema.createTable('campaigns_settings', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('key', 50).notNullable();
    // JSON text (the product family's CampaignSetting.value).
    t.text('value').notNullable();
    t.timestamps(true, true);
    t.unique(['company_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('campaigns_settings');
  await knex.schema.dropTableIfExists('campaigns_shippings');
  await knex.schema.dropTableIfExists('campaigns');
  await knex.schema.dropTableIfExists('campaigns_contact_list_items');
  await knex.schema.dropTableIfExists('campaigns_contact_lists');
}
