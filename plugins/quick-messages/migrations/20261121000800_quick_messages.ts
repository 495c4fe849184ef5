import type { Knex } from 'knex';

/**
 * Quick messages (quick replies) of a company. Tenant table: `company_id` NOT NULL, indexed. Shortcodes are
 * unique per company, case-insensitively. `user_id` is the author (null once the author is deleted);
 * `geral` marks a message offered to every user of the company; `status` is the active flag.
 * `media_path` is relative to the company's upload folder (`quickMessage/{uuid}.{ext}`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quick_messages', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.string('shortcode', 50).notNullable();
    t.text('message').notNullable().defaultTo('');
    t.boolean('geral').notNullable().defaultTo(false);
    t.boolean('status').notNullable().defaultTo(true);
    t.string('media_path', 300);
    t.string('media_name', 200);
    t.string('media_type', 150);
    t.timestamps(true, true);
    t.index(['company_id']);
    t.index(['user_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX quick_messages_company_shortcode_unique ON quick_messages (company_id, lower(shortcode))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('quick_messages');
}
