import type { Knex } from 'knex';

/**
 * The plugin's table, prefixed by its id: a company's canned replies. Runs in the plugin's own migrations
 * table `knex_migrations_echo_integration`; a shipped file is never edited (a new version adds a file).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('echo_integration_replies', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('keyword', 60).notNullable();
    t.string('reply', 500).notNullable();
    t.timestamps(true, true);
    t.unique(['company_id', 'keyword']);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('echo_integration_replies');
}
