import type { Knex } from 'knex';

/**
 * One table for every client-keyed limit, shared by all kernel nodes (kernel/core/src/auth/rate-limit.ts):
 * the failed-login lockout (which had `login_failures` of its own) and the request limits of
 * `@fastify/rate-limit` (sign-up, password reset, login per address, plugins' `config.rateLimit`), which were
 * per-node memory. `login_failures` becomes `rate_limits` (its rows keep working: their keys are given the
 * `login:` prefix the lockout now uses). A row is one window: `count` hits until `until`; the recurring job
 * `kernel.rate-limits-sweep` deletes ended windows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.renameTable('login_failures', 'rate_limits');
  await knex.raw('ALTER TABLE rate_limits ALTER COLUMN key TYPE varchar(400)');
  await knex.raw("UPDATE rate_limits SET key = 'login:' || key");
  await knex.raw('ALTER INDEX IF EXISTS login_failures_until_index RENAME TO rate_limits_until_index');
  await knex.raw('ALTER INDEX IF EXISTS login_failures_pkey RENAME TO rate_limits_pkey');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DELETE FROM rate_limits WHERE key NOT LIKE 'login:%'");
  await knex.raw("UPDATE rate_limits SET key = substr(key, 7)");
  await knex.raw('ALTER INDEX IF EXISTS rate_limits_until_index RENAME TO login_failures_until_index');
  await knex.raw('ALTER INDEX IF EXISTS rate_limits_pkey RENAME TO login_failures_pkey');
  await knex.schema.renameTable('rate_limits', 'login_failures');
}
