import type { Knex } from 'knex';

/**
 * Queues (departments) of a company and the users that serve them.
 *
 * - `queues`: tenant table (`company_id` NOT NULL, indexed). Names and colours are unique per company,
 *   case-insensitively. `schedules` is the weekly service-hours list the queue modal edits.
 * - `user_queues`: membership, one row per (user, queue); `company_id` repeated for scoped reads. Rows go
 *   away with their queue, their user or their company.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('queues', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('color', 20).notNullable();
    t.text('greeting_message');
    t.text('out_of_hours_message');
    t.integer('order_queue');
    t.boolean('ativar_roteador').notNullable().defaultTo(false);
    t.integer('tempo_roteador').notNullable().defaultTo(0);
    t.jsonb('schedules').notNullable().defaultTo('[]');
    t.integer('integration_id');
    t.integer('file_list_id');
    t.integer('prompt_id');
    t.boolean('close_ticket').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX queues_company_name_unique ON queues (company_id, lower(name))');
  await knex.raw('CREATE UNIQUE INDEX queues_company_color_unique ON queues (company_id, lower(color))');

  await knex.schema.createTable('user_queues', (t) => {
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.integer('queue_id').notNullable().references('queues.id').onDelete('CASCADE');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.primary(['user_id', 'queue_id']);
    t.index(['queue_id']);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('user_queues');
  await knex.schema.dropTableIfExists('queues');
}
