import type { Knex } from 'knex';
import { iso } from '@atendo/sdk';
import { ANONYMIZED_ERROR, type CampaignsService, type CampaignSubject, type SubjectListItem, type SubjectShipping } from '../contract';
import type { ListStore } from './lists';

const ITEMS = 'campaigns_contact_list_items';
const LISTS = 'campaigns_contact_lists';
const SHIPPINGS = 'campaigns_shippings';
const CAMPAIGNS = 'campaigns';
/** Recipient states not sent yet: they fail instead of going to an anonymized person. */
const UNSENT = ['pending', 'confirmation', 'confirmed'];

const at = (v: unknown) => (v ? iso(v) : null);

/**
 * The data subject's rights over the campaigns plugin's tables (issue 34 item 2; LGPD art. 18), offered as
 * the `campaigns` service (see `CampaignsService` in the contract). The person is matched, within the
 * company, by number (list items and recipients keep their own copy of it), by e-mail when the contact has
 * one, and recipients also by contact id.
 */
export class CampaignsDataSubject implements CampaignsService {
  constructor(
    private readonly db: Knex,
    private readonly lists: ListStore,
  ) {}

  /** List items of the person: its number (not blank), or its e-mail (not blank, case ignored). */
  private items(db: Knex | Knex.Transaction, companyId: number, who: CampaignSubject) {
    const number = (who.number ?? '').trim();
    const email = (who.email ?? '').trim().toLowerCase();
    return db(`${ITEMS} as i`)
      .where('i.companyId', companyId)
      .andWhere((w) => {
        if (number) void w.orWhere('i.number', number);
        if (email) void w.orWhereRaw('lower(i.email) = ?', [email]);
        if (!number && !email) void w.whereRaw('false');
      });
  }

  /** Recipient rows of the person: its contact id, its number or its e-mail. */
  private shippings(db: Knex | Knex.Transaction, companyId: number, who: CampaignSubject) {
    const number = (who.number ?? '').trim();
    const email = (who.email ?? '').trim().toLowerCase();
    return db(`${SHIPPINGS} as s`)
      .where('s.companyId', companyId)
      .andWhere((w) => {
        void w.where('s.contactId', who.contactId);
        if (number) void w.orWhere('s.number', number);
        if (email) void w.orWhereRaw('lower(s.email) = ?', [email]);
      });
  }

  async exportForContact(companyId: number, who: CampaignSubject): Promise<{ listItems: SubjectListItem[]; shippings: SubjectShipping[] }> {
    const items = (await this.items(this.db, companyId, who)
      .join(`${LISTS} as l`, 'l.id', 'i.contactListId')
      .select('i.*', 'l.name as listName')
      .orderBy('i.id')) as Record<string, unknown>[];
    const ships = (await this.shippings(this.db, companyId, who)
      .join(`${CAMPAIGNS} as c`, 'c.id', 's.campaignId')
      .select('s.*', 'c.name as campaignName')
      .orderBy('s.id')) as Record<string, unknown>[];
    return {
      listItems: items.map((r) => ({
        id: Number(r.id),
        contactListId: Number(r.contactListId),
        contactListName: String(r.listName),
        name: String(r.name),
        number: String(r.number ?? ''),
        email: String(r.email ?? ''),
        legalBasis: (r.legalBasis as string | null) ?? null,
        consentAt: at(r.consentAt),
        createdAt: iso(r.createdAt),
      })),
      shippings: ships.map((r) => ({
        campaignId: Number(r.campaignId),
        campaignName: String(r.campaignName),
        status: String(r.status),
        variant: Number(r.variant),
        error: (r.error as string | null) ?? null,
        confirmationRequestedAt: at(r.confirmationRequestedAt),
        confirmedAt: at(r.confirmedAt),
        deliveredAt: at(r.deliveredAt),
        createdAt: iso(r.createdAt),
      })),
    };
  }

  async anonymizeContact(companyId: number, who: CampaignSubject, trx: Knex.Transaction): Promise<{ listItems: number; shippings: number; afterCommit: () => Promise<void> }> {
    const deleted = (await this.items(trx, companyId, who).delete().returning(['i.id', 'i.contactListId'])) as { id: number; contactListId: number }[];
    const ids = ((await this.shippings(trx, companyId, who).select('s.id')) as { id: number | string }[]).map((r) => r.id);
    if (ids.length) {
      await trx(SHIPPINGS).where({ companyId }).whereIn('id', ids).whereIn('status', UNSENT).update({ status: 'failed', error: ANONYMIZED_ERROR });
      await trx(SHIPPINGS).where({ companyId }).whereIn('id', ids).update({ name: '', number: '', email: '', updatedAt: trx.fn.now() });
    }
    return { listItems: deleted.length, shippings: ids.length, afterCommit: () => this.lists.announceDeleted(companyId, deleted) };
  }
}
