import type { Knex } from 'knex';

/**
 * Password-reset codes (spec 3-campaigns-and-tools.md "Password reset"). One row per code request, also for
 * numbers no user has (`user_id` null: the code is never sent and never matches), so answers and rate limits
 * are the same whether or not a number is registered. Only an HMAC of the code is kept.
 * Not a tenant table in the usual sense: rows are created before anyone signs in; `company_id` is the
 * matched user's company (null when none matched).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('password_resets', (t) => {
    t.uuid('id').primary();
    /** Canonical form of the number asked for (see auth/password-reset.ts `wppKey`). */
    t.string('wpp_key', 20).notNullable();
    t.integer('user_id').references('users.id').onDelete('CASCADE');
    t.integer('company_id').references('companies.id').onDelete('CASCADE');
    t.string('code_hash', 64).notNullable();
    t.smallint('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('verified_at', { useTz: true });
    /** Set when the code reset the password, or when a newer code superseded it. */
    t.timestamp('used_at', { useTz: true });
    t.string('ip', 64);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['wpp_key', 'created_at']);
    t.index(['user_id']);
    t.index(['company_id']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('password_resets');
}
