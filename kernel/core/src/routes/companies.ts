import type { Knex } from 'knex';
import { AppError, BoolLike, companyChanged, ErrorResponse, IdParams, IntLike, ListQuery, page, Paginated, toBool, toInt, Type, type AuthUser, type Plan, type Static, type PluginApp, iso, Nullable } from '@atendo/sdk';
import { hashPassword } from '../identity/service';
import { PLATFORM_COMPANY_ID, PLATFORM_DUE_DATE, RECURRENCE_MONTHS } from '../identity/defaults';
import { planOut, PlanSchema } from './plans';
import type { CoreDeps } from './deps';

/** Page size of `GET /companiesPlan/`. */
export const COMPANIES_PAGE_SIZE = 20;

// ---------------------------------------------------------------- dates (pure, UTC, no time zone)

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days in `month` (1..12) of `year` (proleptic Gregorian). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** True when `date` is a real calendar date written `YYYY-MM-DD` (years 1000..9999). */
export function isCalendarDate(date: string): boolean {
  const m = DATE_RE.exec(date);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/**
 * `date` (`YYYY-MM-DD`) plus `months` calendar months, clamped to the end of the target month
 * (2024-01-31 + 1 = 2024-02-29, 2023-01-31 + 1 = 2023-02-28, 2024-08-31 + 6 = 2025-02-28). Pure date
 * arithmetic: no time zone, no daylight-saving effects. Throws on a malformed date.
 */
export function addMonths(date: string, months: number): string {
  if (!isCalendarDate(date)) throw new AppError('ERR_VALIDATION', `not a date: ${date}`);
  if (!Number.isInteger(months)) throw new AppError('ERR_VALIDATION', 'months must be an integer');
  const [y, m, d] = date.split('-').map(Number);
  const index = y * 12 + (m - 1) + months;
  const ny = Math.floor(index / 12);
  const nm = index - ny * 12 + 1;
  const nd = Math.min(d, daysInMonth(ny, nm));
  return `${String(ny).padStart(4, '0')}-${String(nm).padStart(2, '0')}-${String(nd).padStart(2, '0')}`;
}

/** Months a recurrence advances by (either spelling, any case), or undefined for an unknown recurrence. */
export function recurrenceMonths(recurrence: string | null | undefined): number | undefined {
  if (!recurrence) return undefined;
  return RECURRENCE_MONTHS[recurrence.trim().toUpperCase()];
}

/**
 * The due date after one renewal: `dueDate` advanced by the recurrence's months (1, 2, 3, 6 or 12;
 * spec 1-platform.md §4 "Company renewal"). 400 ERR_VALIDATION without a due date or a known recurrence.
 */
export function renewDueDate(dueDate: string | null | undefined, recurrence: string | null | undefined): string {
  if (!dueDate) throw new AppError('ERR_VALIDATION', 'The company has no due date to renew');
  const months = recurrenceMonths(recurrence);
  if (!months) throw new AppError('ERR_VALIDATION', 'The company has no recurrence to renew by');
  return addMonths(String(dueDate).slice(0, 10), months);
}

/**
 * A due date from a form: `YYYY-MM-DD` or an ISO date-time (its date part); `''`/null -> null (spec §5: an
 * empty due date is sent as null); undefined -> undefined (unchanged). Impossible dates -> 400 ERR_VALIDATION.
 */
export function parseDueDate(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  const date = value.trim().slice(0, 10);
  if (!isCalendarDate(date)) throw new AppError('ERR_VALIDATION', 'dueDate must be a date YYYY-MM-DD');
  return date;
}

// ---------------------------------------------------------------- shapes

const Str = Type.String();

/** A company as the API answers it (wire-shapes §2 "Company") with its `plan` (or null). No secrets. */
export const CompanySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Nullable(Str),
    phone: Nullable(Str),
    document: Nullable(Str),
    paymentMethod: Nullable(Str),
    status: Type.Boolean(),
    dueDate: Nullable(Str),
    recurrence: Nullable(Str),
    /** Attendants and connections recorded for the company (the family's form fields; default 1). */
    numberAttendants: Type.Integer(),
    numberConections: Type.Integer(),
    schedules: Type.Array(Type.Unknown()),
    planId: Type.Union([Type.Integer(), Type.Null()]),
    lastLogin: Nullable(Str),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    plan: Type.Optional(Type.Union([PlanSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

/** ISO string of a timestamp column, null kept. */
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));

/** A companies row as the API answers it: ISO timestamps, and company 1's due date always 2999-12-31. */
/** A company as the API answers it. */
export type CompanyOut = Static<typeof CompanySchema>;

export function companyOut(row: Record<string, unknown>, plan?: Plan | null): CompanyOut {
  const out: Record<string, unknown> = {
    ...row,
    dueDate: row.id === PLATFORM_COMPANY_ID ? PLATFORM_DUE_DATE : (row.dueDate ?? null),
    lastLogin: isoOrNull(row.lastLogin),
    createdAt: isoOrNull(row.createdAt),
    updatedAt: isoOrNull(row.updatedAt),
    schedules: Array.isArray(row.schedules) ? row.schedules : [],
  };
  if (plan !== undefined) out.plan = plan;
  return out as CompanyOut;
}

/** Adds each company's `plan` (one query for all of them). */
async function withPlans(db: Knex, rows: Record<string, unknown>[]): Promise<CompanyOut[]> {
  const ids = [...new Set(rows.map((r) => r.planId).filter((v): v is number => typeof v === 'number'))];
  const plans = ids.length ? await db('plans').whereIn('id', ids) : [];
  const byId = new Map(plans.map((p: Record<string, unknown>) => [p.id as number, planOut(p)]));
  return rows.map((r) => companyOut(r, byId.get(r.planId as number) ?? null));
}

const TIME = '^$|^([01]\\d|2[0-3]):[0-5]\\d$';
const WEEKDAYS_EN = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const TimeField = Type.Union([Type.String({ pattern: TIME, maxLength: 5 }), Type.Null()]);
/**
 * One opening-hours row of a company. The settings screen sends one shift (`startTime`-`endTime`); the
 * two-shift split of connections and queues (`startTimeA`-`endTimeA`, `startTimeB`-`endTimeB`) is accepted
 * too. Times are `HH:mm` or `''`. The automation plugin reads them (setting `scheduleType` = `company`).
 */
export const ScheduleSchema = Type.Object({
  weekday: Type.String({ minLength: 1, maxLength: 30 }),
  weekdayEn: Type.Union(WEEKDAYS_EN.map((d) => Type.Literal(d))),
  startTime: Type.Optional(TimeField),
  endTime: Type.Optional(TimeField),
  startTimeA: Type.Optional(TimeField),
  endTimeA: Type.Optional(TimeField),
  startTimeB: Type.Optional(TimeField),
  endTimeB: Type.Optional(TimeField),
});
const SchedulesBody = Type.Object({ schedules: Type.Array(ScheduleSchema, { maxItems: 7 }) });

const OptText = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));
const Email = Type.String({ minLength: 3, maxLength: 255, pattern: '^\\s*[^@\\s]+@[^@\\s]+\\.[^@\\s]+\\s*$' });
const companyFields = {
  phone: OptText(50),
  document: OptText(50),
  paymentMethod: OptText(50),
  status: Type.Optional(BoolLike()),
  dueDate: OptText(40),
  recurrence: OptText(20),
  campaignsEnabled: Type.Optional(BoolLike()),
  numberAttendants: Type.Optional(IntLike({ minimum: 0, maximum: 1_000_000 })),
  numberConections: Type.Optional(IntLike({ minimum: 0, maximum: 1_000_000 })),
};
const CompanyName = Type.String({ minLength: 2, maxLength: 50 });
const CreateCompanyBody = Type.Object({
  name: CompanyName,
  email: Email,
  password: Type.String({ minLength: 5, maxLength: 50 }),
  planId: IntLike({ minimum: 1 }),
  ...companyFields,
});
/** On update every field is optional; an empty password means "unchanged" (the form sends ''). */
const UpdateCompanyBody = Type.Object({
  name: Type.Optional(CompanyName),
  email: Type.Optional(Email),
  password: Type.Optional(Type.Union([Type.String({ minLength: 5, maxLength: 50 }), Type.Literal(''), Type.Null()])),
  planId: Type.Optional(IntLike({ minimum: 1 })),
  ...companyFields,
});
type CompanyBody = Omit<Partial<Static<typeof CreateCompanyBody>>, 'password'> & { password?: string | null };

/** Company columns from a create/update body, validated and normalised ('' -> null). */
function companyValues(body: CompanyBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.name !== undefined) {
    const name = body.name.trim();
    if (name.length < 2) throw new AppError('ERR_VALIDATION', 'name must have 2 to 50 characters');
    out.name = name;
  }
  if (body.email !== undefined) out.email = body.email.trim().toLowerCase();
  if (body.planId !== undefined) out.planId = toInt(body.planId);
  if (body.status !== undefined) out.status = toBool(body.status);
  for (const k of ['phone', 'document', 'paymentMethod'] as const) {
    if (body[k] !== undefined) out[k] = body[k]?.trim() || null;
  }
  if (body.numberAttendants !== undefined) out.numberAttendants = toInt(body.numberAttendants);
  if (body.numberConections !== undefined) out.numberConections = toInt(body.numberConections);
  const due = parseDueDate(body.dueDate);
  if (due !== undefined) out.dueDate = due;
  if (body.recurrence !== undefined) {
    const r = body.recurrence?.trim() || null;
    if (r && !recurrenceMonths(r)) throw new AppError('ERR_VALIDATION', `recurrence must be one of ${Object.keys(RECURRENCE_MONTHS).join(', ')}`);
    out.recurrence = r;
  }
  return out;
}

const pgCode = (err: unknown) => (err as { code?: string }).code;
const pgConstraint = (err: unknown) => String((err as { constraint?: string }).constraint ?? '');

/** Maps unique violations that slipped past the checks (concurrent writes) to catalogue codes. */
function mapUnique(err: unknown): unknown {
  if (pgCode(err) !== '23505') return err;
  if (pgConstraint(err).startsWith('users_')) return new AppError('ERR_DUPLICATED_EMAIL');
  return new AppError('ERR_DUPLICATED_NAME');
}

async function assertNameFree(trx: Knex.Transaction, name: string, exceptId?: number): Promise<void> {
  const q = trx('companies').whereRaw('lower(name) = ?', [name.toLowerCase()]).first('id');
  if (exceptId) q.whereNot({ id: exceptId });
  if (await q) throw new AppError('ERR_DUPLICATED_NAME');
}

async function assertEmailFree(trx: Knex.Transaction, email: string, exceptUserId?: number): Promise<void> {
  const q = trx('users').whereRaw('lower(email) = ?', [email.toLowerCase()]).first('id');
  if (exceptUserId) q.whereNot({ id: exceptUserId });
  if (await q) throw new AppError('ERR_DUPLICATED_EMAIL');
}

async function assertPlanExists(trx: Knex.Transaction, planId: number): Promise<void> {
  if (!(await trx('plans').where({ id: planId }).first('id'))) throw new AppError('ERR_NO_PLAN_FOUND');
}

async function setCampaignsEnabled(trx: Knex.Transaction, companyId: number, enabled: boolean): Promise<void> {
  await trx('companySettings')
    .insert({ companyId, key: 'campaignsEnabled', value: String(enabled) })
    .onConflict(['companyId', 'key'])
    .merge({ value: String(enabled), updatedAt: trx.fn.now() });
}

/** Throws 403 ERR_NO_PERMISSION unless the caller is super or belongs to company `id`. */
function assertOwnOrSuper(auth: AuthUser, id: number): void {
  if (!auth.super && auth.companyId !== id) throw new AppError('ERR_NO_PERMISSION');
}

/**
 * Companies (tenants) administration (spec 1-platform.md §2 "Companies admin", §3 "Company", §4 renewal,
 * §5, §6; wire-shapes §4 "GET /companies/listPlan/:id"). Answers are `Company` rows (camelCase, ISO
 * timestamps, `dueDate` `YYYY-MM-DD` or null; company 1 always `2999-12-31`) with their `plan`.
 * - `GET /companies`, `GET /companies/list` (super) -> `Company[]` by name.
 * - `GET /companiesPlan/?searchParam&pageNumber` (super) -> `{companies, count, hasMore}`, 20 a page, by name;
 *   searchParam matches name or e-mail.
 * - `GET /companies/:id` (super, or an admin of that company) -> Company; 404 ERR_NO_COMPANY_FOUND.
 * - `GET /companies/listPlan/:id` (super, or any user of that company) -> Company with `plan`; also open to
 *   a company past its due date (the open-invoices page reads it).
 * - `POST /companies` (super) {name, email, password, planId, phone?, document?, paymentMethod?, status?,
 *   dueDate?, recurrence?, campaignsEnabled?} -> 201 Company; creates the company and its first admin user
 *   (the form's e-mail and password) in one transaction. 409 ERR_DUPLICATED_NAME / ERR_DUPLICATED_EMAIL,
 *   404 ERR_NO_PLAN_FOUND.
 * - `PUT /companies/:id` (super) same fields, all optional -> Company. A password (or a new e-mail) also
 *   applies to the company's owner (the user whose e-mail is the company's). Company 1 cannot be
 *   deactivated nor given another due date: 400 ERR_COMPANY_NOT_DELETABLE.
 * - `DELETE /companies/:id` (super) -> 200 the deleted Company; its users and records cascade. Company 1:
 *   400 ERR_COMPANY_NOT_DELETABLE.
 * - `PUT /companies/:id/schedules` (super, or an admin of that company) {schedules: [{weekday, weekdayEn,
 *   startTime, endTime} | {weekday, weekdayEn, startTimeA, endTimeA, startTimeB, endTimeB}]} (at most one row
 *   per weekday, 7 rows) -> Company; each row is stored in the shape it was sent.
 * - `POST /companies/:id/renew` (super) -> Company with `dueDate` advanced by its recurrence.
 * Other callers get 403 ERR_NO_PERMISSION. Every write publishes `company.changed` {companyId} on the bus;
 * nothing is pushed to sockets (the super admin's lists refresh over REST).
 */
export async function companiesRoutes(app: PluginApp, deps: CoreDeps): Promise<void> {
  const { db, bus, identity, sessions, guard } = deps;
  const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
  const changed = async (companyId: number) => {
    identity.invalidatePlans(companyId);
    // campaignsEnabled is a company setting (and a deleted company's settings are gone).
    identity.invalidateSettings(companyId);
    // This node's session guard forgets the company at once (a renewal lets its users in on the very next
    // request); other nodes when company.changed reaches them (a RabbitMQ delivery is asynchronous).
    guard.forgetCompany(companyId);
    await bus.publish(companyChanged, { companyId });
  };
  const load = async (id: number) => {
    const row = await db('companies').where({ id }).first();
    if (!row) throw new AppError('ERR_NO_COMPANY_FOUND');
    return (await withPlans(db, [row]))[0];
  };
  const listAll = async () => withPlans(db, await db('companies').orderBy('name'));

  for (const url of ['/companies', '/companies/list']) {
    app.get(url, {
      config: { role: 'super' },
      schema: { tags: ['companies'], summary: 'Every company with its plan, by name', response: { 200: Type.Array(CompanySchema), ...errors } },
    }, listAll);
  }

  for (const url of ['/companiesPlan', '/companiesPlan/']) {
    app.get(url, {
      config: { role: 'super' },
      schema: { tags: ['companies'], summary: 'Companies with their plan, searched and paginated (20 a page)', querystring: ListQuery, response: { 200: Paginated('companies', CompanySchema), ...errors } },
    }, async (req) => {
      const { searchParam, pageNumber } = req.query;
      const p = page(pageNumber, COMPANIES_PAGE_SIZE);
      const base = db('companies');
      const term = searchParam?.trim().toLowerCase();
      if (term) {
        const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        base.where((q) => q.whereRaw('lower(name) like ?', [like]).orWhereRaw("lower(coalesce(email, '')) like ?", [like]));
      }
      const [{ count }] = await base.clone().count<{ count: number }[]>({ count: '*' });
      const rows = await base.clone().orderBy('name').orderBy('id').offset(p.offset).limit(p.limit);
      return { companies: await withPlans(db, rows), count: Number(count), hasMore: p.hasMore(Number(count), rows.length) };
    });
  }

  app.get('/companies/listPlan/:id', {
    // The open-invoices page shows the plan, amount and due date of an expired company.
    config: { allowExpired: true },
    schema: { tags: ['companies'], summary: "A company with its plan (the caller's own, or any for super)", params: IdParams, response: { 200: CompanySchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    assertOwnOrSuper(req.auth, id);
    return load(id);
  });

  app.get('/companies/:id', {
    config: { role: 'admin' },
    schema: { tags: ['companies'], summary: "One company (super, or an admin reading its own)", params: IdParams, response: { 200: CompanySchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    assertOwnOrSuper(req.auth, id);
    return load(id);
  });

  app.post('/companies', {
    config: { role: 'super' },
    schema: { tags: ['companies'], summary: 'Create a company and its first admin user', body: CreateCompanyBody, response: { 201: CompanySchema, ...errors } },
  }, async (req, reply) => {
    const body = req.body;
    const values = companyValues(body);
    const passwordHash = await hashPassword(body.password);
    let id: number;
    try {
      id = await db.transaction(async (trx) => {
        await assertPlanExists(trx, toInt(body.planId)!);
        await assertNameFree(trx, values.name as string);
        await assertEmailFree(trx, values.email as string);
        const [c] = await trx('companies').insert({ status: true, ...values }).returning('id');
        await trx('users').insert({ companyId: c.id, name: values.name, email: values.email, passwordHash, profile: 'admin' });
        if (body.campaignsEnabled !== undefined) await setCampaignsEnabled(trx, c.id, toBool(body.campaignsEnabled)!);
        await deps.audit.record(trx, { req, companyId: c.id, entity: 'company', entityId: c.id, action: 'create', after: values });
        return c.id as number;
      });
    } catch (err) {
      throw mapUnique(err);
    }
    await changed(id);
    return reply.status(201).send(await load(id));
  });

  app.put('/companies/:id', {
    config: { role: 'super' },
    schema: { tags: ['companies'], summary: 'Update a company (plan, status, due date, ...)', params: IdParams, body: UpdateCompanyBody, response: { 200: CompanySchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const body = req.body;
    const values = companyValues(body);
    if (id === PLATFORM_COMPANY_ID) {
      if (values.status === false) throw new AppError('ERR_COMPANY_NOT_DELETABLE', 'Company 1 cannot be deactivated');
      // An empty due date from the form keeps company 1's fixed one; any other date is refused.
      if (values.dueDate === null) delete values.dueDate;
      if (values.dueDate !== undefined && values.dueDate !== PLATFORM_DUE_DATE) {
        throw new AppError('ERR_COMPANY_NOT_DELETABLE', `Company 1 never expires: its due date is ${PLATFORM_DUE_DATE}`);
      }
    }
    const passwordHash = body.password ? await hashPassword(body.password) : undefined;
    try {
      await db.transaction(async (trx) => {
        const current = await trx('companies').where({ id }).forUpdate().first();
        if (!current) throw new AppError('ERR_NO_COMPANY_FOUND');
        if (values.planId !== undefined) await assertPlanExists(trx, values.planId as number);
        if (values.name !== undefined) await assertNameFree(trx, values.name as string, id);
        // The owner: the company's user signed in with the company's e-mail (created with it).
        const owner = current.email ? await trx('users').where({ companyId: id }).whereRaw('lower(email) = ?', [String(current.email).toLowerCase()]).first('id') : undefined;
        if (owner && values.email !== undefined && values.email !== String(current.email).toLowerCase()) {
          await assertEmailFree(trx, values.email as string, owner.id);
          await trx('users').where({ id: owner.id, companyId: id }).update({ email: values.email, updatedAt: trx.fn.now() });
        }
        if (owner && passwordHash) {
          await trx('users').where({ id: owner.id, companyId: id }).update({ passwordHash, tokenVersion: trx.raw('token_version + 1'), updatedAt: trx.fn.now() });
          await sessions.revokeUser(trx, owner.id);
        }
        if (Object.keys(values).length) await trx('companies').where({ id }).update({ ...values, updatedAt: trx.fn.now() });
        await deps.audit.record(trx, { req, companyId: id, entity: 'company', entityId: id, action: 'update', before: current, after: { ...current, ...values, ...(passwordHash ? { ownerPasswordChanged: true } : {}) } });
        if (body.campaignsEnabled !== undefined) await setCampaignsEnabled(trx, id, toBool(body.campaignsEnabled)!);
      });
    } catch (err) {
      throw mapUnique(err);
    }
    await changed(id);
    return load(id);
  });

  app.delete('/companies/:id', {
    config: { role: 'super' },
    schema: { tags: ['companies'], summary: 'Delete a company and everything it owns', params: IdParams, response: { 200: CompanySchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    if (id === PLATFORM_COMPANY_ID) throw new AppError('ERR_COMPANY_NOT_DELETABLE');
    let deleted: CompanyOut;
    try {
      deleted = await db.transaction(async (trx) => {
        const row = await trx('companies').where({ id }).forUpdate().first();
        if (!row) throw new AppError('ERR_NO_COMPANY_FOUND');
        const [out] = await withPlans(trx, [row]);
        const supersHere = await trx('users').where({ companyId: id, super: true }).first('id');
        if (supersHere && !(await trx('users').whereNot({ companyId: id }).where({ super: true }).first('id'))) {
          throw new AppError('ERR_LAST_SUPER_USER');
        }
        await trx('companies').where({ id }).del();
        await deps.audit.record(trx, { req, companyId: id, entity: 'company', entityId: id, action: 'delete', before: row });
        return out;
      });
    } catch (err) {
      // A plugin table without ON DELETE CASCADE still holds rows of the company.
      if (pgCode(err) === '23503') throw new AppError('ERR_COMPANY_NOT_DELETABLE', 'The company still has records that block its deletion');
      throw err;
    }
    await changed(id);
    return deleted;
  });

  app.put('/companies/:id/schedules', {
    config: { role: 'admin' },
    schema: { tags: ['companies'], summary: "Set the company's opening hours (super, or an admin of that company)", params: IdParams, body: SchedulesBody, response: { 200: CompanySchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    assertOwnOrSuper(req.auth, id);
    const { schedules } = req.body;
    if (new Set(schedules.map((s) => s.weekdayEn)).size !== schedules.length) throw new AppError('ERR_VALIDATION', 'one row per weekday');
    // Each row keeps the shape it was sent in (the screen reads back what it sent): one shift or two.
    const rows = schedules.map((s) =>
      s.startTime !== undefined || s.endTime !== undefined
        ? { weekday: s.weekday.trim(), weekdayEn: s.weekdayEn, startTime: s.startTime ?? '', endTime: s.endTime ?? '' }
        : {
            weekday: s.weekday.trim(),
            weekdayEn: s.weekdayEn,
            startTimeA: s.startTimeA ?? '',
            endTimeA: s.endTimeA ?? '',
            startTimeB: s.startTimeB ?? '',
            endTimeB: s.endTimeB ?? '',
          },
    );
    for (const r of rows) {
      if ('startTime' in r && !r.startTime !== !r.endTime) throw new AppError('ERR_VALIDATION', `${r.weekdayEn}: a shift needs both startTime and endTime`);
    }
    await db.transaction(async (trx) => {
      const current = await trx('companies').where({ id }).forUpdate().first('schedules');
      if (!current) throw new AppError('ERR_NO_COMPANY_FOUND');
      await trx('companies').where({ id }).update({ schedules: JSON.stringify(rows), updatedAt: trx.fn.now() });
      // Issue 34: the opening hours are company settings the audit log keeps (before and after).
      await deps.audit.record(trx, { req, companyId: id, entity: 'company', entityId: id, action: 'update', before: { schedules: current.schedules ?? [] }, after: { schedules: rows } });
    });
    await changed(id);
    return load(id);
  });

  app.post('/companies/:id/renew', {
    config: { role: 'super' },
    schema: { tags: ['companies'], summary: 'Advance the due date by the recurrence (1, 2, 3, 6 or 12 months)', params: IdParams, response: { 200: CompanySchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    if (id === PLATFORM_COMPANY_ID) throw new AppError('ERR_COMPANY_NOT_DELETABLE', `Company 1 never expires: its due date is ${PLATFORM_DUE_DATE}`);
    await db.transaction(async (trx) => {
      const row = await trx('companies').where({ id }).forUpdate().first('id', 'dueDate', 'recurrence');
      if (!row) throw new AppError('ERR_NO_COMPANY_FOUND');
      const dueDate = renewDueDate(row.dueDate, row.recurrence);
      await trx('companies').where({ id }).update({ dueDate, updatedAt: trx.fn.now() });
      await deps.audit.record(trx, { req, companyId: id, entity: 'company', entityId: id, action: 'renew', before: { dueDate: row.dueDate }, after: { dueDate } });
    });
    await changed(id);
    return load(id);
  });
}
