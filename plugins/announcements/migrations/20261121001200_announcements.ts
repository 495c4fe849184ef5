import type { Knex } from 'knex';

/**
 * Announcements: platform-wide notices written by super users and shown to every signed-in user of every
 * company (the top-bar popover). `company_id` is the author's company (the platform company, 1): it names
 * the upload folder of the attached image (`company{id}/announcements/{uuid}.{ext}` in `media_path`); it
 * does NOT scope who reads the row. `priority`: 1 high, 2 medium, 3 low (default). `status`: active flag.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('announcements', (t) => {
    t.increments('id');
    t.smallint('priority').notNullable().defaultTo(3);
    t.string('title', 200).notNullable();
    t.text('text').notNullable();
    t.string('media_path', 300);
    t.string('media_name', 200);
    t.boolean('status').notNullable().defaultTo(true);
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.index(['status', 'priority', 'created_at']);
  });
  await knex.raw('ALTER TABLE announcements ADD CONSTRAINT announcements_priority_check CHECK (priority BETWEEN 1 AND 3)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('announcements');
}
