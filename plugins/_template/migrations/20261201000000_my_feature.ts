import type { Knex } from 'knex';

/**
 * The plugin's tables, prefixed by the plugin id. Tenant tables carry `company_id` NOT NULL with an index
 * and `ON DELETE CASCADE`. Migrations run in the plugin's own table `knex_migrations_my_feature`; a
 * shipped file is never edited or renamed (add a new one; see `migrationRenames` for the exception).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('my_feature_entries', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('title', 200).notNullable();
    t.integer('created_by').references('users.id').onDelete('SET NULL');
    t.timestamps(true, true);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('my_feature_entries');
}
