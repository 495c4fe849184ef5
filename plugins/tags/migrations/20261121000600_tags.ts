import type { Knex } from 'knex';

/**
 * Tags of a company (spec 2-tickets.md §3 "Tag"): normal tags (`kanban = 0`) label contacts and tickets;
 * kanban tags (`kanban = 1`) are the lanes of the kanban board.
 *
 * - `tags`: tenant table (`company_id` NOT NULL, indexed). A name is unique per company and kind,
 *   case-insensitively (`tags_company_name_kanban_unique`). `user_id` is the user who created the tag.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tags', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('color', 20).notNullable();
    t.integer('kanban').notNullable().defaultTo(0);
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  await knex.raw('ALTER TABLE tags ADD CONSTRAINT tags_kanban_check CHECK (kanban IN (0, 1))');
  await knex.raw('CREATE UNIQUE INDEX tags_company_name_kanban_unique ON tags (company_id, lower(name), kanban)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('tags');
}
