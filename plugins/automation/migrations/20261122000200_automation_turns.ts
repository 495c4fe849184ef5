import type { Knex } from 'knex';

/**
 * Bot states for every ticket the bot looks at (not only those it spoke in): `stage` may be null (the bot
 * has not spoken yet), a short per-ticket lease serialises the turns of one ticket across kernel nodes,
 * `queue_entered_at` orders the waiting line, `inactive_sent` keeps the inactivity reminder to one per
 * silence.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE automation_bot_states ALTER COLUMN stage DROP NOT NULL');
  await knex.schema.alterTable('automation_bot_states', (t) => {
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('queue_entered_at', { useTz: true });
    t.boolean('inactive_sent').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automation_bot_states', (t) => {
    t.dropColumn('lease_until');
    t.dropColumn('queue_entered_at');
    t.dropColumn('inactive_sent');
  });
  await knex.raw("UPDATE automation_bot_states SET stage = 'human' WHERE stage IS NULL");
  await knex.raw('ALTER TABLE automation_bot_states ALTER COLUMN stage SET NOT NULL');
}
