import type { Knex } from 'knex';

/**
 * Scheduled messages (spec 2-tickets.md §3 "Schedule", §4 "Schedule"; wire-shapes "GET /schedules"):
 * `schedules`, tracked in `knex_migrations_schedules`. Sending is a job of the kernel's scheduler
 * (`schedules.send`, key `schedule-{id}`), not a column poll.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedules', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.text('body').notNullable();
    t.timestamp('send_at', { useTz: true }).notNullable();
    t.timestamp('sent_at', { useTz: true });
    // PENDENTE (pending), ENVIADA (sent), ERRO (error).
    t.string('status', 10).notNullable().defaultTo('PENDENTE');
    // Why the schedule is ERRO (the last failure), else null.
    t.text('error');
    // The ticket and message the schedule went out as (ids of the tickets plugin; no foreign keys).
    t.integer('ticket_id');
    t.bigInteger('message_id');
    t.timestamps(true, true);
    t.index(['company_id', 'created_at']);
    t.index(['contact_id']);
  });
  await knex.raw("ALTER TABLE schedules ADD CONSTRAINT schedules_status_check CHECK (status IN ('PENDENTE', 'ENVIADA', 'ERRO'))");
  await knex.raw('CREATE INDEX schedules_message ON schedules (message_id) WHERE message_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('schedules');
}
