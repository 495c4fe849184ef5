import type { FastifyBaseLogger } from 'fastify';
import type { Knex } from 'knex';
import { AppError, hasMessageVariables, messageFailed, type Bus, type IdentityService, type JobRun, type MessageFailedEvent, type Subscription } from '@atendo/sdk';
import type { ContactSendResult, TicketsService } from '@atendo/plugin-tickets/contract';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { ScheduleRow, ScheduleStore } from './schedules';

/** Handler id of scheduled messages (`message.stored` `by: {kind: 'bot', handlerId}`, the ticket log). */
export const HANDLER_ID = 'schedules';
/** Bus queue of the `message.failed` consumer (competing consumers across nodes). */
export const FAILED_QUEUE = 'schedules.message-failed';
/** A job that finds its schedule's `sendAt` further than this in the future leaves it to the job of the new time. */
const EARLY_TOLERANCE_MS = 1000;

/** `{{userName}}` / `{{user}}` filled with the schedule's author (the tickets plugin fills the others). */
export function fillAuthor(body: string, userName: string | null | undefined): string {
  if (!hasMessageVariables(body)) return body;
  return body.replace(/\{\{\s*(userName|user)\s*\}\}/gi, (userName ?? '').trim());
}

/** The reason of a failure, for the schedule's `error`. */
function reasonOf(err: unknown): string {
  if (err instanceof AppError) return `${err.code}: ${err.message}`.slice(0, 1000);
  return (err instanceof Error ? err.message : String(err)).slice(0, 1000) || 'unknown error';
}

/**
 * Sends schedules when their job runs (spec 2-tickets.md §4 "Schedule"; issue 13 item 3):
 * - the connection is the one of the contact's newest ticket (tickets `latestForContact`), else the
 *   company's default connection (404 ERR_NO_DEF_WAPP_FOUND: retried, then ERRO);
 * - in one transaction holding the schedule's row lock: the schedule must still be PENDENTE (a second run of
 *   the job, on this node or another, finds ENVIADA and sends nothing) and due; the body, `{{userName}}`
 *   filled with its author (the other variables by the tickets plugin), goes into the contact's conversation
 *   on that connection through `sendToContacts` (so it is stored in that ticket's conversation), and the
 *   schedule becomes ENVIADA with `sentAt`, `ticketId` and the message id. The message and the status
 *   commit together; after commit the message is handed to the channel (`announce`) and the update pushed;
 * - a throw is retried by the job scheduler with backoff (e^attempt seconds); the last attempt marks the
 *   schedule ERRO with the reason instead;
 * - a provider's final refusal (`message.failed` of the schedule's message, after the channel's own retries)
 *   turns an ENVIADA schedule into ERRO with the provider's reason (`sentAt` cleared).
 */
export class ScheduleSender {
  constructor(
    private readonly db: Knex,
    private readonly store: ScheduleStore,
    private readonly tickets: TicketsService,
    private readonly connections: ConnectionsService,
    private readonly identity: IdentityService,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The connection a schedule of `contactId` goes out through. */
  private async connectionFor(companyId: number, contactId: number): Promise<number> {
    const latest = await this.tickets.latestForContact?.(companyId, contactId);
    if (latest?.whatsappId) return latest.whatsappId;
    const fallback = await this.connections.getDefault(companyId);
    if (!fallback) throw new AppError('ERR_NO_DEF_WAPP_FOUND', 'The contact has no ticket and the company has no default connection');
    return fallback.id;
  }

  /** The `schedules.send` job handler. */
  async run(job: JobRun<{ companyId: number; scheduleId: number }>): Promise<void> {
    const { companyId, scheduleId } = job.data;
    const first = await this.store.row(this.db, companyId, scheduleId);
    if (!first || first.status !== 'PENDENTE') return;
    if (new Date(first.sendAt).getTime() - Date.now() > EARLY_TOLERANCE_MS) return;
    try {
      const sendToContacts = this.tickets.sendToContacts?.bind(this.tickets);
      if (!sendToContacts) throw new AppError('ERR_INTERNAL', 'the tickets plugin cannot send to contacts');
      const connectionId = await this.connectionFor(companyId, first.contactId);
      const author = first.userId !== null ? await this.identity.getUser(companyId, first.userId) : undefined;
      const done = await this.db.transaction(async (trx): Promise<{ row: ScheduleRow; sent: ContactSendResult } | undefined> => {
        const row = await this.store.row(trx, companyId, scheduleId, true);
        if (!row || row.status !== 'PENDENTE' || new Date(row.sendAt).getTime() - Date.now() > EARLY_TOLERANCE_MS) return undefined;
        const sent = await sendToContacts(companyId, connectionId, [{ contactId: row.contactId, body: fillAuthor(row.body, author?.name) }], { trx, handlerId: HANDLER_ID });
        const message = sent.messages[0];
        const [updated] = (await trx('schedules')
          .where({ companyId, id: scheduleId })
          .update({ status: 'ENVIADA', sentAt: trx.fn.now(), error: null, ticketId: message.ticketId, messageId: message.id, updatedAt: trx.fn.now() })
          .returning('*')) as ScheduleRow[];
        return { row: updated, sent };
      });
      if (!done) return;
      await done.sent.announce();
      this.store.emit(companyId, { action: 'update', schedule: await this.store.one(companyId, done.row) });
      this.log.info({ companyId, scheduleId, messageId: done.row.messageId, attempt: job.attempt }, 'schedule sent');
    } catch (err) {
      if (job.attempt < job.maxAttempts) {
        this.log.warn({ err, companyId, scheduleId, attempt: job.attempt, maxAttempts: job.maxAttempts }, 'schedule send failed; retrying');
        throw err;
      }
      this.log.error({ err, companyId, scheduleId, attempt: job.attempt }, 'schedule send failed for good');
      await this.markError(companyId, { id: scheduleId }, reasonOf(err), ['PENDENTE']);
    }
  }

  /** Sets ERRO with `reason` on the schedule when its status is one of `from`; pushes the update. */
  private async markError(companyId: number, where: { id: number } | { messageId: number }, reason: string, from: ScheduleRow['status'][]): Promise<void> {
    const rows = (await this.db('schedules')
      .where({ companyId, ...where })
      .whereIn('status', from)
      .update({ status: 'ERRO', error: reason, sentAt: null, updatedAt: this.db.fn.now() })
      .returning('*')) as ScheduleRow[];
    for (const row of rows) this.store.emit(companyId, { action: 'update', schedule: await this.store.one(companyId, row) });
  }

  /** Subscribes to `message.failed`: the provider refused a schedule's message for good. */
  async subscribe(bus: Bus): Promise<Subscription> {
    return bus.subscribe<MessageFailedEvent>(messageFailed, async ({ payload }) => {
      if (!payload || !Number.isInteger(payload.companyId) || !Number.isSafeInteger(Number(payload.messageId))) return;
      const e = payload.error;
      const reason = typeof e === 'string' ? e : [e?.code, e?.text].filter(Boolean).join(': ');
      await this.markError(payload.companyId, { messageId: Number(payload.messageId) }, reason || 'the provider refused the message', ['ENVIADA']);
    }, { queue: FAILED_QUEUE });
  }
}
