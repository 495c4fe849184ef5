import type { Knex } from 'knex';

/**
 * File lists (spec 3-campaigns-and-tools.md §3 "File list"): `files_lists` (a named list with a message) and
 * `files_options` (its entries: a name and, once uploaded, a stored file under the company's upload folder
 * `fileList/`). Tracked in `knex_migrations_files`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files_lists', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.string('name', 100).notNullable();
    t.text('message').notNullable().defaultTo('');
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  await knex.raw('CREATE INDEX files_lists_company_name ON files_lists (company_id, lower(name), id)');
  await knex.schema.createTable('files_options', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('file_list_id').notNullable().references('files_lists.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.integer('position').notNullable().defaultTo(0);
    // Path relative to the company's upload folder (`fileList/{uuid}.{ext}`), the sniffed type, the client's name.
    t.string('path', 300);
    t.string('media_type', 150);
    t.string('media_name', 200);
    t.timestamps(true, true);
    t.index(['company_id']);
    t.index(['file_list_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('files_options');
  await knex.schema.dropTableIfExists('files_lists');
}
