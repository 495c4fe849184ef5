import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { TtlCache, type Jobs, type JobRun, type UploadService } from '@atendo/sdk';
import type { ConversationTurn, MessageStoredEvent, TicketActor, TicketsService } from '@atendo/plugin-tickets/contract';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { integrationTurnJob, type IntegrationInboxTurn, type IntegrationRecord, type IntegrationTurnData, type IntegrationTools, type IntegrationType } from '../contract';
import type { IntegrationStore } from './store';
import type { SafeHttp } from './safe-http';

/** The handler id (`ConversationHandler.id`, `message.stored` `by.handlerId`, ticket logs). */
/** How long a queue's or connection's attachment read is reused (every inbound message asks). */
const ATTACHMENT_TTL_MS = 2000;


export const HANDLER_ID = 'integrations';
const BY: TicketActor = { kind: 'bot', handlerId: HANDLER_ID };
const SESSIONS = 'integrationsSessions';
const INBOX = 'integrationsInbox';
/** How long a run may drain a ticket before another may take over (a dead node's claim expires). */
const LEASE = "interval '10 minutes'";

/** A row of `integrations_inbox`. */
interface InboxRow {
  id: number;
  companyId: number;
  ticketId: number;
  integrationId: number;
  attempts: number;
  turn: IntegrationInboxTurn;
}

/** A permanent failure: no retry, the ticket goes to humans at once (e.g. a 4xx answer). */
export class PermanentError extends Error {}

export interface EngineDeps {
  db: Knex;
  log: FastifyBaseLogger;
  jobs: Jobs;
  tickets: TicketsService;
  queues?: QueuesService;
  connections?: ConnectionsService;
  uploads: UploadService;
  store: IntegrationStore;
  http: SafeHttp;
  types: () => Map<string, IntegrationType>;
  maxAttempts: number;
  maxMediaBytes: number;
}

/**
 * Runs tickets through integrations: the conversation handler decides whether a customer message is an
 * integration's (the ticket's `integrationId`, else its queue's, else its connection's), stores it in the
 * ticket's inbox and schedules the ticket's `integrations.turn` job, which runs the waiting messages one at a
 * time, in order, through the integration type's handler, with retries and backoff; after the last failed attempt the ticket goes to its queue's humans
 * with a private note saying why. Nothing here blocks the inbound pipeline.
 */
export class IntegrationEngine {
  private readonly attachments = new TtlCache<number | null>(ATTACHMENT_TTL_MS);
  constructor(private readonly d: EngineDeps) {}

  /** The conversation handler (`tickets.conversation-handlers`). */
  /** The chain's pre-check (the event and the cached attachments): false where onMessage passes on the ticket alone. */
  async wants(e: MessageStoredEvent): Promise<boolean> {
    const t = e.ticket;
    if (t.isGroup || t.status !== 'pending' || t.userId !== null) return false;
    if (t.useIntegration) return t.integrationId !== null;
    if (t.promptId !== null) return false;
    return (await this.attachedIntegration(e.companyId, t.queueId, t.connectionId)) !== null;
  }

  async onMessage(turn: ConversationTurn): Promise<'handled' | 'pass'> {
    const { companyId, ticket: t, contact } = turn;
    if (contact.disableBot || t.isGroup || t.status !== 'pending' || t.userId !== null) return 'pass';
    let integration: IntegrationRecord | undefined;
    if (t.useIntegration) {
      // Another plugin's integration ids (a third-party handler) are not in our table: pass.
      if (t.integrationId === null) return 'pass';
      integration = await this.d.store.record(companyId, t.integrationId);
      if (!integration) return 'pass';
    } else {
      if (t.promptId !== null) return 'pass';
      // Most messages: nothing attached (cached reads), no query of our own.
      const id = await this.attachedIntegration(companyId, t.queueId, t.connectionId);
      if (id === null) return 'pass';
      const session = await this.d.db(SESSIONS).where({ companyId, ticketId: t.id }).first();
      if (session?.status === 'released') return 'pass';
      integration = await this.d.store.record(companyId, id);
      if (!integration) return 'pass';
      await this.d.tickets.update(companyId, t.id, { useIntegration: true, integrationId: integration.id, isBot: false }, BY);
      await this.d.tickets.addLog(companyId, t.id, { type: 'chatBot', data: { by: HANDLER_ID, step: 'start', integrationId: integration.id } });
    }
    await this.d.db(SESSIONS)
      .insert({ companyId, ticketId: t.id, integrationId: integration.id, status: 'active' })
      .onConflict('ticketId')
      .merge({ integrationId: integration.id, status: 'active', updatedAt: this.d.db.fn.now() });
    const snapshot = { ...t, useIntegration: true, integrationId: integration.id };
    const turnRow: IntegrationInboxTurn = { ticket: snapshot, contact: turn.contact, message: turn.message };
    await this.d.db(INBOX)
      .insert({ companyId, ticketId: t.id, integrationId: integration.id, messageId: turn.message.id, turn: JSON.stringify(turnRow) })
      .onConflict(['companyId', 'messageId'])
      .ignore();
    await this.d.jobs.schedule(integrationTurnJob, { companyId, ticketId: t.id }, { key: `ticket:${companyId}:${t.id}` });
    return 'handled';
  }

  /** The integration the ticket's queue attaches to its tickets, else its connection's (all its tickets). */
  private async attachedIntegration(companyId: number, queueId: number | null, connectionId: number | null): Promise<number | null> {
    if (queueId !== null) {
      const id = await this.attachments.get(`q:${companyId}:${queueId}`, async () => (await this.d.queues?.getQueue(companyId, queueId))?.integrationId ?? null);
      if (id) return id;
    }
    if (connectionId !== null) {
      const id = await this.attachments.get(`c:${companyId}:${connectionId}`, async () => (await this.d.connections?.get(companyId, connectionId))?.integrationId ?? null);
      if (id) return id;
    }
    return null;
  }

  /**
   * The job: drains the ticket's waiting messages, oldest first, one at a time, under the ticket's lease
   * (another run finding it leased comes back shortly). A failing message is retried with the job's
   * backoff (its attempts counted on the row); after `maxAttempts` (or at once when permanent) the ticket
   * goes to humans and its waiting messages are dropped.
   */
  async runTurn(run: JobRun<IntegrationTurnData>): Promise<void> {
    const { companyId, ticketId } = run.data;
    const db = this.d.db;
    const leased = await db(SESSIONS)
      .where({ companyId, ticketId })
      .andWhere((q) => void q.whereNull('leaseUntil').orWhere('leaseUntil', '<', db.fn.now()))
      .update({ leaseUntil: db.raw(`now() + ${LEASE}`) })
      .returning('ticketId');
    if (!leased.length) {
      const pending = await db(INBOX).where({ companyId, ticketId }).first('id');
      if (pending) await this.d.jobs.schedule(integrationTurnJob, run.data, { key: `later:${companyId}:${ticketId}`, delayMs: 1500 });
      return;
    }
    try {
      for (;;) {
        const row = await db(INBOX).where({ companyId, ticketId }).orderBy('id').first();
        if (!row) return;
        await this.runOne(row as InboxRow);
        await db(INBOX).where({ companyId, id: row.id }).del();
      }
    } finally {
      await db(SESSIONS).where({ companyId, ticketId }).update({ leaseUntil: null });
    }
  }

  /** One waiting message; throws to retry it later (its attempts counted), drops the ticket's queue when done for good. */
  private async runOne(row: InboxRow): Promise<void> {
    const { ticket, contact, message } = row.turn;
    const companyId = row.companyId;
    const ticketId = row.ticketId;
    const integrationId = row.integrationId;
    const dropAll = () => this.d.db(INBOX).where({ companyId, ticketId }).del();
    const now = await this.d.tickets.get(companyId, ticketId);
    // The ticket moved on (an attendant took it, it closed, another integration): nothing to do.
    if (!now || now.status !== 'pending' || now.userId !== null || !now.useIntegration || now.integrationId !== integrationId) {
      await dropAll();
      return;
    }
    const tools = this.tools(companyId, ticketId, integrationId);
    const integration = await this.d.store.record(companyId, integrationId);
    const type = integration ? this.d.types().get(integration.type) : undefined;
    if (!integration || !type) {
      await tools.handOff({}, integration ? `no handler for integration type ${integration.type}` : 'the integration was deleted');
      await dropAll();
      return;
    }
    const attempt = row.attempts + 1;
    try {
      await type.handle({ companyId, integration, ticket, contact, message, attempt, maxAttempts: this.d.maxAttempts }, tools);
    } catch (err) {
      const permanent = err instanceof PermanentError;
      this.d.log.warn({ err, companyId, ticketId, integrationId, attempt }, 'integrations: turn failed');
      if (permanent || attempt >= this.d.maxAttempts) {
        await tools.handOff({}, `${integration.name}: ${(err as Error).message || 'failed'}`);
        await dropAll();
        return;
      }
      await this.d.db(INBOX).where({ companyId, id: row.id }).update({ attempts: attempt });
      throw err;
    }
  }

  /** The tools a type's handler gets for one ticket. */
  tools(companyId: number, ticketId: number, integrationId: number): IntegrationTools {
    const d = this.d;
    const say = async (text: string) => {
      if (text.trim()) await d.tickets.sendText(companyId, ticketId, text.slice(0, 4096), { fromBot: true, handlerId: HANDLER_ID });
    };
    const release = async () => {
      await d.db(SESSIONS).where({ companyId, ticketId }).update({ status: 'released', typebotSessionId: null, expiresAt: null, state: '{}', updatedAt: d.db.fn.now() });
    };
    return {
      say,
      async sayMedia(url, caption) {
        try {
          const { bytes, contentType } = await d.http.download(url, d.maxMediaBytes);
          const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'file').slice(0, 200) || 'file';
          const stored = await d.uploads.save(companyId, 'integrations', { file: Readable.from(bytes), filename: name, mimetype: contentType }, { allow: ['image/*', 'audio/*', 'video/*', 'application/pdf'], maxBytes: d.maxMediaBytes });
          await d.tickets.sendMedia(companyId, ticketId, { path: stored.path, fileName: stored.fileName, caption }, { fromBot: true, handlerId: HANDLER_ID });
        } catch (err) {
          d.log.warn({ err, companyId, ticketId }, 'integrations: media not sent as a file, sending its link');
          await say(caption ? `${caption}\n${url}` : url);
        }
      },
      async handOff(to, reason) {
        const t = await d.tickets.get(companyId, ticketId);
        if (!t) return;
        await release();
        const userId = to.userId ?? null;
        const queueId = to.queueId === undefined || to.queueId === null ? t.queueId : to.queueId;
        await d.tickets.update(companyId, ticketId, { useIntegration: false, integrationId: null, queueId, userId, status: userId !== null ? 'open' : 'pending' }, BY);
        await d.tickets.addLog(companyId, ticketId, { type: 'chatBot', data: { by: HANDLER_ID, step: 'handoff', integrationId, reason } });
        await d.tickets.sendText(companyId, ticketId, `Integração encerrada: ${reason}`.slice(0, 4096), { fromBot: true, handlerId: HANDLER_ID, isPrivate: true }).catch((err) => d.log.warn({ err }, 'integrations: note failed'));
      },
      async close(reason) {
        await release();
        await d.tickets.update(companyId, ticketId, { useIntegration: false, integrationId: null }, BY);
        await d.tickets.addLog(companyId, ticketId, { type: 'chatBot', data: { by: HANDLER_ID, step: 'close', integrationId, reason } });
        await d.tickets.close(companyId, ticketId, BY);
      },
      http: (url, init) => d.http.request(url, init),
      session: {
        async get() {
          const row = await d.db(SESSIONS).where({ companyId, ticketId, integrationId }).first();
          return row ? { externalId: row.typebotSessionId ?? null, expiresAt: row.expiresAt ? new Date(row.expiresAt) : null, state: (row.state as Record<string, unknown>) ?? {} } : undefined;
        },
        async set(externalId, expiresAt, state = {}) {
          await d.db(SESSIONS).where({ companyId, ticketId, integrationId }).update({ typebotSessionId: externalId, expiresAt, state: JSON.stringify(state), updatedAt: d.db.fn.now() });
        },
      },
      pause: (ms) => new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, 10_000)))),
    };
  }

  /** A closed ticket forgets its session (a reopened ticket may be taken again). */
  async forget(companyId: number, ticketId: number): Promise<void> {
    await this.d.db(INBOX).where({ companyId, ticketId }).del();
    await this.d.db(SESSIONS).where({ companyId, ticketId }).del();
  }
}
