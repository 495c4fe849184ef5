import type { Knex } from 'knex';

/** Help entries: platform-wide (no company), managed by super users, read by every signed-in user. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('helps', (t) => {
    t.increments('id');
    t.string('title', 200).notNullable();
    t.string('video', 200).notNullable().defaultTo('');
    t.text('description').notNullable().defaultTo('');
    t.string('link', 500);
    t.timestamps(true, true);
    t.index(['title']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('helps');
}
