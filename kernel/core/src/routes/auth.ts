import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, defineJob, Type, type Static, type PluginApp } from '@atendo/sdk';
import { signAccess, verifyToken } from '../plugins/auth';
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

/** Milliseconds a client is locked out after LOGIN_RATE_LIMIT failed logins for one (ip, e-mail). */
const LOCK_WINDOW_MS = 60_000;

/** Deletes the `rate_limits` rows whose window ended (every minute, once across nodes). */
export const RateLimitsSweep = defineJob('kernel.rate-limits-sweep');

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
 * - `DELETE /auth/logout` -> 204; revokes the cookie's session (its whole family), or the bearer token's family
 *   when no cookie comes, and clears the cookie; the access tokens issued from it stop working at once
 *   (SessionGuard), and its sockets (token or cookie authenticated) are disconnected.
 * - `GET /auth/me` (bearer) -> {id, name, email, profile, super, companyId}.
 * - `POST /auth/signup` -> the new company; creates a company on a public plan and its first admin. 409
 *   ERR_SIGNUP_REFUSED when the e-mail or the company name is taken (one code: no account enumeration); 429
 *   after SIGNUP_RATE_LIMIT sign-ups an hour from the client address (all nodes).
 */
export async function authRoutes(app: PluginApp, deps: CoreDeps): Promise<void> {
  const { db, identity, sessions, config, rateLimits } = deps;
  // Failed logins and every route limit live in `rate_limits` (all nodes see the same counts); a recurring
  // job drops ended windows.
  deps.jobs.handle(RateLimitsSweep, async () => {
    await rateLimits.sweep();
  });
  await deps.jobs.every(RateLimitsSweep, '* * * * *', {});

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
    // Every attempt counts against the client address (all e-mails together), failed ones also per e-mail.
    config: { role: 'public', rateLimit: { max: config.LOGIN_IP_RATE_LIMIT, timeWindow: '1 minute' } },
    schema: { tags: ['auth'], summary: 'Sign in with e-mail and password', body: LoginBody, response: { 200: AuthAnswer } },
  }, async (req, reply) => {
    const body = req.body;
    const email = body.email.trim().toLowerCase();
    const key = `login:${req.ip}|${email}`;
    const f = await rateLimits.peek(key);
    if (f.count >= config.LOGIN_RATE_LIMIT) {
      void reply.header('retry-after', Math.max(1, Math.ceil(f.ttlMs / 1000)));
      throw new AppError('ERR_TOO_MANY_REQUESTS', 'Too many failed logins, try again in a minute');
    }
    const row = await db('users').whereRaw('lower(email) = ?', [email]).first();
    const ok = row ? await verifyPassword(row.passwordHash, body.password) : await verifyPassword(DUMMY_HASH, body.password);
    if (!row || !ok) {
      // One more failure in the window (a window that ended starts again at 1); the window slides.
      await rateLimits.hit(key, LOCK_WINDOW_MS, { slide: true });
      throw new AppError('ERR_INVALID_CREDENTIALS');
    }
    if (f.count) await rateLimits.reset(key);
    const company = await identity.getCompany(row.companyId);
    if (!company || (!company.status && company.id !== PLATFORM_COMPANY_ID)) throw new AppError('ERR_COMPANY_INACTIVE');
    if (!row.super && !withinWorkHours(row.startWork, row.endWork)) throw new AppError('ERR_OUT_OF_HOURS');

    const refresh = await sessions.open(db, row.id, row.companyId, meta(req));
    await db('companies').where({ id: row.companyId }).update({ lastLogin: db.fn.now() });
    await db('users').where({ id: row.id }).update({ online: true, lastSeenAt: db.fn.now() });
    row.online = true;
    const token = signAccess(app, { id: row.id, companyId: row.companyId, profile: row.profile, super: row.super, name: row.name, tokenVersion: row.tokenVersion, sessionId: refresh.familyId });
    // The first session of this user learns that another computer signed in.
    deps.realtime.emitToCompany(row.companyId, `company-${row.companyId}-auth`, { action: 'update', user: { id: row.id, email: row.email, companyId: row.companyId } }, { userId: row.id });
    setCookie(reply, refresh.token);
    return { token, user: await sessionUser(identity, row, deps.uploads) };
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
    const token = signAccess(app, { id: row.id, companyId: row.companyId, profile: row.profile, super: row.super, name: row.name, tokenVersion: row.tokenVersion, sessionId: rotated.familyId });
    return { token, user: await sessionUser(identity, row, deps.uploads) };
  });

  app.delete('/auth/logout', {
    config: { role: 'public' },
    schema: { tags: ['auth'], summary: 'Sign out: revokes the refresh session and clears its cookie', response: { 204: Type.Null() } },
  }, async (req, reply) => {
    const raw = req.cookies[REFRESH_COOKIE];
    if (raw && raw.length <= 200) await sessions.revoke(raw);
    try {
      // The session is revoked by now: only the token's signature says whose it was.
      const user = verifyToken(app, req.headers.authorization);
      // A logout that sends only its access token (no cookie) ends that token's session family too, so its
      // tokens, cookie and sockets (token or cookie authenticated) end as with the cookie.
      if (user.sid) await sessions.revokeFamily(user.sid, user.id);
      await db('users').where({ id: user.id, companyId: user.companyId }).update({ online: false });
    } catch {
      /* logging out with an expired access token is fine */
    }
    clearCookie(reply);
    return reply.status(204).send(null);
  });

  app.get('/auth/me', {
    config: { allowExpired: true },
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
    config: { role: 'public', rateLimit: { max: config.SIGNUP_RATE_LIMIT, timeWindow: '1 hour' } },
    schema: { tags: ['auth'], summary: 'Create a new company on a public plan with its first admin', body: SignupBody },
  }, async (req, reply) => {
    if (!config.SIGNUP_ENABLED) throw new AppError('ERR_SIGNUP_DISABLED');
    const body = req.body;
    const creation = await db('settings').where({ companyId: PLATFORM_COMPANY_ID, key: 'userCreation' }).first('value');
    if (creation?.value === 'disabled') throw new AppError('ERR_USER_CREATION_DISABLED');
    const plan = await db('plans').where({ id: body.planId, isPublic: true }).first('id');
    if (!plan) throw new AppError('ERR_NO_PLAN_FOUND');
    const passwordHash = await hashPassword(body.password);
    // A taken e-mail and a taken company name get the same answer (ERR_SIGNUP_REFUSED), so sign-up does not
    // tell which e-mails have accounts; both are checked every time (same work on either path).
    const company = await db.transaction(async (trx) => {
      const [emailTaken, nameTaken] = await Promise.all([
        trx('users').whereRaw('lower(email) = ?', [body.email.toLowerCase()]).first('id'),
        trx('companies').whereRaw('lower(name) = ?', [body.companyName.trim().toLowerCase()]).first('id'),
      ]);
      if (emailTaken || nameTaken) throw new AppError('ERR_SIGNUP_REFUSED');
      const due = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
      const [c] = await trx('companies')
        .insert({ name: body.companyName.trim(), email: body.email.toLowerCase(), phone: body.phone ?? null, planId: plan.id, status: true, dueDate: due, recurrence: 'MONTHLY' })
        .returning('*');
      await trx('users').insert({ companyId: c.id, name: body.name.trim(), email: body.email.toLowerCase(), passwordHash, profile: 'admin' });
      return c;
    }).catch((err: unknown) => {
      // A concurrent sign-up took the e-mail or the name between the check and the insert.
      if ((err as { code?: string }).code === '23505') throw new AppError('ERR_SIGNUP_REFUSED');
      throw err;
    });
    deps.realtime.emitToCompany(PLATFORM_COMPANY_ID, `company-${PLATFORM_COMPANY_ID}-company`, { action: 'create', company });
    return reply.status(201).send(company);
  });
}

// Verifying against a fixed hash when the e-mail is unknown keeps both paths equally slow (no user enumeration).
const DUMMY_HASH = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$0Yb7ksU4U5YgpZbU5m2wQJ3Ffq3YgT1dW0nQj1W2uXo';
