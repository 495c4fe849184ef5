import type { Knex } from 'knex';
import { AppError, BoolLike, ErrorResponse, IdParams, IntLike, ListQuery, page, Paginated, PLAN_FEATURES, planChanged, toBool, toInt, Type, type Plan, type PlanFeature, type Static, type PluginApp, iso } from '@atendo/sdk';
import type { TBoolean, TOptional } from '@sinclair/typebox';
import { toPlan } from '../identity/service';
import type { CoreDeps } from './deps';

/** Page size of `GET /plans`. */
export const PLANS_PAGE_SIZE = 20;


/** A plans row as the API answers it: `toPlan` (flags boolean, `amount` "99.90") with ISO timestamps. */
export function planOut(row: Record<string, unknown>): Plan {
  const plan = toPlan(row);
  return { ...plan, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}

const flagProps = Object.fromEntries(PLAN_FEATURES.map((f) => [f, Type.Boolean()])) as unknown as Record<PlanFeature, TBoolean>;

/** The Plan answer schema (wire-shapes §2 "Plan"); unknown keys are dropped on the way out. */
export const PlanSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    users: Type.Integer(),
    connections: Type.Integer(),
    queues: Type.Integer(),
    amount: Type.String(),
    isPublic: Type.Boolean(),
    ...flagProps,
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);

const Count = IntLike({ minimum: 0, maximum: 1_000_000 });
/** Money in BRL: a number or a decimal string ("99.90", "99,90"), 0 to 9,999,999,999.99. */
const Amount = Type.Union([
  Type.Number({ minimum: 0, maximum: 9_999_999_999.99 }),
  Type.String({ pattern: '^\\s*\\d{1,10}([.,]\\d{1,2})?\\s*$', maxLength: 20 }),
]);
const optionalFlags = Object.fromEntries(PLAN_FEATURES.map((f) => [f, Type.Optional(BoolLike())])) as unknown as Record<PlanFeature, TOptional<ReturnType<typeof BoolLike>>>;
const planFields = {
  users: Type.Optional(Count),
  connections: Type.Optional(Count),
  queues: Type.Optional(Count),
  amount: Type.Optional(Amount),
  isPublic: Type.Optional(BoolLike()),
  ...optionalFlags,
};
const PlanName = Type.String({ minLength: 1, maxLength: 100 });
const CreatePlanBody = Type.Object({ name: PlanName, ...planFields });
const UpdatePlanBody = Type.Object({ name: Type.Optional(PlanName), ...planFields });
type PlanBody = Partial<Static<typeof CreatePlanBody>> & Record<string, unknown>;

/** Picks the plan columns from a create/update body; `amount` normalised to a number with 2 decimals. */
function planValues(body: PlanBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.name !== undefined) {
    const name = String(body.name).trim();
    if (!name) throw new AppError('ERR_VALIDATION', 'name must not be blank');
    out.name = name;
  }
  for (const k of ['users', 'connections', 'queues'] as const) {
    if (body[k] !== undefined) out[k] = toInt(body[k]);
  }
  for (const k of ['isPublic', ...PLAN_FEATURES] as const) {
    if (body[k] !== undefined) out[k] = toBool(body[k]);
  }
  if (body.amount !== undefined) {
    const n = typeof body.amount === 'number' ? body.amount : Number(String(body.amount).trim().replace(',', '.'));
    if (!Number.isFinite(n) || n < 0 || n > 9_999_999_999.99) throw new AppError('ERR_VALIDATION', 'amount must be between 0 and 9999999999.99');
    out.amount = Math.round(n * 100) / 100;
  }
  return out;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';
const isForeignKeyViolation = (err: unknown) => (err as { code?: string }).code === '23503';

async function assertNameFree(trx: Knex.Transaction, name: string, exceptId?: number): Promise<void> {
  const q = trx('plans').whereRaw('lower(name) = ?', [name.toLowerCase()]).first('id');
  if (exceptId) q.whereNot({ id: exceptId });
  if (await q) throw new AppError('ERR_DUPLICATED_NAME');
}

/**
 * Plans (spec 1-platform.md §2 "Plans admin", §3 "Plan"; wire-shapes §2, §4 "GET /plans/list"). Plans are
 * platform-wide. Every answer is a `Plan` (`amount` a 2-decimal string, flags booleans).
 * - `GET /plans/list`, `GET /plans/listPublic` (public, no token): the public plans (`isPublic`), by name.
 * - `GET /plans/all` (super): every plan, by name.
 * - `GET /plans?searchParam&pageNumber` (super): `{plans, count, hasMore}`, 20 a page, by name.
 * - `GET /plans/:id` (super): one plan; 404 ERR_NO_PLAN_FOUND.
 * - `POST /plans` (super): name 1..100 (unique, case-insensitively: 409 ERR_DUPLICATED_NAME), users,
 *   connections, queues (integers 0..1,000,000), amount (number or decimal string), isPublic and the ten
 *   feature flags (default true) -> 201 Plan.
 * - `PUT /plans/:id` (super): any of those fields -> 200 Plan; 404 / 409 as above.
 * - `DELETE /plans/:id` (super) -> 200 the deleted Plan; 409 ERR_PLAN_IN_USE when a company uses it.
 * Every write publishes `plan.changed` on the bus so every node drops its cached plans.
 */
/** Plans are platform-wide: their audit entries belong to the platform company (only super users list them). */
const PLATFORM_AUDIT_COMPANY = 1;

export async function plansRoutes(app: PluginApp, deps: CoreDeps): Promise<void> {
  const { db, bus, identity } = deps;
  const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
  const changed = async () => {
    identity.invalidatePlans();
    await bus.publish(planChanged, {});
  };

  const publicList = async () => (await db('plans').where({ isPublic: true }).orderBy('name')).map(planOut);
  for (const url of ['/plans/list', '/plans/listPublic']) {
    app.get(url, {
      config: { role: 'public' },
      schema: { tags: ['plans'], summary: 'Public plans (sign-up), ordered by name; no token needed', response: { 200: Type.Array(PlanSchema), ...errors } },
    }, publicList);
  }

  app.get('/plans/all', {
    config: { role: 'super' },
    schema: { tags: ['plans'], summary: 'Every plan, ordered by name', response: { 200: Type.Array(PlanSchema), ...errors } },
  }, async () => (await db('plans').orderBy('name')).map(planOut));

  app.get('/plans', {
    config: { role: 'super' },
    schema: { tags: ['plans'], summary: 'Plans, searched by name and paginated (20 a page)', querystring: ListQuery, response: { 200: Paginated('plans', PlanSchema), ...errors } },
  }, async (req) => {
    const { searchParam, pageNumber } = req.query;
    const p = page(pageNumber, PLANS_PAGE_SIZE);
    const base = db('plans');
    const term = searchParam?.trim();
    if (term) base.whereRaw('lower(name) like ?', [`%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ count }] = await base.clone().count<{ count: number }[]>({ count: '*' });
    const rows = await base.clone().orderBy('name').offset(p.offset).limit(p.limit);
    return { plans: rows.map(planOut), count: Number(count), hasMore: p.hasMore(Number(count), rows.length) };
  });

  app.get('/plans/:id', {
    config: { role: 'super' },
    schema: { tags: ['plans'], summary: 'One plan', params: IdParams, response: { 200: PlanSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const row = await db('plans').where({ id }).first();
    if (!row) throw new AppError('ERR_NO_PLAN_FOUND');
    return planOut(row);
  });

  app.post('/plans', {
    config: { role: 'super' },
    schema: { tags: ['plans'], summary: 'Create a plan', body: CreatePlanBody, response: { 201: PlanSchema, ...errors } },
  }, async (req, reply) => {
    const values = planValues(req.body);
    let row: Record<string, unknown>;
    try {
      row = await db.transaction(async (trx) => {
        await assertNameFree(trx, values.name as string);
        const [r] = await trx('plans').insert(values).returning('*');
        await deps.audit.record(trx, { req, companyId: PLATFORM_AUDIT_COMPANY, entity: 'plan', entityId: r.id, action: 'create', after: r });
        return r;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ERR_DUPLICATED_NAME');
      throw err;
    }
    await changed();
    return reply.status(201).send(planOut(row));
  });

  app.put('/plans/:id', {
    config: { role: 'super' },
    schema: { tags: ['plans'], summary: 'Update a plan', params: IdParams, body: UpdatePlanBody, response: { 200: PlanSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const values = planValues(req.body);
    let row: Record<string, unknown>;
    try {
      row = await db.transaction(async (trx) => {
        const current = await trx('plans').where({ id }).forUpdate().first();
        if (!current) throw new AppError('ERR_NO_PLAN_FOUND');
        if (values.name !== undefined) await assertNameFree(trx, values.name as string, id);
        const [r] = await trx('plans').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*');
        await deps.audit.record(trx, { req, companyId: PLATFORM_AUDIT_COMPANY, entity: 'plan', entityId: id, action: 'update', before: current, after: r });
        return r;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ERR_DUPLICATED_NAME');
      throw err;
    }
    await changed();
    return planOut(row);
  });

  app.delete('/plans/:id', {
    config: { role: 'super' },
    schema: { tags: ['plans'], summary: 'Delete a plan no company uses', params: IdParams, response: { 200: PlanSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    let row: Record<string, unknown>;
    try {
      row = await db.transaction(async (trx) => {
        const current = await trx('plans').where({ id }).forUpdate().first();
        if (!current) throw new AppError('ERR_NO_PLAN_FOUND');
        if (await trx('companies').where({ planId: id }).first('id')) throw new AppError('ERR_PLAN_IN_USE');
        await trx('plans').where({ id }).del();
        await deps.audit.record(trx, { req, companyId: PLATFORM_AUDIT_COMPANY, entity: 'plan', entityId: id, action: 'delete', before: current });
        return current;
      });
    } catch (err) {
      // A company switched to this plan between the check and the delete: the foreign key refuses.
      if (isForeignKeyViolation(err)) throw new AppError('ERR_PLAN_IN_USE');
      throw err;
    }
    await changed();
    return planOut(row);
  });
}
