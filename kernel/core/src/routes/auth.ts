import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Type, type Static } from '@atendo/sdk';
import { signAccess, verifyAccess } from '../plugins/auth';
import { hashPassword, verifyPassword } from '../identity/service';
import { PLATFORM_COMPANY_ID } from '../identity/defaults';
import { sessionUser } from './serialize';
import type { CoreDeps } from './deps';

export const REFRESH_COOKIE = 'jrt';

const Email = Type.String({ minLength: 3, maxLength: 255, pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' });
const LoginBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 255 }), password: Type.String({ minLength: 1, maxLength: 200 }) });
const SignupBody = Type.Object({
  companyName: Type.String({ minLength: 2, maxLength: 50 }),
  name: Type.String({ minLength: 2, maxLength: 50 }),
  email: Email,
  password: Type.String({ minLength: 5, maxLength: 50 }),
  phone: Type.Optional(Type.Union([Type.String({ maxLength: 30 }), Type.Null()])),
  planId: Type.Integer({ minimum: 1 }),
  companyId: Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 20 }), Type.Null()])),
});
const AuthAnswer = Type.Object({ token: Type.String(), user: Type.Object({}, { additionalProperties: true }) });

/** Minutes a client is locked out after LOGIN_RATE_LIMIT failed logins for one (ip, e-mail). */
const LOCK_WINDOW_MS = 60_000;

/** Working-hours check in the platform's time zone: `HH:mm` now within [startWork, endWork]. */
export function withinWorkHours(startWork: string | null, endWork: string | null, now = new Date(), timeZone = process.env.TZ_BUSINESS ?? 'America/Sao_Paulo'): boolean {
  if (!startWork || !endWork) return true;
  const hhmm = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(now);
  return startWork <= endWork ? hhmm >= startWork && hhmm <= endWork : hhmm >= startWork || hhmm <= endWork;
}

/**
 * Auth routes (spec 1-platform.md §4, §7; wire-shapes §3):
 * - `POST /auth/login` {email, password} -> {token, user}; sets the `jrt` refresh cookie. 401
 *   ERR_INVALID_CREDENTIALS; 401 ERR_OUT_OF_HOURS outside the user's working hours; 403 ERR_COMPANY_INACTIVE;
 *   429 ERR_TOO_MANY_REQUESTS after LOGIN_RATE_LIMIT failures a minute. Tells the user's other sessions on
 *   `company-{id}-auth`.
 * - `POST /auth/refresh_token` (cookie) -> {token, user}; rotates the cookie; 401 ERR_SESSION_EXPIRED.
 * - `DELETE /auth/logout` -> 204; revokes the cookie's session and clears it.
 * - `GET /auth/me` (bearer) -> {id, name, email, profile, super, companyId}.
 * - `POST /auth/signup` -> the new company; creates a company on a public plan and its first admin.
 */
export async function authRoutes(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  const { db, identity, sessions, config } = deps;
  const failures = new Map<string, { count: number; until: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, v] of failures) if (v.until < now) failures.delete(k);
  }, LOCK_WINDOW_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  const setCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(REFRESH_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.cookieSecure,
      path: '/',
      maxAge: config.REFRESH_TOKEN_DAYS * 86400,
    });
  const clearCookie = (reply: FastifyReply) => reply.clearCookie(REFRESH_COOKIE, { path: '/' });
  const meta = (req: FastifyRequest) => ({ userAgent: req.headers['user-agent'], ip: req.ip });

  app.post('/auth/login', {
    config: { role: 'public' },
    schema: { tags: ['auth'], summary: 'Sign in with e-mail and password', body: LoginBody, response: { 200: AuthAnswer } },
  }, async (req, reply) => {
    const body = req.body as Static<typeof LoginBody>;
    const email = body.email.trim().toLowerCase();
    const key = `${req.ip}|${email}`;
    const f = failures.get(key);
    if (f && f.count >= config.LOGIN_RATE_LIMIT && f.until > Date.now()) {
      void reply.header('retry-after', Math.ceil((f.until - Date.now()) / 1000));
      throw new AppError('ERR_TOO_MANY_REQUESTS', 'Too many failed logins, try again in a minute');
    }
    const row = await db('users').whereRaw('lower(email) = ?', [email]).first();
    const ok = row ? await verifyPassword(row.passwordHash, body.password) : await verifyPassword(DUMMY_HASH, body.password);
    if (!row || !ok) {
      const cur = failures.get(key);
      const until = Date.now() + LOCK_WINDOW_MS;
      failures.set(key, { count: (cur && cur.until > Date.now() ? cur.count : 0) + 1, until });
      throw new AppError('ERR_INVALID_CREDENTIALS');
    }
    failures.delete(key);
    const company = await identity.getCompany(row.companyId);
    if (!company || (!company.status && company.id !== PLATFORM_COMPANY_ID)) throw new AppError('ERR_COMPANY_INACTIVE');
    if (!row.super && !withinWorkHours(row.startWork, row.endWork)) throw new AppError('ERR_OUT_OF_HOURS');

    const refresh = await sessions.create(db, row.id, row.companyId, meta(req));
    await db('companies').where({ id: row.companyId }).update({ lastLogin: db.fn.now() });
    await db('users').where({ id: row.id }).update({ online: true, lastSeenAt: db.fn.now() });
    row.online = true;
    const token = signAccess(app, { id: row.id, companyId: row.companyId, profile: row.profile, super: row.super, name: row.name });
    // The first session of this user learns that another computer signed in.
    deps.realtime.emitToCompany(row.companyId, `company-${row.companyId}-auth`, { action: 'update', user: { id: row.id, email: row.email, companyId: row.companyId } }, { userId: row.id });
    setCookie(reply, refresh);
    return { token, user: await sessionUser(identity, row) };
  });

  app.post('/auth/refresh_token', {
    config: { role: 'public' },
    schema: { tags: ['auth'], summary: 'New access token from the refresh cookie (rotates it)', response: { 200: AuthAnswer } },
  }, async (req, reply) => {
    const raw = req.cookies[REFRESH_COOKIE];
    const rotated = raw && raw.length <= 200 ? await sessions.rotate(raw, meta(req)) : undefined;
    const row = rotated ? await db('users').where({ id: rotated.userId, companyId: rotated.companyId }).first() : undefined;
    const company = row ? await identity.getCompany(row.companyId) : undefined;
    if (!rotated || !row || !company || (!company.status && company.id !== PLATFORM_COMPANY_ID)) {
      clearCookie(reply);
      throw new AppError('ERR_SESSION_EXPIRED');
    }
    setCookie(reply, rotated.token);
    const token = signAccess(app, { id: row.id, companyId: row.companyId, profile: row.profile, super: row.super, name: row.name });
    return { token, user: await sessionUser(identity, row) };
  });

  app.delete('/auth/logout', {
    config: { role: 'public' },
    schema: { tags: ['auth'], summary: 'Sign out: revokes the refresh session and clears its cookie', response: { 204: Type.Null() } },
  }, async (req, reply) => {
    const raw = req.cookies[REFRESH_COOKIE];
    if (raw && raw.length <= 200) await sessions.revoke(raw);
    try {
      const user = await verifyAccess(app, req.headers.authorization);
      await db('users').where({ id: user.id, companyId: user.companyId }).update({ online: false });
    } catch {
      /* logging out with an expired access token is fine */
    }
    clearCookie(reply);
    return reply.status(204).send();
  });

  app.get('/auth/me', {
    schema: {
      tags: ['auth'],
      summary: 'The caller',
      response: { 200: Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String(), profile: Type.String(), super: Type.Boolean(), companyId: Type.Integer() }) },
    },
  }, async (req) => {
    const row = await db('users').where({ id: req.auth.id, companyId: req.auth.companyId }).first('id', 'name', 'email', 'profile', 'super', 'companyId');
    if (!row) throw new AppError('ERR_SESSION_EXPIRED');
    return row;
  });

  app.post('/auth/signup', {
    config: { role: 'public', rateLimit: { max: Number(process.env.SIGNUP_RATE_LIMIT ?? 10), timeWindow: '1 hour' } },
    schema: { tags: ['auth'], summary: 'Create a new company on a public plan with its first admin', body: SignupBody },
  }, async (req, reply) => {
    if (!config.SIGNUP_ENABLED) throw new AppError('ERR_SIGNUP_DISABLED');
    const body = req.body as Static<typeof SignupBody>;
    const creation = await db('settings').where({ companyId: PLATFORM_COMPANY_ID, key: 'userCreation' }).first('value');
    if (creation?.value === 'disabled') throw new AppError('ERR_USER_CREATION_DISABLED');
    const plan = await db('plans').where({ id: body.planId, isPublic: true }).first('id');
    if (!plan) throw new AppError('ERR_NO_PLAN_FOUND');
    const passwordHash = await hashPassword(body.password);
    const company = await db.transaction(async (trx) => {
      if (await trx('users').whereRaw('lower(email) = ?', [body.email.toLowerCase()]).first('id')) throw new AppError('ERR_DUPLICATED_EMAIL');
      if (await trx('companies').whereRaw('lower(name) = ?', [body.companyName.trim().toLowerCase()]).first('id')) throw new AppError('ERR_DUPLICATED_NAME');
      const due = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
      const [c] = await trx('companies')
        .insert({ name: body.companyName.trim(), email: body.email.toLowerCase(), phone: body.phone ?? null, planId: plan.id, status: true, dueDate: due, recurrence: 'MONTHLY' })
        .returning('*');
      await trx('users').insert({ companyId: c.id, name: body.name.trim(), email: body.email.toLowerCase(), passwordHash, profile: 'admin' });
      return c;
    });
    deps.realtime.emitToCompany(PLATFORM_COMPANY_ID, `company-${PLATFORM_COMPANY_ID}-company`, { action: 'create', company });
    return reply.status(201).send(company);
  });
}

// Verifying against a fixed hash when the e-mail is unknown keeps both paths equally slow (no user enumeration).
const DUMMY_HASH = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$0Yb7ksU4U5YgpZbU5m2wQJ3Ffq3YgT1dW0nQj1W2uXo';
