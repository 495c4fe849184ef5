import type { Knex } from 'knex';

/** `prompts_sessions.lease_until`: the run answering a ticket holds it, so a ticket gets one answer at a time. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('prompts_sessions', (t) => {
    t.timestamp('lease_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('prompts_sessions', (t) => t.dropColumn('lease_until'));
}
