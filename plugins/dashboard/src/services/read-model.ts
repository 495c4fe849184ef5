import type { Knex } from 'knex';
import { WriteBatcher } from '@atendo/sdk';
import type { TicketRow, TicketsService } from '@atendo/plugin-tickets/contract';
import type { AutomationService } from '@atendo/plugin-automation/contract';

/** Tickets read per page of the backfill (the tickets service's maximum). */
const BACKFILL_PAGE = 1000;
/** How long a last-message write waits for others to share its statement (milliseconds). */
const LAST_MESSAGE_LINGER_MS = 25;
/**
 * How long a ticket refresh waits for others to share its read and upsert (milliseconds): a new ticket's
 * `ticket.created` and `ticket.changed` arrive within a few ms of each other and become one refresh.
 */
const REFRESH_LINGER_MS = 15;
/** Ratings read per call of the backfill (the automation service's maximum). */
const RATINGS_PAGE = 10_000;

/**
 * The dashboard's own copy of the tickets it counts (`dashboard_tickets`): written from the tickets
 * service's rows (after each bus event, and by the backfill), never from the tickets plugin's tables. A
 * row is replaced only by a snapshot at least as new (`source_updated_at`), so late or repeated events
 * and a backfill racing the events converge on the newest state. Ratings come from the automation plugin.
 */
export class ReadModel {
  private readonly running = new Map<number, Promise<void>>();
  /** Companies known to be backfilled (the check is one query otherwise; the fact never reverts). */
  private readonly backfilled = new Set<number>();
  /**
   * Refreshes waiting meanwhile (or arriving within REFRESH_LINGER_MS) go together: one read, one upsert and
   * one `dashboard.changed` per company.
   */
  private readonly refreshes = new WriteBatcher<{ companyId: number; ticketId: number }>(async (items) => {
    const byCompany = new Map<number, Set<number>>();
    for (const i of items) byCompany.set(i.companyId, (byCompany.get(i.companyId) ?? new Set()).add(i.ticketId));
    for (const [companyId, ids] of byCompany) {
      const rows = await this.tickets.getMany(companyId, [...ids]);
      const found = new Set(rows.map((r) => r.id));
      const gone = [...ids].filter((id) => !found.has(id));
      await this.upsert(rows);
      if (gone.length) await this.db('dashboardTickets').where({ companyId }).whereIn('ticketId', gone).del();
      await this.changed(companyId);
    }
  }, { lingerMs: REFRESH_LINGER_MS });
  /**
   * Last-message writes go in one UPDATE per 25 ms at most (one per message otherwise: the busiest write
   * here). Nobody waits for them: the panel reads the text, no figure depends on it.
   */
  private readonly lastMessages = new WriteBatcher<{ companyId: number; ticketId: number; messageId: number; body: string }>((items) => {
    // Per ticket, the newest message of the batch.
    const newest = new Map<string, (typeof items)[number]>();
    for (const i of items) {
      const key = `${i.companyId}:${i.ticketId}`;
      const seen = newest.get(key);
      if (!seen || i.messageId > seen.messageId) newest.set(key, i);
    }
    const rows = [...newest.values()];
    return this.db.raw(
      `UPDATE dashboard_tickets AS d SET last_message = v.body
       FROM unnest(?::int[], ?::int[], ?::text[]) AS v(company_id, ticket_id, body)
       WHERE d.company_id = v.company_id AND d.ticket_id = v.ticket_id`,
      [rows.map((r) => r.companyId), rows.map((r) => r.ticketId), rows.map((r) => r.body)],
    );
    }, { lingerMs: LAST_MESSAGE_LINGER_MS });

  /** `changed(companyId)` runs after every write that changes a company's figures (announces `dashboard.changed`). */
  constructor(
    private readonly db: Knex,
    private readonly tickets: TicketsService,
    private readonly automation: () => AutomationService | undefined,
    private readonly changed: (companyId: number) => Promise<void> = async () => undefined,
  ) {}

  /** Writes the snapshots (one statement; older snapshots than the stored ones are ignored). */
  async upsert(rows: TicketRow[], lastMessages: Map<number, string> = new Map()): Promise<void> {
    if (!rows.length) return;
    const values = rows.map((t) => ({
      ticketId: t.id,
      companyId: t.companyId,
      uuid: t.uuid,
      status: t.status,
      queueId: t.queueId,
      userId: t.userId,
      connectionId: t.whatsappId,
      contactId: t.contactId,
      isGroup: t.isGroup,
      lastMessage: lastMessages.get(t.id) ?? t.lastMessage ?? null,
      createdAt: t.createdAt,
      acceptedAt: t.acceptedAt,
      closedAt: t.closedAt,
      sourceUpdatedAt: t.updatedAt,
    }));
    await this.db('dashboardTickets')
      .insert(values)
      .onConflict('ticketId')
      .merge(['status', 'queueId', 'userId', 'connectionId', 'contactId', 'isGroup', 'lastMessage', 'acceptedAt', 'closedAt', 'sourceUpdatedAt'])
      .where('dashboardTickets.sourceUpdatedAt', '<=', this.db.raw('excluded.source_updated_at'));
  }

  /** Re-reads one ticket through the tickets service and stores it (deleted tickets leave the model). */
  /**
   * Re-reads the ticket through the tickets service and stores it (deleted tickets leave the model). Without
   * `lastMessage`, the refreshes that arrive while one is being written go together (one read, one upsert and
   * one `dashboard.changed` per company for all of them).
   */
  async refresh(companyId: number, ticketId: number, lastMessage?: string): Promise<void> {
    if (lastMessage === undefined) return this.refreshes.add({ companyId, ticketId });
    const t = await this.tickets.get(companyId, ticketId);
    if (!t) {
      await this.db('dashboardTickets').where({ companyId, ticketId }).del();
    } else {
      await this.upsert([t], lastMessage !== undefined ? new Map([[t.id, lastMessage]]) : undefined);
    }
    await this.changed(companyId);
  }

  /**
   * A message was stored in the ticket: its text becomes the row's last message (the panel shows it). No
   * figure depends on it, so nothing is re-read and no `dashboard.changed` follows; a ticket the model does
   * not know yet arrives with its own `ticket.created`.
   */
  async lastMessage(companyId: number, ticketId: number, body: string, messageId = 0): Promise<void> {
    await this.lastMessages.add({ companyId, ticketId, messageId, body });
  }

  /**
   * The `dashboard` service's anonymization (issue 34): inside `trx`, the copied last message of the
   * contact's tickets and of `ticketIds` is emptied; no counted column changes (the rollups' trigger does
   * not fire for it).
   */
  async anonymizeContact(companyId: number, who: { contactId: number; ticketIds?: number[] }, trx: Knex.Transaction): Promise<number> {
    const ids = (who.ticketIds ?? []).filter((id) => Number.isInteger(id));
    return trx('dashboardTickets')
      .where({ companyId })
      .andWhere((w) => {
        void w.where({ contactId: who.contactId });
        if (ids.length) void w.orWhereIn('ticketId', ids);
      })
      .update({ lastMessage: '' });
  }

  /** Stores a rating (0..10) of a ticket, fetching the ticket first when the model does not know it yet. */
  async rate(companyId: number, ticketId: number, rate: number, at: Date = new Date()): Promise<void> {
    const n = await this.db('dashboardTickets').where({ companyId, ticketId }).update({ rating: rate, ratedAt: at });
    if (!n) {
      await this.refresh(companyId, ticketId);
      await this.db('dashboardTickets').where({ companyId, ticketId }).update({ rating: rate, ratedAt: at });
    }
    await this.changed(companyId);
  }

  /**
   * Makes sure the tickets the company had before the plugin listened are in the model: once per company
   * (recorded in `dashboard_backfills`), pages through `tickets.listAfter` and the automation plugin's
   * ratings. Concurrent callers on this node share one run; another node running it too only repeats
   * idempotent writes.
   */
  async ensureBackfilled(companyId: number): Promise<void> {
    if (this.backfilled.has(companyId)) return;
    const done = await this.db('dashboardBackfills').where({ companyId }).first('companyId');
    if (done) {
      this.backfilled.add(companyId);
      return;
    }
    let run = this.running.get(companyId);
    if (!run) {
      run = this.backfill(companyId).finally(() => this.running.delete(companyId));
      this.running.set(companyId, run);
    }
    await run;
  }

  private async backfill(companyId: number): Promise<void> {
    const listAfter = this.tickets.listAfter;
    let count = 0;
    if (listAfter) {
      let after = 0;
      for (;;) {
        const page = await listAfter(companyId, after, BACKFILL_PAGE);
        if (!page.length) break;
        await this.upsert(page);
        count += page.length;
        after = page[page.length - 1].id;
        if (page.length < BACKFILL_PAGE) break;
      }
    }
    const automation = this.automation();
    if (automation) {
      let to: string | undefined;
      const seen = new Set<number>();
      for (;;) {
        const ratings = await automation.listRatings(companyId, { ...(to ? { to } : {}), limit: RATINGS_PAGE });
        const fresh = ratings.filter((r) => !seen.has(r.id));
        if (!fresh.length) break;
        for (const r of fresh) seen.add(r.id);
        for (let i = 0; i < fresh.length; i += 500) {
          const chunk = fresh.slice(i, i + 500);
          await this.db.raw(
            `UPDATE dashboard_tickets d SET rating = v.rate, rated_at = v.at
               FROM (SELECT * FROM unnest(?::int[], ?::int[], ?::timestamptz[]) AS x(ticket_id, rate, at)) v
              WHERE d.company_id = ? AND d.ticket_id = v.ticket_id AND d.rating IS NULL`,
            [chunk.map((r) => r.ticketId), chunk.map((r) => r.rate), chunk.map((r) => r.createdAt), companyId],
          );
        }
        if (ratings.length < RATINGS_PAGE) break;
        to = ratings[ratings.length - 1].createdAt;
      }
    }
    await this.db('dashboardBackfills').insert({ companyId, tickets: count }).onConflict('companyId').ignore();
    this.backfilled.add(companyId);
    await this.changed(companyId);
  }
}
