import type { Knex } from 'knex';

/**
 * The company form's `numberAttendants` and `numberConections` (spec 1-platform.md "Company": numeric,
 * default 1 each; the family's spelling): figures the super admin records for a company, shown and edited
 * with it. Not limits: the plan's `users` and `connections` are.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE companies ADD COLUMN IF NOT EXISTS number_attendants integer NOT NULL DEFAULT 1');
  await knex.raw('ALTER TABLE companies ADD COLUMN IF NOT EXISTS number_conections integer NOT NULL DEFAULT 1');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE companies DROP COLUMN IF EXISTS number_conections');
  await knex.raw('ALTER TABLE companies DROP COLUMN IF EXISTS number_attendants');
}
