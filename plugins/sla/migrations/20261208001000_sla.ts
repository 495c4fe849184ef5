import type { Knex } from 'knex';

/**
 * The SLA plugin's tables (issue 34 item 5), tracked in `knex_migrations_sla`:
 * - `sla_policies`: a queue's targets (the queue is the queues plugin's: no foreign key; rows of deleted queues
 *   are never read, the list drops them);
 * - `sla_tickets`: each ticket's SLA clock and due times (the ticket is the tickets plugin's: no foreign key;
 *   the row follows its events).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sla_policies', (t) => {
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('queue_id').notNullable();
    t.integer('first_response_minutes');
    t.integer('resolution_minutes');
    t.smallint('warn_percent').notNullable().defaultTo(80);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['company_id', 'queue_id']);
  });
  await knex.raw(`ALTER TABLE sla_policies
    ADD CONSTRAINT sla_policies_targets CHECK (first_response_minutes IS NOT NULL OR resolution_minutes IS NOT NULL),
    ADD CONSTRAINT sla_policies_first_response CHECK (first_response_minutes IS NULL OR first_response_minutes > 0),
    ADD CONSTRAINT sla_policies_resolution CHECK (resolution_minutes IS NULL OR resolution_minutes > 0),
    ADD CONSTRAINT sla_policies_warn CHECK (warn_percent BETWEEN 1 AND 99)`);

  await knex.schema.createTable('sla_tickets', (t) => {
    t.integer('ticket_id').primary();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.uuid('uuid').notNullable();
    t.integer('queue_id').notNullable();
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('first_response_minutes');
    t.timestamp('first_response_warn_at', { useTz: true });
    t.timestamp('first_response_due_at', { useTz: true });
    t.timestamp('first_response_at', { useTz: true });
    t.integer('first_response_user_id').references('users.id').onDelete('SET NULL');
    t.timestamp('first_response_breached_at', { useTz: true });
    t.integer('resolution_minutes');
    t.timestamp('resolution_warn_at', { useTz: true });
    t.timestamp('resolution_due_at', { useTz: true });
    t.timestamp('resolved_at', { useTz: true });
    t.integer('resolution_user_id').references('users.id').onDelete('SET NULL');
    t.timestamp('resolution_breached_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['company_id', 'started_at']);
  });
  // The open breaches of a company (GET /sla/breaches): few rows, read often by supervisors' screens.
  await knex.raw(`CREATE INDEX sla_tickets_open_breaches ON sla_tickets (company_id, queue_id)
    WHERE resolved_at IS NULL AND (first_response_breached_at IS NOT NULL OR resolution_breached_at IS NOT NULL)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sla_tickets');
  await knex.schema.dropTableIfExists('sla_policies');
}
