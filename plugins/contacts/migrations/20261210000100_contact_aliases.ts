import type { Knex } from 'knex';

/**
 * One contact per person (issue 33 item 5): the other addresses a contact is reached on.
 *
 * - `contact_aliases`: a phone number (`kind` 'number', E.164 digits without '+') or a WhatsApp LID
 *   (`kind` 'lid', `user@lid`) that belongs to a contact besides its own `number` and `lid` columns: the
 *   numbers and LIDs of the duplicates merged into it, so a later message from any of them lands on it.
 *   Unique per company and kind (an address names one contact); rows go with their contact.
 * - `contacts.lid` values with a device part (`user:12@lid`) are stored as `user@lid`, the form lookups use.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('contact_aliases', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.string('kind', 10).notNullable();
    t.string('address', 255).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['contact_id']);
  });
  await knex.raw("ALTER TABLE contact_aliases ADD CONSTRAINT contact_aliases_kind_check CHECK (kind IN ('number', 'lid'))");
  await knex.raw('CREATE UNIQUE INDEX contact_aliases_company_address ON contact_aliases (company_id, kind, address)');
  await knex.raw(`UPDATE contacts SET lid = regexp_replace(lid, '^([0-9]+):[0-9]+@lid$', '\\1@lid') WHERE lid ~ '^[0-9]+:[0-9]+@lid$'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('contact_aliases');
}
