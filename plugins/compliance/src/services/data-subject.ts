import type { Knex } from 'knex';
import { AppError, type AuditActor, type AuditRequestLike, type AuditService, type AuthUser } from '@atendo/sdk';
import type { ContactDetails, ContactPrivacy, ContactsService } from '@atendo/plugin-contacts/contract';
import type { ContactTicketsExport, TicketsService } from '@atendo/plugin-tickets/contract';
import type { Schedule, SchedulesService } from '@atendo/plugin-schedules/contract';
import type { CampaignsService, SubjectListItem, SubjectShipping } from '@atendo/plugin-campaigns/contract';
import type { DashboardService } from '@atendo/plugin-dashboard/contract';

/** The document of `GET /contacts/:id/export`. */
export interface ContactExport {
  format: 'atendo.contact-export';
  version: 1;
  exportedAt: string;
  contact: ContactDetails;
  /** Consent records: LGPD terms accepted, opt-out (keyword and date), anonymization. */
  consent: { lgpdAcceptedAt: string | null } & ContactPrivacy;
  tickets: ContactTicketsExport['tickets'];
  schedules: Schedule[];
  /** The contact-list items holding the person (its number or e-mail), with their legal basis and consent date (campaigns plugin). */
  listItems: SubjectListItem[];
  /** The campaigns that reached (or were to reach) the person: one row per campaign recipient (campaigns plugin). */
  campaignRecipients: SubjectShipping[];
}

/** The optional plugins whose copies of a person's data the export and the anonymization reach. */
export interface SubjectHolders {
  schedules?: SchedulesService;
  campaigns?: CampaignsService;
  dashboard?: DashboardService;
}

/** What an anonymization touched. */
export interface AnonymizeResult {
  contactId: number;
  tickets: number;
  messages: number;
  schedules: number;
  /** Contact-list items deleted (campaigns plugin; 0 without it). */
  listItems: number;
  /** Campaign recipient rows erased (campaigns plugin; 0 without it). */
  campaignRecipients: number;
}

/**
 * The data subject's rights (issue 34 item 2; LGPD art. 18): one JSON document with everything the
 * company holds about a contact, and the irreversible anonymization. Everything is reached through the
 * owning plugins' contract services (contacts, tickets; schedules, campaigns and dashboard when loaded),
 * each scoped to the caller's company; both actions are audited (the anonymization's entry in its own
 * transaction).
 */
export class DataSubject {
  constructor(
    private readonly db: Knex,
    private readonly audit: AuditService,
    private readonly contacts: ContactsService,
    private readonly tickets: TicketsService,
    private readonly holders: SubjectHolders = {},
  ) {}

  private async contactOr404(companyId: number, id: number): Promise<ContactDetails> {
    const contact = await this.contacts.get(companyId, id);
    if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND');
    return contact;
  }

  /** The export document of contact `id` of the caller's company (404 ERR_NO_CONTACT_FOUND); audited as `export`. */
  async export(req: AuditRequestLike & { auth: AuthUser }, id: number): Promise<ContactExport> {
    const companyId = req.auth.companyId;
    const contact = await this.contactOr404(companyId, id);
    const [privacy, tickets, schedules, campaigns] = await Promise.all([
      this.contacts.privacyOf?.(companyId, [id]),
      this.tickets.exportForContact?.(companyId, id),
      this.holders.schedules?.allForContact?.(companyId, id),
      this.holders.campaigns?.exportForContact(companyId, { contactId: id, number: contact.number, email: contact.email }),
    ]);
    await this.audit.record({ req, entity: 'contact', entityId: id, action: 'export', after: { tickets: tickets?.tickets.length ?? 0 } });
    return {
      format: 'atendo.contact-export',
      version: 1,
      exportedAt: new Date().toISOString(),
      contact,
      consent: { lgpdAcceptedAt: contact.lgpdAcceptedAt, ...(privacy?.get(id) ?? { anonymizedAt: null, optedOutAt: null, optOutKeyword: null }) },
      tickets: tickets?.tickets ?? [],
      schedules: schedules ?? [],
      listItems: campaigns?.listItems ?? [],
      campaignRecipients: campaigns?.shippings ?? [],
    };
  }

  /**
   * Anonymizes contact `id` (404 ERR_NO_CONTACT_FOUND) in one transaction: its conversations' texts and
   * media (tickets), its schedules, then the contact itself, and the audit entry. Ticket and message rows,
   * statuses, timestamps and ratings stay, so counts and statistics do not change. Irreversible.
   */
  async anonymize(req: AuditRequestLike & { auth: AuthUser }, id: number): Promise<AnonymizeResult> {
    return this.anonymizeIn(req.auth.companyId, id, { req });
  }

  /**
   * The anonymization itself, for a route (with its request) or a job (with an actor): the tickets'
   * contents, the schedules, the campaigns' list items and recipients (matched by the number and e-mail
   * read here first), the dashboard's copies of the last messages, then the contact, and the audit entry,
   * all in one transaction. 404 ERR_NO_CONTACT_FOUND for a contact not of `companyId`.
   */
  async anonymizeIn(companyId: number, id: number, who: { req?: AuditRequestLike; actor?: AuditActor }): Promise<AnonymizeResult> {
    if (!this.contacts.anonymize || !this.tickets.anonymizeContact) throw new AppError('ERR_INTERNAL', 'the contacts or tickets plugin cannot anonymize');
    const contact = await this.contactOr404(companyId, id);
    const { schedules: schedulesOf, campaigns, dashboard } = this.holders;
    const after: (() => Promise<void>)[] = [];
    const out = await this.db.transaction(async (trx) => {
      const t = await this.tickets.anonymizeContact!(companyId, id, trx);
      after.push(t.afterCommit);
      const schedules = (await schedulesOf?.removeForContact?.(companyId, id, trx)) ?? 0;
      const c = await campaigns?.anonymizeContact(companyId, { contactId: id, number: contact.number, email: contact.email }, trx);
      if (c) after.push(c.afterCommit);
      await dashboard?.anonymizeContact(companyId, { contactId: id, ticketIds: t.lastMessageTicketIds }, trx);
      await this.contacts.anonymize!(companyId, id, trx);
      const counts = { tickets: t.tickets, messages: t.messages, schedules, listItems: c?.listItems ?? 0, campaignRecipients: c?.shippings ?? 0 };
      await this.audit.record(trx, { companyId, req: who.req, actor: who.actor, entity: 'contact', entityId: id, action: 'anonymize', after: counts });
      return { contactId: id, ...counts };
    });
    for (const fn of after) await fn();
    return out;
  }
}
