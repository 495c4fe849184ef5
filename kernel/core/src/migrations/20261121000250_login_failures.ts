import type { Knex } from 'knex';

/**
 * Failed sign-ins per (client IP, e-mail), shared by every kernel node so the lockout of POST /auth/login
 * holds across the cluster (it was a per-node Map swept by a setInterval). A row lives until `until`
 * (one minute after the last failure); the recurring job `kernel.login-failures-sweep` deletes older rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_failures', (t) => {
    /** `<ip>|<lower-case e-mail>`. */
    t.string('key', 330).primary();
    t.integer('count').notNullable();
    t.timestamp('until', { useTz: true }).notNullable();
    t.index(['until']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('login_failures');
}
