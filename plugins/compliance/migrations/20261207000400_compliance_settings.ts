import type { Knex } from 'knex';

/**
 * The compliance settings of a company (issue 34): `opt_out_keywords` (the words that opt a customer out of
 * campaigns and bulk sends, matched as the whole message, case and accents ignored; default SAIR, PARAR,
 * STOP, CANCELAR), `opt_out_reply` (the confirmation sent back; null = the default text) and
 * `retention_days` (closed conversations older than that are anonymized by the retention job; null = off).
 * One row per company, created on first write; a company without a row has the defaults.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('compliance_settings', (t) => {
    t.integer('company_id').primary().references('companies.id').onDelete('CASCADE');
    t.jsonb('opt_out_keywords').notNullable().defaultTo(JSON.stringify(['SAIR', 'PARAR', 'STOP', 'CANCELAR']));
    t.text('opt_out_reply');
    t.integer('retention_days');
    t.timestamps(true, true);
  });
  await knex.raw('ALTER TABLE compliance_settings ADD CONSTRAINT compliance_settings_retention_check CHECK (retention_days IS NULL OR retention_days BETWEEN 1 AND 3650)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('compliance_settings');
}
