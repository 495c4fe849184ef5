import type { Knex } from 'knex';

/**
 * Issue 34 item 4 (LGPD art. 7): a contact-list item may record the legal basis its messages rely on
 * (`legal_basis`, one of `LEGAL_BASES` of the contract, null when not recorded) and when the person
 * consented (`consent_at`, null when not recorded). Both optional: lists made before keep working.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaigns_contact_list_items', (t) => {
    t.string('legal_basis', 30);
    t.timestamp('consent_at', { useTz: true });
  });
  await knex.raw(`ALTER TABLE campaigns_contact_list_items ADD CONSTRAINT campaigns_contact_list_items_legal_basis_check CHECK (legal_basis IN (
    'consent','legal-obligation','public-policy','research','contract','legal-claims','vital-interest','health','legitimate-interest','credit-protection'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE campaigns_contact_list_items DROP CONSTRAINT IF EXISTS campaigns_contact_list_items_legal_basis_check');
  await knex.schema.alterTable('campaigns_contact_list_items', (t) => {
    t.dropColumn('legal_basis');
    t.dropColumn('consent_at');
  });
}
