import type { Knex } from 'knex';

/**
 * The durable inbox and the dead letters (kernel/core/src/inbox/):
 *
 * - `inbox_events`: events acknowledged to the outside world (webhooks) before they are processed. A row
 *   is `pending` until its handler succeeded (then deleted) or `dead` (a permanent failure, or too many
 *   failed tries; kept for `npm run redrive`). `lease_until` marks a row a node is working on (another
 *   node takes it over after the lease); `next_at` delays a retry. UNIQUE (source, key): an event
 *   delivered twice while waiting is stored once.
 * - `bus_dead_letters`: dead letters of the in-process bus (RabbitMQ keeps its own in `<queue>.dlq`), so
 *   that they survive a restart and an operator can put them back (`npm run redrive`). `redrive_at` set:
 *   the running kernel puts the message back into its queue and deletes the row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE inbox_events (
      id bigserial PRIMARY KEY,
      source varchar(100) NOT NULL,
      key varchar(200) NOT NULL,
      payload bytea NOT NULL,
      meta jsonb NOT NULL DEFAULT '{}'::jsonb,
      received_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      next_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      state varchar(10) NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dead')),
      last_error text,
      CONSTRAINT inbox_events_source_key UNIQUE (source, key)
    )`);
  await knex.raw(`CREATE INDEX inbox_events_due ON inbox_events (source, next_at, id) WHERE state = 'pending'`);
  await knex.raw(`
    CREATE TABLE bus_dead_letters (
      id bigserial PRIMARY KEY,
      queue varchar(255) NOT NULL,
      message_id varchar(255) NOT NULL,
      topic varchar(255) NOT NULL,
      payload jsonb,
      headers jsonb NOT NULL DEFAULT '{}'::jsonb,
      published_at timestamptz,
      attempt integer NOT NULL DEFAULT 1,
      error text,
      dead_at timestamptz NOT NULL DEFAULT now(),
      redrive_at timestamptz
    )`);
  await knex.raw('CREATE INDEX bus_dead_letters_queue ON bus_dead_letters (queue, id)');
  await knex.raw('CREATE INDEX bus_dead_letters_redrive ON bus_dead_letters (redrive_at) WHERE redrive_at IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS bus_dead_letters');
  await knex.raw('DROP TABLE IF EXISTS inbox_events');
}
