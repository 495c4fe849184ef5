import type { Knex } from 'knex';
import { AppError, hasRole, iso, page, toInt, type AuthUser, type IdentityService, type Jobs, type Realtime } from '@atendo/sdk';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import { PAGE_SIZE, scheduleEvents, scheduleJobKey, sendScheduleJob, type Schedule, type ScheduleEvent } from '../contract';
import { isTimeZone, parseSendAt } from '../rules/send-at';
import type { CreateScheduleBody, ListSchedulesQuery, UpdateScheduleBody } from '../schemas/schedules';

/** The time zone of a company without a valid `timeZone` setting. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

export type ScheduleRow = {
  id: number;
  companyId: number;
  contactId: number;
  userId: number | null;
  body: string;
  sendAt: Date;
  sentAt: Date | null;
  status: Schedule['status'];
  error: string | null;
  ticketId: number | null;
  messageId: string | number | null;
  createdAt: Date;
  updatedAt: Date;
};

const likeTerm = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Admins and supervisors change any schedule of the company; users only their own. */
function assertCanChange(auth: AuthUser, row: ScheduleRow): void {
  if (hasRole(auth, 'supervisor') || row.userId === auth.id) return;
  throw new AppError('ERR_NO_PERMISSION', 'Only admins and supervisors may change the schedules of other users');
}

/**
 * The `schedules` of a company. Every method is scoped to `companyId` (another company's schedule is 404
 * ERR_NO_SCHEDULE_FOUND). A pending schedule always has its send job (`schedules.send`, key
 * `schedule-{id}`) at `sendAt`, written in the same transaction as the row; `company-{cid}-schedule` (and
 * `company{cid}-schedule`) go out after commit.
 */
export class ScheduleStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly identity: IdentityService,
    private readonly contacts: ContactsService,
    private readonly jobs: Jobs,
    private readonly maxAttempts: number,
  ) {}

  emit(companyId: number, payload: ScheduleEvent): void {
    for (const event of scheduleEvents(companyId)) this.realtime.emitToCompany(companyId, event, payload);
  }

  /** The company's time zone (setting `timeZone`), else America/Sao_Paulo. */
  async timeZone(companyId: number): Promise<string> {
    const zone = (await this.identity.getCompanySetting(companyId, 'timeZone').catch(() => '')) || DEFAULT_TIME_ZONE;
    return isTimeZone(zone) ? zone : DEFAULT_TIME_ZONE;
  }

  /** Rows as the API answers them, with `contact: {id, name}` and `user: {id, name}` (null when gone). */
  async present(companyId: number, rows: ScheduleRow[]): Promise<Schedule[]> {
    if (!rows.length) return [];
    const contactIds = [...new Set(rows.map((r) => r.contactId))];
    const userIds = [...new Set(rows.map((r) => r.userId).filter((id): id is number => id !== null))];
    const [contacts, users] = await Promise.all([this.contacts.getMany(companyId, contactIds), userIds.length ? this.identity.listUsers(companyId, userIds) : []]);
    const contactById = new Map(contacts.map((c) => [c.id, { id: c.id, name: c.name }]));
    const userById = new Map(users.map((u) => [u.id, { id: u.id, name: u.name }]));
    return rows.map((r) => ({
      id: r.id,
      body: r.body,
      sendAt: iso(r.sendAt),
      sentAt: r.sentAt ? iso(r.sentAt) : null,
      contactId: r.contactId,
      ticketId: r.ticketId ?? null,
      userId: r.userId ?? null,
      companyId: r.companyId,
      status: r.status,
      error: r.error ?? null,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      contact: contactById.get(r.contactId) ?? null,
      user: r.userId !== null ? (userById.get(r.userId) ?? null) : null,
    }));
  }

  async one(companyId: number, row: ScheduleRow): Promise<Schedule> {
    return (await this.present(companyId, [row]))[0];
  }

  async row(db: Knex | Knex.Transaction, companyId: number, id: number, lock = false): Promise<ScheduleRow | undefined> {
    const q = db('schedules').where({ companyId, id }).first();
    return (lock ? q.forUpdate() : q) as Promise<ScheduleRow | undefined>;
  }

  private async rowOr404(db: Knex | Knex.Transaction, companyId: number, id: number, lock = false): Promise<ScheduleRow> {
    const row = await this.row(db, companyId, id, lock);
    if (!row) throw new AppError('ERR_NO_SCHEDULE_FOUND');
    return row;
  }

  async get(companyId: number, id: number): Promise<Schedule | undefined> {
    const row = await this.row(this.db, companyId, id);
    return row ? this.one(companyId, row) : undefined;
  }

  async getOr404(companyId: number, id: number): Promise<Schedule> {
    return this.one(companyId, await this.rowOr404(this.db, companyId, id));
  }

  /** Every schedule of the contact, whatever its status, oldest first (issue 34: the data subject's export). */
  async allForContact(companyId: number, contactId: number): Promise<Schedule[]> {
    const rows = (await this.db('schedules').where({ companyId, contactId }).orderBy('id')) as ScheduleRow[];
    return this.present(companyId, rows);
  }

  /** Deletes every schedule of the contact inside `trx` (issue 34: anonymization; a due job then finds none and does nothing). */
  async removeForContact(companyId: number, contactId: number, trx: Knex.Transaction): Promise<number> {
    return trx('schedules').where({ companyId, contactId }).del();
  }

  async pendingForContact(companyId: number, contactId: number): Promise<Schedule[]> {
    const rows = (await this.db('schedules').where({ companyId, contactId, status: 'PENDENTE' }).orderBy([{ column: 'sendAt' }, { column: 'id' }])) as ScheduleRow[];
    return this.present(companyId, rows);
  }

  /**
   * A page (20) of the company's schedules, newest first: `searchParam` matches the body or the contact's
   * name or number (case-insensitive); `contactId` and `userId` filter.
   */
  async list(companyId: number, q: ListSchedulesQuery): Promise<{ schedules: Schedule[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const base = this.db('schedules').where({ companyId });
    const contactId = q.contactId === '' || q.contactId === undefined ? undefined : toInt(q.contactId);
    const userId = q.userId === '' || q.userId === undefined ? undefined : toInt(q.userId);
    if (contactId !== undefined) void base.where({ contactId });
    if (userId !== undefined) void base.where({ userId });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) {
      const ids = await this.contacts.searchIds(companyId, term, 1000);
      void base.where((w) => {
        void w.whereRaw("lower(body) LIKE ? ESCAPE '\\'", [likeTerm(term)]);
        if (ids.length) void w.orWhereIn('contactId', ids);
      });
    }
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = (await base.clone().orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(offset).limit(limit)) as ScheduleRow[];
    const count = Number(n);
    return { schedules: await this.present(companyId, rows), count, hasMore: hasMore(count, rows.length) };
  }

  /** `sendAt` as an instant in the future: 400 ERR_VALIDATION for a bad value, 400 ERR_SCHEDULE_IN_PAST. */
  private async futureSendAt(companyId: number, sendAt: string, now = new Date()): Promise<Date> {
    const at = parseSendAt(sendAt, await this.timeZone(companyId));
    if (!at) throw new AppError('ERR_VALIDATION', 'sendAt must be YYYY-MM-DDTHH:mm (the company time zone) or an ISO 8601 time with an offset');
    if (at.getTime() <= now.getTime()) throw new AppError('ERR_SCHEDULE_IN_PAST');
    return at;
  }

  private cleanBody(body: string): string {
    const clean = body.trim();
    if (clean.length < 5) throw new AppError('ERR_VALIDATION', 'body must have at least 5 characters');
    return clean;
  }

  private async checkContact(companyId: number, contactId: number): Promise<void> {
    if (!(await this.contacts.getMany(companyId, [contactId])).length) throw new AppError('ERR_NO_CONTACT_FOUND');
  }

  private schedule(trx: Knex.Transaction, row: ScheduleRow): Promise<string> {
    return this.jobs.schedule(sendScheduleJob, { companyId: row.companyId, scheduleId: row.id }, { runAt: new Date(row.sendAt), key: scheduleJobKey(row.id), maxAttempts: this.maxAttempts, trx });
  }

  /** Creates a pending schedule by the caller and its send job, in one transaction; emits `create`. */
  async create(auth: AuthUser, input: CreateScheduleBody): Promise<Schedule> {
    const companyId = auth.companyId;
    const body = this.cleanBody(input.body);
    const contactId = toInt(input.contactId)!;
    const sendAt = await this.futureSendAt(companyId, input.sendAt);
    await this.checkContact(companyId, contactId);
    const row = await this.db.transaction(async (trx) => {
      const [r] = (await trx('schedules').insert({ companyId, contactId, userId: auth.id, body, sendAt, status: 'PENDENTE' }).returning('*')) as ScheduleRow[];
      await this.schedule(trx, r);
      return r;
    });
    const schedule = await this.one(companyId, row);
    this.emit(companyId, { action: 'create', schedule });
    return schedule;
  }

  /**
   * Changes a schedule that was not sent (409 ERR_SCHEDULE_ALREADY_SENT): body, contact, send time. A new
   * `sendAt` must be in the future and moves the send job; a schedule in ERRO goes back to PENDENTE (its
   * time, new or kept, must be in the future). Users change only their own (403 ERR_NO_PERMISSION).
   */
  async update(auth: AuthUser, id: number, input: UpdateScheduleBody): Promise<Schedule> {
    const companyId = auth.companyId;
    const patch: Partial<ScheduleRow> = {};
    if (input.body !== undefined) patch.body = this.cleanBody(input.body);
    if (input.contactId !== undefined) {
      patch.contactId = toInt(input.contactId)!;
      await this.checkContact(companyId, patch.contactId);
    }
    if (input.sendAt !== undefined) patch.sendAt = await this.futureSendAt(companyId, input.sendAt);
    const row = await this.db.transaction(async (trx) => {
      const current = await this.rowOr404(trx, companyId, id, true);
      assertCanChange(auth, current);
      if (current.status === 'ENVIADA') throw new AppError('ERR_SCHEDULE_ALREADY_SENT');
      const next: Record<string, unknown> = { ...patch, updatedAt: trx.fn.now() };
      if (current.status === 'ERRO') {
        if (!patch.sendAt && new Date(current.sendAt).getTime() <= Date.now()) throw new AppError('ERR_SCHEDULE_IN_PAST', 'Give a new send time in the future to send it again');
        Object.assign(next, { status: 'PENDENTE', error: null });
      }
      const [updated] = (await trx('schedules').where({ companyId, id }).update(next).returning('*')) as ScheduleRow[];
      if (patch.sendAt || current.status === 'ERRO') await this.schedule(trx, updated);
      return updated;
    });
    const schedule = await this.one(companyId, row);
    this.emit(companyId, { action: 'update', schedule });
    return schedule;
  }

  /** Deletes a schedule and its pending send job; users only their own; emits `delete`. */
  async remove(auth: AuthUser, id: number): Promise<void> {
    const companyId = auth.companyId;
    await this.db.transaction(async (trx) => {
      const current = await this.rowOr404(trx, companyId, id, true);
      assertCanChange(auth, current);
      await trx('schedules').where({ companyId, id }).del();
      await this.jobs.cancel(sendScheduleJob, scheduleJobKey(id), { trx });
    });
    this.emit(companyId, { action: 'delete', scheduleId: id });
  }
}
