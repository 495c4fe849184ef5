import type { Knex } from 'knex';

/**
 * Tickets plugin tables: tickets, messages, ticket_notes, ticket_logs, ticket_tags.
 * Indexes are chosen for the ticket lists (page 1 of each tab, newest activity first, per company,
 * optionally per queue or user) and the conversation (newest messages of a ticket), at 100,000 tickets and
 * 1,000,000 messages per company.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  // btree_gin: the (company_id, body gin_trgm_ops) GIN index below needs an integer operator class for GIN.
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gin');

  await knex.schema.createTable('tickets', (t) => {
    t.increments('id');
    t.uuid('uuid').notNullable().unique();
    t.integer('company_id').notNullable();
    t.integer('contact_id').notNullable();
    t.integer('whatsapp_id');
    t.integer('queue_id');
    t.integer('user_id');
    t.string('status', 16).notNullable().defaultTo('pending');
    t.integer('unread_messages').notNullable().defaultTo(0);
    t.text('last_message');
    t.boolean('is_group').notNullable().defaultTo(false);
    t.boolean('is_bot').notNullable().defaultTo(false);
    t.string('channel', 20).notNullable().defaultTo('whatsapp');
    t.boolean('from_me').notNullable().defaultTo(false);
    t.integer('amount_used_bot_queues').notNullable().defaultTo(0);
    t.integer('amount_used_bot_queues_nps').notNullable().defaultTo(0);
    t.integer('prompt_id');
    t.boolean('use_integration').notNullable().defaultTo(false);
    t.integer('integration_id');
    t.boolean('imported').notNullable().defaultTo(false);
    t.boolean('is_out_of_hour').notNullable().defaultTo(false);
    t.boolean('send_inactive_message').notNullable().defaultTo(false);
    t.timestamp('lgpd_send_message_at', { useTz: true });
    t.timestamp('lgpd_accepted_at', { useTz: true });
    t.integer('user_rating');
    t.timestamp('closed_at', { useTz: true });
    t.timestamp('accepted_at', { useTz: true });
    t.timestamps(true, true);
  });
  // Tab lists: status + newest activity, optionally narrowed by queue or user.
  await knex.raw('CREATE INDEX tickets_company_status_updated ON tickets (company_id, status, updated_at DESC, id DESC)');
  await knex.raw('CREATE INDEX tickets_company_queue_status_updated ON tickets (company_id, queue_id, status, updated_at DESC, id DESC)');
  await knex.raw('CREATE INDEX tickets_company_user_status_updated ON tickets (company_id, user_id, status, updated_at DESC, id DESC)');
  await knex.raw('CREATE INDEX tickets_company_contact ON tickets (company_id, contact_id, updated_at DESC)');
  await knex.raw('CREATE INDEX tickets_company_unread ON tickets (company_id, updated_at DESC) WHERE unread_messages > 0');
  // One active ticket per contact and connection: the database enforces ERR_OTHER_OPEN_TICKET under races.
  await knex.raw(`CREATE UNIQUE INDEX tickets_one_active_per_contact ON tickets (company_id, contact_id, COALESCE(whatsapp_id, 0)) WHERE status IN ('open', 'pending', 'group')`);

  await knex.schema.createTable('messages', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').notNullable();
    t.integer('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.integer('contact_id');
    t.string('wid', 255);
    t.string('remote_jid', 255);
    t.string('participant', 255);
    t.text('data_json');
    t.smallint('ack').notNullable().defaultTo(0);
    t.boolean('read').notNullable().defaultTo(false);
    t.boolean('from_me').notNullable().defaultTo(false);
    t.text('body').notNullable().defaultTo('');
    t.string('media_path', 500);
    t.string('media_name', 255);
    t.string('media_type', 50).notNullable().defaultTo('conversation');
    t.boolean('is_deleted').notNullable().defaultTo(false);
    t.boolean('is_edited').notNullable().defaultTo(false);
    t.boolean('is_forwarded').notNullable().defaultTo(false);
    t.boolean('is_private').notNullable().defaultTo(false);
    t.bigInteger('quoted_msg_id');
    t.integer('queue_id');
    t.integer('user_id');
    t.jsonb('reactions').notNullable().defaultTo('[]');
    t.string('send_error', 100);
    t.timestamps(true, true);
  });
  await knex.raw('CREATE INDEX messages_ticket_created ON messages (ticket_id, created_at DESC, id DESC)');
  // Each provider message is stored once per company (inbound redelivery and echoes are no-ops).
  await knex.raw('CREATE UNIQUE INDEX messages_company_wid ON messages (company_id, wid) WHERE wid IS NOT NULL');
  await knex.raw('CREATE INDEX messages_company_body_trgm ON messages USING gin (company_id, body gin_trgm_ops)');
  await knex.raw('CREATE INDEX messages_company_unread ON messages (ticket_id) WHERE read = false AND from_me = false');

  await knex.schema.createTable('ticket_notes', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable();
    t.integer('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.integer('contact_id').notNullable();
    t.integer('user_id');
    t.text('note').notNullable();
    t.timestamps(true, true);
    t.index(['company_id', 'ticket_id']);
    t.index(['company_id', 'contact_id']);
  });

  await knex.schema.createTable('ticket_logs', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').notNullable();
    t.integer('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.integer('user_id');
    t.integer('queue_id');
    t.string('type', 30).notNullable();
    t.jsonb('data');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['ticket_id', 'created_at']);
  });

  await knex.schema.createTable('ticket_tags', (t) => {
    t.integer('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.integer('tag_id').notNullable();
    t.integer('company_id').notNullable();
    t.timestamps(true, true);
    t.primary(['ticket_id', 'tag_id']);
    t.index(['company_id', 'tag_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['ticket_tags', 'ticket_logs', 'ticket_notes', 'messages', 'tickets']) await knex.schema.dropTableIfExists(t);
}
