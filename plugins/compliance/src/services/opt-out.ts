import type { FastifyBaseLogger } from 'fastify';
import { AppError, page, type AuditRequestLike, type AuditService, type AuthUser } from '@atendo/sdk';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import type { ConversationHandler, TicketsService } from '@atendo/plugin-tickets/contract';
import type { SettingsStore } from './settings';

/**
 * Opt-out and consent (issue 34 item 4): a customer who writes one of the company's opt-out words (the
 * whole message) is recorded as opted out on its contact (`contacts.setOptOut`), gets the confirmation, and
 * campaigns skip it from then on (the campaigns plugin asks `contacts.optedOutNumbers`). The conversation
 * handler runs before the bot (order -10) and stops the chain for that message only. An admin lists the
 * opted-out contacts and reverses one at the customer's request; both sides are audited.
 */
export class OptOuts {
  constructor(
    private readonly settings: SettingsStore,
    private readonly contacts: ContactsService,
    private readonly tickets: TicketsService,
    private readonly audit: AuditService,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The conversation handler contributed to `tickets.conversation-handlers`. */
  handler(): ConversationHandler {
    return {
      id: 'compliance.opt-out',
      order: -10,
      wants: async (event) => !event.ticket.isGroup && (await this.settings.matchOptOut(event.companyId, event.body)) !== null,
      onMessage: async (turn) => {
        if (turn.ticket.isGroup) return 'pass';
        const word = await this.settings.matchOptOut(turn.companyId, turn.message.body);
        if (!word) return 'pass';
        await this.contacts.setOptOut!(turn.companyId, turn.contact.id, { keyword: word });
        await this.audit.record({ companyId: turn.companyId, actor: { kind: 'bot', label: 'opt-out' }, entity: 'contact', entityId: turn.contact.id, action: 'opt-out', after: { keyword: word } });
        const { optOutReply } = await this.settings.cached(turn.companyId);
        await this.tickets.sendText(turn.companyId, turn.ticket.id, optOutReply, { fromBot: true, handlerId: 'compliance.opt-out' }).catch((err: unknown) => this.log.warn({ err, ticketId: turn.ticket.id }, 'compliance: opt-out confirmation not sent'));
        return 'handled';
      },
    };
  }

  /** A page of the company's opted-out contacts, latest first (20 a page). */
  async list(companyId: number, pageNumber: number | undefined) {
    const { offset, limit, hasMore } = page(pageNumber, 20);
    if (!this.contacts.listOptedOut) return { records: [], count: 0, hasMore: false };
    const { contacts, count } = await this.contacts.listOptedOut(companyId, { offset, limit });
    return { records: contacts, count, hasMore: hasMore(count, contacts.length) };
  }

  /** Records an opt-out by hand (the customer asked by other means); audited. 404 ERR_NO_CONTACT_FOUND. */
  async record(req: AuditRequestLike & { auth: AuthUser }, contactId: number) {
    const p = await this.contacts.setOptOut!(req.auth.companyId, contactId, { keyword: 'MANUAL' });
    await this.audit.record({ req, entity: 'contact', entityId: contactId, action: 'opt-out', after: { keyword: 'MANUAL' } });
    return { contactId, ...p };
  }

  /** Reverses a contact's opt-out at the customer's request; audited. 404 ERR_NO_CONTACT_FOUND. */
  async reverse(req: AuditRequestLike & { auth: AuthUser }, contactId: number) {
    const before = (await this.contacts.privacyOf!(req.auth.companyId, [contactId])).get(contactId);
    if (!before) throw new AppError('ERR_NO_CONTACT_FOUND');
    const p = await this.contacts.setOptOut!(req.auth.companyId, contactId, null);
    await this.audit.record({ req, entity: 'contact', entityId: contactId, action: 'opt-in', before: { optedOutAt: before.optedOutAt, keyword: before.optOutKeyword }, after: { optedOutAt: null } });
    return { contactId, ...p };
  }
}
