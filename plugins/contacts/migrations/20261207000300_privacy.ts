import type { Knex } from 'knex';

/**
 * A contact's privacy state (issue 34): `anonymized_at` (the data subject's personal data was erased:
 * LGPD art. 18), `opted_out_at` and `opt_out_keyword` (the customer asked to receive no more campaigns or
 * bulk sends, with the word it used; cleared when an admin reverses it at the customer's request).
 * A partial index finds a company's opted-out contacts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('contacts', (t) => {
    t.timestamp('anonymized_at', { useTz: true });
    t.timestamp('opted_out_at', { useTz: true });
    t.string('opt_out_keyword', 40);
  });
  await knex.raw('CREATE INDEX contacts_company_opted_out ON contacts (company_id, opted_out_at DESC) WHERE opted_out_at IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS contacts_company_opted_out');
  await knex.schema.alterTable('contacts', (t) => {
    t.dropColumn('anonymized_at');
    t.dropColumn('opted_out_at');
    t.dropColumn('opt_out_keyword');
  });
}
