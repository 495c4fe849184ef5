import type { Knex } from 'knex';

/**
 * The transactional outbox, the dead letters' company, and the send ledger (kernel/core/src/bus/outbox.ts):
 *
 * - `outbox_events`: an event published with `{trx}` (or on the in-process bus) is a row first; the relay
 *   publishes it and deletes it once the bus has it for good (RabbitMQ's confirm; in-process, every consumer
 *   handled it). `lease_until` marks a row a node is publishing; `state = 'dead'` keeps an event the bus refused
 *   for good (operators see and redrive it). `company_id` is the payload's `companyId`, for the operators' screen.
 * - `bus_dead_letters.company_id`: the company a dead letter belongs to (its payload's `companyId`), so that a
 *   company's admin sees its own on the delivery screen; `source` says which bus kept it.
 * - `outbound_sends`: what a channel adapter already handed to its provider, by the command's stable key, so a
 *   command delivered again after a crash is answered from here instead of being sent twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE outbox_events (
      id bigserial PRIMARY KEY,
      message_id varchar(255) NOT NULL,
      topic varchar(255) NOT NULL,
      payload jsonb,
      headers jsonb NOT NULL DEFAULT '{}'::jsonb,
      company_id integer,
      published_at timestamptz NOT NULL DEFAULT now(),
      next_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      state varchar(10) NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dead')),
      last_error text
    )`);
  await knex.raw(`CREATE INDEX outbox_events_due ON outbox_events (id) WHERE state = 'pending'`);
  await knex.raw(`CREATE INDEX outbox_events_dead ON outbox_events (company_id, id) WHERE state = 'dead'`);
  await knex.raw('ALTER TABLE bus_dead_letters ADD COLUMN company_id integer');
  await knex.raw("UPDATE bus_dead_letters SET company_id = (payload->>'companyId')::int WHERE jsonb_typeof(payload->'companyId') = 'number'");
  await knex.raw('CREATE INDEX bus_dead_letters_company ON bus_dead_letters (company_id, id)');
  await knex.raw(`
    CREATE TABLE outbound_sends (
      key varchar(255) PRIMARY KEY,
      company_id integer NOT NULL,
      external_id varchar(255) NOT NULL,
      sent_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX outbound_sends_sent_at ON outbound_sends (sent_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS outbound_sends');
  await knex.raw('DROP INDEX IF EXISTS bus_dead_letters_company');
  await knex.raw('ALTER TABLE bus_dead_letters DROP COLUMN IF EXISTS company_id');
  await knex.raw('DROP TABLE IF EXISTS outbox_events');
}
