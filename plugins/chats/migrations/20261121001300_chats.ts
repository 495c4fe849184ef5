import type { Knex } from 'knex';

/**
 * Internal chat (spec 3-campaigns-and-tools.md "Internal chat"). Tenant tables: `company_id` NOT NULL and
 * indexed on each. `chats.owner_id` is the creator (null once the user is deleted); `last_message` a
 * preview of the newest message. `chat_users` holds the participants with their unread counts (a
 * participant row goes with its user). `chat_messages.sender_id` is null once the sender is deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chats', (t) => {
    t.increments('id');
    t.uuid('uuid').notNullable().unique();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('owner_id').references('users.id').onDelete('SET NULL');
    t.string('title', 200).notNullable();
    t.string('last_message', 500).notNullable().defaultTo('');
    t.timestamps(true, true);
    t.index(['company_id', 'updated_at']);
  });
  await knex.schema.createTable('chat_users', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('chat_id').notNullable().references('chats.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.integer('unreads').notNullable().defaultTo(0);
    t.timestamps(true, true);
    t.unique(['chat_id', 'user_id']);
    t.index(['company_id', 'user_id']);
  });
  await knex.schema.createTable('chat_messages', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('chat_id').notNullable().references('chats.id').onDelete('CASCADE');
    t.integer('sender_id').references('users.id').onDelete('SET NULL');
    t.text('message').notNullable().defaultTo('');
    t.string('media_path', 300);
    t.string('media_name', 200);
    t.timestamps(true, true);
    t.index(['company_id']);
    t.index(['chat_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('chat_messages');
  await knex.schema.dropTableIfExists('chat_users');
  await knex.schema.dropTableIfExists('chats');
}
