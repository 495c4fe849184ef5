import type { Knex } from 'knex';

/**
 * The on-duty roster: one row per on-duty person of a company. `days` holds the seven weekdays (JSON:
 * weekday, weekdayEn, startTime, endTime); `last_notified_at` is the notifier's memory (interval rule).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plantao_entries', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('phone', 50).notNullable();
    t.integer('interval').notNullable().defaultTo(1);
    t.jsonb('days').notNullable();
    t.timestamp('last_notified_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('plantao_entries');
}
