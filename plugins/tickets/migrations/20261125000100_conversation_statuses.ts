import type { Knex } from 'knex';

/**
 * One conversation per contact and connection also while the bot waits for an LGPD answer (`lgpd`) or a
 * rating (`nps`): the unique index covers those statuses too, so the customer's answer lands in that ticket
 * and no second ticket is opened meanwhile (model.ts CONVERSATION_STATUSES).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tickets_one_active_per_contact');
  await knex.raw(
    `CREATE UNIQUE INDEX tickets_one_active_per_contact ON tickets (company_id, contact_id, COALESCE(whatsapp_id, 0)) WHERE status IN ('open', 'pending', 'group', 'nps', 'lgpd')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tickets_one_active_per_contact');
  await knex.raw(`CREATE UNIQUE INDEX tickets_one_active_per_contact ON tickets (company_id, contact_id, COALESCE(whatsapp_id, 0)) WHERE status IN ('open', 'pending', 'group')`);
}
