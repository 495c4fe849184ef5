import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { MessageFailedEvent } from '@atendo/sdk';
import type { ConversationTurn, MessageStoredEvent, TicketsService } from '@atendo/plugin-tickets/contract';
import { isPositiveReply } from '../contract';
import { CAMPAIGNS, SHIPPINGS, type CampaignRow, type CampaignStore } from './campaigns';
import { SENDER_ID, type Dispatcher } from './dispatcher';
import { fillCampaignText, variantFor, variantsOf } from './rules';
import type { SettingsStore } from './settings';

/**
 * The campaign's order among the tickets plugin's conversation handlers: before the automation bot (order 0),
 * so a confirmation reply is answered by the campaign and the bot does not also greet or show its menu.
 */
export const HANDLER_ORDER = -100;

interface AwaitingRow {
  id: number;
  campaignId: number;
  seq: number;
  name: string;
  number: string;
  email: string;
  variant: number;
  whatsappId: number | null;
}

/**
 * Confirmation replies (issue 14 §4). A recipient of a campaign with `confirmation` on first gets the
 * confirmation text; only an explicit positive reply (`isPositiveReply`) from that recipient (the contact the
 * request was sent to, or the same number) confirms: it is answered at once with the campaign's message
 * (and media), and `confirmedAt` and `deliveredAt` are stored. Other replies, and replies from numbers not
 * awaiting a confirmation, pass to the next handler untouched. A reply confirming while the campaign is
 * cancelled is stored (`confirmed`) and answered when it restarts. The newest request of the number is the
 * one confirmed.
 */
export class Confirmations {
  constructor(
    private readonly d: {
      db: Knex;
      tickets: TicketsService;
      settings: SettingsStore;
      campaigns: CampaignStore;
      dispatcher: Dispatcher;
      log: FastifyBaseLogger;
    },
  ) {}

  /** The conversation handler's `onMessage`. */
  /** The chain's pre-check (no query): only a positive reply outside a group can confirm (see onMessage). */
  wants(e: MessageStoredEvent): boolean {
    return !e.ticket.isGroup && isPositiveReply(e.body);
  }

  async onMessage(turn: ConversationTurn): Promise<'handled' | 'pass'> {
    if (turn.ticket.isGroup || turn.contact.isGroup) return 'pass';
    const companyId = turn.companyId;
    const awaiting = (await this.d.db(SHIPPINGS)
      .where({ companyId, status: 'confirmation' })
      .where((w) => w.where({ contactId: turn.contact.id }).orWhere({ number: turn.contact.number }))
      .orderBy([{ column: 'confirmationRequestedAt', order: 'desc' }, { column: 'id', order: 'desc' }])
      .first('id')) as { id: number } | undefined;
    if (!awaiting || !isPositiveReply(turn.message.body)) return 'pass';

    const done = await this.d.db.transaction(async (trx) => {
      const head = (await trx(SHIPPINGS).where({ companyId, id: awaiting.id }).first('campaignId')) as { campaignId: number } | undefined;
      if (!head) return undefined;
      // The campaign row first, as the dispatcher does (same lock order).
      const c = (await trx(CAMPAIGNS).where({ companyId, id: head.campaignId }).forUpdate().first()) as CampaignRow | undefined;
      const s = (await trx(SHIPPINGS).where({ companyId, id: awaiting.id, status: 'confirmation' }).forUpdate().first()) as AwaitingRow | undefined;
      if (!c || !s) return undefined;
      const now = new Date();
      if (c.status !== 'EM_ANDAMENTO' && c.status !== 'FINALIZADA') {
        await trx(SHIPPINGS).where({ id: s.id }).update({ status: 'confirmed', confirmedAt: now, contactId: turn.contact.id, updatedAt: now });
        return { campaignId: c.id };
      }
      const settings = await this.d.settings.get(companyId, trx);
      const v = (c[`message${s.variant}` as 'message1'] ?? '').trim() ? s.variant : variantFor(s.seq, variantsOf(c));
      const body = fillCampaignText(c[`message${v}` as 'message1'] ?? '', { name: s.name, number: s.number, email: s.email }, settings.variables);
      const connectionId = turn.ticket.connectionId ?? s.whatsappId;
      if (!connectionId || (!body && !c.mediaPath)) {
        await trx(SHIPPINGS).where({ id: s.id }).update({ status: 'failed', confirmedAt: now, error: 'ERR_CAMPAIGN_INCOMPLETE', updatedAt: now });
        return { campaignId: c.id };
      }
      const input = c.mediaPath ? { contactId: turn.contact.id, body, media: { path: c.mediaPath, fileName: c.mediaName ?? c.mediaPath.split('/').pop()! } } : { contactId: turn.contact.id, body };
      const res = await this.d.tickets.sendToContacts!(companyId, connectionId, [input], { trx, handlerId: SENDER_ID });
      await trx(SHIPPINGS).where({ id: s.id }).update({ status: 'delivered', confirmedAt: now, deliveredAt: now, contactId: turn.contact.id, messageId: res.messages[0].id, ticketId: res.messages[0].ticketId, updatedAt: now });
      return { campaignId: c.id, announce: res.announce };
    });
    if (!done) return 'pass';
    await done.announce?.();
    await this.d.dispatcher.progress(companyId, done.campaignId, true);
    // That may have been the last confirmation the campaign waited for: the dispatcher ends it now.
    await this.d.dispatcher.wake(companyId, done.campaignId);
    return 'handled';
  }

  /**
   * `message.failed` of a campaign message (or confirmation request): the recipient becomes `failed` with the
   * channel's error code; other messages are ignored.
   */
  async onFailed(e: MessageFailedEvent): Promise<void> {
    if (!e.messageId) return;
    const code = typeof e.error === 'string' ? e.error.slice(0, 200) : e.error?.code ?? 'ERR_SENDING_WAPP_MSG';
    const rows = (await this.d.db(SHIPPINGS)
      .where({ companyId: e.companyId })
      .where((w) => w.where({ messageId: e.messageId }).orWhere({ confirmationMessageId: e.messageId }))
      .whereIn('status', ['delivered', 'confirmation'])
      .update({ status: 'failed', error: code, deliveredAt: null, updatedAt: this.d.db.fn.now() })
      .returning('campaignId')) as { campaignId: number }[];
    for (const r of rows) await this.d.dispatcher.progress(e.companyId, r.campaignId);
  }
}
