import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { Jobs } from '@atendo/sdk';
import type { Connection, ConnectionsService } from '@atendo/plugin-connections/contract';
import type { ContactsService, ContactChannel } from '@atendo/plugin-contacts/contract';
import type { ContactSendInput, ContactSendResult, TicketsService } from '@atendo/plugin-tickets/contract';
import { dispatchJob, type CampaignStatus } from '../contract';
import { CAMPAIGNS, SHIPPINGS, type CampaignRow, type CampaignStore } from './campaigns';
import { burstSize, confirmationTextFor, fillCampaignText, gapAfter, variantFor, variantsOf } from './rules';
import type { SettingsStore } from './settings';

/** The error of a recipient skipped because its contact opted out (issue 34). */
export const OPTED_OUT = 'ERR_OPTED_OUT';

/** The conversation-handler / sender id of campaign messages (`message.stored` `by.handlerId`, ticket logs). */
export const SENDER_ID = 'campaigns';
/** A paused campaign (no connected connection) looks again after this long, unless a connection reconnects first. */
export const PAUSE_RETRY_MS = 30_000;

/** A `campaigns_shippings` row (camelCase). */
export interface ShippingRow {
  id: number;
  companyId: number;
  campaignId: number;
  seq: number;
  number: string;
  name: string;
  email: string;
  variant: number;
  status: 'pending' | 'confirmation' | 'confirmed' | 'delivered' | 'failed';
  whatsappId: number | null;
  contactId: number | null;
}

/** What the dispatcher needs; built once in `register`. */
export interface DispatcherDeps {
  db: Knex;
  jobs: Jobs;
  tickets: TicketsService;
  contacts: ContactsService;
  connections: ConnectionsService;
  settings: SettingsStore;
  campaigns: CampaignStore;
  log: FastifyBaseLogger;
  /** Most recipients one transaction sends (messageInterval 0). */
  batchMax: number;
  /** How long one job run may go on sending before it hands over to a fresh run (other campaigns get turns), ms. */
  runBudgetMs: number;
  /** How long a recipient asked for a confirmation has to answer, ms (then it fails: CONFIRMATION_EXPIRED). */
  confirmationTtlMs?: number;
}

/** One send prepared for a recipient. */
interface Planned {
  item: ShippingRow;
  connection: Connection;
  input: Omit<ContactSendInput, 'contactId'>;
  /** What the row becomes once the text is stored. */
  next: 'confirmation' | 'delivered';
}

/** The outcome of one step (one transaction). */
type Step =
  | { kind: 'stop'; status?: { from: CampaignStatus; to: CampaignStatus }; announce?: () => Promise<void>; sent: number }
  | { kind: 'continue'; announce: () => Promise<void>; sent: number; rescheduled: boolean }
  | { kind: 'wait'; announce?: () => Promise<void>; sent: number; paused?: 'changed' };

/** Longest wait before the dispatcher looks again at a campaign whose recipients are answering their confirmation, ms. */
const CONFIRMATION_RECHECK_MS = 60_000;

const contactChannel = (channel: string): ContactChannel => (channel === 'whatsappapi' ? 'whatsappapi' : channel === 'facebook' ? 'facebook' : channel === 'instagram' ? 'instagram' : 'whatsapp');

/**
 * The paced, durable dispatcher of running campaigns (the `campaigns.dispatch` job, one pending job per
 * campaign, key `dispatch:<id>`). Each step is one transaction that holds the campaign's row lock: it checks
 * the status (anything but EM_ANDAMENTO stops it: cancel waits for the step and the next one sees
 * CANCELADA), honours `nextSendAt`, picks the next recipients in order (`FOR UPDATE SKIP LOCKED`), writes
 * their messages through the tickets service inside the same transaction, marks them, moves the pacing
 * state and schedules the next run in that transaction too. A recipient's row and its message commit
 * together or not at all, so a restart, a crash or a second node never sends one twice; the messages are
 * handed to the channel after commit (a node dying in that instant leaves the message stored, unsent, ack 0:
 * never duplicated). A campaign whose connections are all disconnected pauses (`paused: 'connection'`),
 * nothing fails; it resumes when one reconnects.
 */
export class Dispatcher {
  /** Last progress push per campaign (this node), ms. */
  private readonly lastEmit = new Map<number, number>();

  constructor(private readonly d: DispatcherDeps) {}

  /** The job handler: steps until the campaign waits, stops, or the run's budget is spent. */
  async run(companyId: number, campaignId: number): Promise<void> {
    const deadline = Date.now() + this.d.runBudgetMs;
    for (;;) {
      const step = await this.step(companyId, campaignId, deadline);
      if (step.announce) await step.announce();
      if (step.kind === 'stop') {
        this.lastEmit.delete(campaignId);
        if (step.status) await this.d.campaigns.statusChanged(companyId, campaignId, step.status.from, step.status.to);
        return;
      }
      await this.progress(companyId, campaignId, step.kind === 'wait' && step.paused === 'changed');
      if (step.kind === 'wait' || step.rescheduled) return;
    }
  }

  /** Pushes the campaign's counts at most once a second (always when `force`). */
  async progress(companyId: number, campaignId: number, force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - (this.lastEmit.get(campaignId) ?? 0) < 1000) return;
    this.lastEmit.set(campaignId, now);
    await this.d.campaigns.emitUpdate(companyId, campaignId);
  }

  /**
   * Recipients still awaiting their confirmation: those asked longer than the TTL ago fail now
   * (`CONFIRMATION_EXPIRED`); for the others, when to look again (their first expiry, at most a minute away so
   * that answered confirmations end the campaign soon), or null when none is left.
   */
  private async confirmationsLeft(trx: Knex.Transaction, c: CampaignRow, now: Date): Promise<Date | null> {
    const ttl = this.d.confirmationTtlMs ?? 86_400_000;
    await trx(SHIPPINGS)
      .where({ campaignId: c.id, status: 'confirmation' })
      .where('confirmationRequestedAt', '<=', new Date(now.getTime() - ttl))
      .update({ status: 'failed', error: 'CONFIRMATION_EXPIRED', updatedAt: now });
    const [{ oldest }] = (await trx(SHIPPINGS).where({ campaignId: c.id, status: 'confirmation' }).min({ oldest: 'confirmationRequestedAt' })) as { oldest: Date | string | null }[];
    if (!oldest) return null;
    const expiry = new Date(oldest).getTime() + ttl;
    return new Date(Math.max(now.getTime() + 200, Math.min(expiry, now.getTime() + CONFIRMATION_RECHECK_MS)));
  }

  /** Looks at the campaign now (a confirmation was answered: it may have been the last one awaited). */
  async wake(companyId: number, campaignId: number): Promise<void> {
    await this.d.jobs.schedule(dispatchJob, { companyId, campaignId }, { key: `dispatch:${campaignId}` });
  }

  private async schedule(trx: Knex.Transaction, c: CampaignRow, runAt?: Date): Promise<void> {
    await this.d.jobs.schedule(dispatchJob, { companyId: c.companyId, campaignId: c.id }, { key: `dispatch:${c.id}`, trx, ...(runAt ? { runAt } : {}) });
  }

  /** The campaign's connections that can send now, in rotation order. */
  private async connected(c: CampaignRow): Promise<Connection[]> {
    const out: Connection[] = [];
    for (const id of c.whatsappIds ?? []) {
      const conn = await this.d.connections.get(c.companyId, id);
      if (conn && conn.status === 'CONNECTED') out.push(conn);
    }
    return out;
  }

  /** One transaction of the dispatcher (see the class comment). */
  private async step(companyId: number, campaignId: number, deadline: number): Promise<Step> {
    return this.d.db.transaction(async (trx): Promise<Step> => {
      const c = (await trx(CAMPAIGNS).where({ companyId, id: campaignId }).forUpdate().first()) as CampaignRow | undefined;
      if (!c || c.status !== 'EM_ANDAMENTO') return { kind: 'stop', sent: 0 };
      const now = new Date();
      if (c.nextSendAt && c.nextSendAt.getTime() > now.getTime() + 20) {
        await trx(CAMPAIGNS).where({ id: c.id }).update({ tickedAt: now });
        await this.schedule(trx, c, c.nextSendAt);
        return { kind: 'wait', sent: 0 };
      }
      const conns = await this.connected(c);
      if (!conns.length) {
        await trx(CAMPAIGNS).where({ id: c.id }).update({ paused: 'connection', tickedAt: now, ...(c.paused ? {} : { updatedAt: now }) });
        await this.schedule(trx, c, new Date(now.getTime() + PAUSE_RETRY_MS));
        return { kind: 'wait', sent: 0, paused: c.paused ? undefined : 'changed' };
      }
      const settings = await this.d.settings.get(companyId, trx);
      const n = burstSize(c.sentInBlock, settings, this.d.batchMax);
      const items = (await trx(SHIPPINGS)
        .where({ campaignId: c.id })
        .whereIn('status', ['pending', 'confirmed'])
        .orderBy('seq')
        .limit(n)
        .forUpdate()
        .skipLocked()) as ShippingRow[];
      if (!items.length) {
        const [{ left }] = (await trx(SHIPPINGS).where({ campaignId: c.id }).whereIn('status', ['pending', 'confirmed']).count({ left: '*' })) as { left: number }[];
        if (Number(left) > 0) {
          // Rows locked by a confirmation being answered right now: look again shortly.
          await this.schedule(trx, c, new Date(now.getTime() + 1000));
          return { kind: 'wait', sent: 0 };
        }
        const recheck = await this.confirmationsLeft(trx, c, now);
        if (recheck) {
          await trx(CAMPAIGNS).where({ id: c.id }).update({ tickedAt: now });
          await this.schedule(trx, c, recheck);
          return { kind: 'wait', sent: 0 };
        }
        await trx(CAMPAIGNS).where({ id: c.id }).update({ status: 'FINALIZADA', completedAt: now, paused: null, nextSendAt: null, tickedAt: now, updatedAt: now });
        await this.d.campaigns.publishStatus(trx, companyId, campaignId, 'EM_ANDAMENTO', 'FINALIZADA');
        return { kind: 'stop', sent: 0, status: { from: 'EM_ANDAMENTO', to: 'FINALIZADA' } };
      }

      const variants = variantsOf(c);
      const planned: Planned[] = items.map((item, i) => {
        const connection = conns[(c.rotation + i) % conns.length];
        const v = (c[`message${item.variant}` as 'message1'] ?? '').trim() ? item.variant : variantFor(item.seq, variants);
        const who = { name: item.name, number: item.number, email: item.email };
        const asksConfirmation = c.confirmation && item.status === 'pending' && !!confirmationTextFor(c, v);
        if (asksConfirmation) return { item, connection, next: 'confirmation', input: { body: fillCampaignText(confirmationTextFor(c, v), who, settings.variables) } };
        const body = fillCampaignText(c[`message${v}` as 'message1'], who, settings.variables);
        return { item, connection, next: 'delivered', input: c.mediaPath ? { body, media: { path: c.mediaPath, fileName: c.mediaName ?? c.mediaPath.split('/').pop()! } } : { body } };
      });
      const outcome = await this.send(trx, companyId, planned);
      await this.mark(trx, planned, outcome, now);

      // The last recipients went out: the campaign ends now, not after the pause that would follow them.
      const more = await trx(SHIPPINGS).where({ campaignId: c.id }).whereIn('status', ['pending', 'confirmed']).first('id');
      const recheck = more ? null : await this.confirmationsLeft(trx, c, now);
      if (recheck) {
        // Nothing left to send, but recipients still have their confirmation to answer: look again then.
        await trx(CAMPAIGNS).where({ id: c.id }).update({ nextSendAt: null, sentInBlock: 0, rotation: (c.rotation + items.length) % 1_000_000, paused: null, tickedAt: now });
        await this.schedule(trx, c, recheck);
        const announceWaiting = async () => {
          for (const a of outcome.announces) await a();
        };
        return { kind: 'wait', sent: items.length, announce: announceWaiting };
      }
      if (!more) {
        await trx(CAMPAIGNS).where({ id: c.id }).update({ status: 'FINALIZADA', completedAt: now, paused: null, nextSendAt: null, sentInBlock: 0, rotation: (c.rotation + items.length) % 1_000_000, tickedAt: now, updatedAt: now });
        await this.d.campaigns.publishStatus(trx, companyId, campaignId, 'EM_ANDAMENTO', 'FINALIZADA');
        const announceLast = async () => {
          for (const a of outcome.announces) await a();
        };
        return { kind: 'stop', sent: items.length, announce: announceLast, status: { from: 'EM_ANDAMENTO', to: 'FINALIZADA' } };
      }
      const pace = gapAfter(c.sentInBlock + items.length, settings);
      // Counted from the end of this step (its messages go to the channel right after the commit).
      const nextSendAt = pace.gapSeconds > 0 ? new Date(Date.now() + pace.gapSeconds * 1000) : null;
      await trx(CAMPAIGNS)
        .where({ id: c.id })
        .update({ nextSendAt, sentInBlock: pace.sentInBlock, rotation: (c.rotation + items.length) % 1_000_000, paused: null, tickedAt: now, ...(c.paused ? { updatedAt: now } : {}) });
      const announce = async () => {
        for (const a of outcome.announces) await a();
      };
      if (nextSendAt) {
        await this.schedule(trx, c, nextSendAt);
        return { kind: 'wait', announce, sent: items.length, paused: c.paused ? 'changed' : undefined };
      }
      const rescheduled = Date.now() >= deadline;
      if (rescheduled) await this.schedule(trx, c);
      return { kind: 'continue', announce, sent: items.length, rescheduled };
    });
  }

  /**
   * Finds or creates the recipients' contacts and stores their messages in one go per connection, inside
   * `trx`; when a call fails (a text too long after its variables, a bad file), each of its recipients is
   * tried alone in a savepoint and the ones that still fail are marked failed with the error code.
   */
  private async send(trx: Knex.Transaction, companyId: number, all: Planned[]): Promise<{ results: Map<number, { contactId: number; ticketId: number; messageId: number } | { error: string }>; announces: (() => Promise<void>)[] }> {
    const results = new Map<number, { contactId: number; ticketId: number; messageId: number } | { error: string }>();
    const announces: (() => Promise<void>)[] = [];
    // Issue 34: contacts who opted out are skipped (failed with ERR_OPTED_OUT; the counts show them as optedOut).
    const optedOut = (await this.d.contacts.optedOutNumbers?.(companyId, all.map((p) => p.item.number))) ?? new Set<string>();
    for (const p of all) if (optedOut.has(p.item.number)) results.set(p.item.id, { error: OPTED_OUT });
    const planned = all.filter((p) => !optedOut.has(p.item.number));
    if (!planned.length) return { results, announces };
    const inputs = planned.map((p) => ({ number: p.item.number, name: p.item.name || p.item.number, channel: contactChannel(p.connection.channel) }));
    const contacts = this.d.contacts.findOrCreateMany
      ? await this.d.contacts.findOrCreateMany(companyId, inputs, trx)
      : await Promise.all(inputs.map((i) => this.d.contacts.findOrCreate(companyId, i, trx)));
    const byConnection = new Map<number, number[]>();
    planned.forEach((p, i) => byConnection.set(p.connection.id, [...(byConnection.get(p.connection.id) ?? []), i]));
    const sendToContacts = this.d.tickets.sendToContacts!.bind(this.d.tickets);
    const record = (idx: number[], res: ContactSendResult) => {
      idx.forEach((i, k) => results.set(planned[i].item.id, { contactId: contacts[i].id, ticketId: res.messages[k].ticketId, messageId: res.messages[k].id }));
      announces.push(res.announce);
    };
    for (const [connectionId, idx] of byConnection) {
      try {
        const res = await trx.transaction((sp) => sendToContacts(companyId, connectionId, idx.map((i) => ({ ...planned[i].input, contactId: contacts[i].id })), { trx: sp, handlerId: SENDER_ID }));
        record(idx, res);
      } catch (err) {
        if (idx.length === 1) {
          results.set(planned[idx[0]].item.id, { error: errorCode(err) });
          continue;
        }
        for (const i of idx) {
          try {
            const res = await trx.transaction((sp) => sendToContacts(companyId, connectionId, [{ ...planned[i].input, contactId: contacts[i].id }], { trx: sp, handlerId: SENDER_ID }));
            record([i], res);
          } catch (e) {
            results.set(planned[i].item.id, { error: errorCode(e) });
          }
        }
      }
    }
    return { results, announces };
  }

  /** Writes each recipient's new state in one statement. */
  private async mark(trx: Knex.Transaction, planned: Planned[], outcome: Awaited<ReturnType<Dispatcher['send']>>, now: Date): Promise<void> {
    const rows = planned.map((p) => {
      const r = outcome.results.get(p.item.id)!;
      if ('error' in r) return { id: p.item.id, status: 'failed', whatsappId: p.connection.id, contactId: null, ticketId: null, messageId: null, confirmationMessageId: null, error: r.error, requested: null, delivered: null };
      const confirmation = p.next === 'confirmation';
      return {
        id: p.item.id,
        status: p.next,
        whatsappId: p.connection.id,
        contactId: r.contactId,
        ticketId: r.ticketId,
        messageId: confirmation ? null : r.messageId,
        confirmationMessageId: confirmation ? r.messageId : null,
        error: null,
        requested: confirmation ? now.toISOString() : null,
        delivered: confirmation ? null : now.toISOString(),
      };
    });
    await trx.raw(
      `UPDATE ${SHIPPINGS} AS s SET status = v.status, whatsapp_id = v.whatsapp_id, contact_id = COALESCE(v.contact_id, s.contact_id),
              ticket_id = COALESCE(v.ticket_id, s.ticket_id), message_id = COALESCE(v.message_id, s.message_id),
              confirmation_message_id = COALESCE(v.confirmation_message_id, s.confirmation_message_id), error = v.error,
              confirmation_requested_at = COALESCE(v.requested, s.confirmation_requested_at), delivered_at = v.delivered, updated_at = now()
         FROM jsonb_to_recordset(?::jsonb) AS v(id bigint, status text, whatsapp_id int, contact_id int, ticket_id int, message_id bigint,
              confirmation_message_id bigint, error text, requested timestamptz, delivered timestamptz)
        WHERE s.id = v.id`,
      [
        JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            status: r.status,
            whatsapp_id: r.whatsappId,
            contact_id: r.contactId,
            ticket_id: r.ticketId,
            message_id: r.messageId,
            confirmation_message_id: r.confirmationMessageId,
            error: r.error,
            requested: r.requested,
            delivered: r.delivered,
          })),
        ),
      ],
    );
  }
}

/** The catalogue code of a failed send (`ERR_VALIDATION`, `ERR_UPLOAD_TYPE`, ...), else ERR_INTERNAL. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^ERR_[A-Z0-9_]+$/.test(code) ? code : 'ERR_INTERNAL';
}
