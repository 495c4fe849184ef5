import type { Knex } from 'knex';

/**
 * `notifications`: in-app notifications of the users (issue 33: a connection that drops or needs a new QR
 * code is told to the company's admins). One row per recipient: `user_id` reads it, `read_at` is set when
 * that user marks it read. `kind` names what happened (`connection.dropped`, ...), `title`/`body` are the text
 * in the recipient's language, `link` the app path to open (e.g. `/connections`), `data` the facts behind it.
 * Tenant table: `company_id` NOT NULL and indexed (with the user); rows go with the company or the user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notifications', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('kind', 100).notNullable();
    t.string('title', 200).notNullable();
    t.text('body').notNullable();
    t.string('link', 500);
    t.jsonb('data');
    t.timestamp('read_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['company_id', 'user_id', 'id']);
  });
  await knex.raw('CREATE INDEX notifications_unread ON notifications (company_id, user_id) WHERE read_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notifications');
}
