import { createHmac, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, resetCodeIssued, Type, type ErrorCode, type PasswordResetCodeEvent, type Static, type PluginApp } from '@atendo/sdk';
import { hashPassword } from '../identity/service';
import {
  RESET_CODE_TTL_MS,
  RESET_MAX_ATTEMPTS,
  RESET_RETENTION_MS,
  deliveryNumber,
  digitsOf,
  hashResetCode,
  newResetCode,
  resetCodeMatches,
  resetCodeText,
  wppCandidates,
  wppKey,
} from '../auth/password-reset';
import type { CoreDeps } from './deps';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** A phone number as typed: digits with optional `+`, spaces, dots, dashes and parentheses (8..15 digits, checked in the handler). */
const Wpp = Type.String({ minLength: 8, maxLength: 30, pattern: '^\\+?[0-9 ().-]+$', description: 'WhatsApp number (digits; +, spaces, dots, dashes and parentheses are ignored)' });
const ResetId = Type.String({ pattern: UUID, description: 'The opaque reset id answered by POST /api/enviar-email (never a real user id)' });
const Code = Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code received on WhatsApp' });

const SendBody = Type.Object({ wpp: Wpp });
const SendAnswer = Type.Object({ userId: ResetId });
const VerifyParams = Type.Object({ wpp: Wpp });
const VerifyQuery = Type.Object({ code: Code, userId: Type.Optional(ResetId) });
const VerifyAnswer = Type.Object({ valid: Type.Boolean(), userId: ResetId, expiresAt: Type.String() });
const UpdateBody = Type.Object({ userId: ResetId, code: Code, newPassword: Type.String({ minLength: 5, maxLength: 50 }) });
const UpdateAnswer = Type.Object({ message: Type.String() });
const ErrorAnswer = Type.Object({ error: Type.String(), message: Type.String(), attemptsLeft: Type.Optional(Type.Integer()) }, { additionalProperties: true });

interface ResetRow {
  id: string;
  wppKey: string;
  userId: number | null;
  companyId: number | null;
  codeHash: string;
  attempts: number;
  expiresAt: Date;
  usedAt: Date | null;
  /** Computed in SQL (`expires_at <= now()`), so every node uses the database's clock. */
  expired: boolean;
}

type Judgement = { ok: true; row: ResetRow } | { ok: false; code: ErrorCode; attemptsLeft?: number };

/** The digits of a typed number, or 400 ERR_VALIDATION when it has fewer than 8 or more than 15 (E.164). */
function numberOf(wpp: string): string {
  const d = digitsOf(wpp);
  if (d.length < 8 || d.length > 15) throw new AppError('ERR_VALIDATION', 'wpp must have 8 to 15 digits');
  return d;
}

const fail = (j: Extract<Judgement, { ok: false }>): AppError =>
  new AppError(j.code, undefined, j.attemptsLeft !== undefined ? { extra: { attemptsLeft: j.attemptsLeft } } : {});

/**
 * Password reset by WhatsApp code (spec 3-campaigns-and-tools.md "Password reset", §4 flow, §5 three attempts,
 * §7 routes, §8 messages). The product family's wire is kept (paths and field names) but not its flaws: the
 * code never leaves the server, and the password can only be reset with the code.
 *
 * - `POST /api/enviar-email` {wpp} -> 200 {userId}. Public. `userId` is an opaque reset id (uuid), NOT the
 *   user's id. The number matches a user whose `wpp` has the same digits (with or without country code 55
 *   and the Brazilian 9th digit). A 6-digit code (10 minutes, 3 attempts, single use) is stored as an HMAC
 *   and sent on WhatsApp through the bus (`auth.reset-code-issued`, delivered by the connections plugin
 *   from company 1's connection). The answer is the same whether or not the number is registered (a row
 *   with an unsendable code is stored for unknown numbers, so verification behaves the same too); a number
 *   shared by several users gets no code. A new code supersedes the number's previous one. 400
 *   ERR_VALIDATION; 429 ERR_TOO_MANY_REQUESTS after PASSWORD_RESET_PER_NUMBER codes for the number in an hour
 *   (all nodes) or PASSWORD_RESET_RATE_LIMIT requests from the IP in 15 minutes (per node).
 * - `GET /api/verificar-code/:wpp?code=123456[&userId=<reset id>]` -> 200 {valid: true, userId, expiresAt}.
 *   Checks the number's latest code in constant time; a wrong code counts an attempt. 400
 *   ERR_INVALID_RESET_CODE {attemptsLeft} (also when no code is pending), 400 ERR_RESET_CODE_EXPIRED, 429
 *   ERR_RESET_ATTEMPTS_EXCEEDED (the third wrong code and every try after it), 400 ERR_VALIDATION.
 * - `PUT /api/atualizar-senha` {userId: <reset id>, code, newPassword} -> 200 {message}. Checks the code
 *   again (same errors, same attempt counter), then in one transaction: new argon2id hash (5..50 characters,
 *   as `POST /users`), `tokenVersion` + 1, every refresh session of the user revoked, the code used up.
 */
export async function passwordResetRoutes(app: PluginApp, deps: CoreDeps): Promise<void> {
  const { db, bus, config, sessions } = deps;
  // A key of its own (derived from the JWT secret) for code hashes.
  const secret = createHmac('sha256', config.jwtSecret).update('atendo:password-reset').digest('hex');
  const ipLimit = { max: config.PASSWORD_RESET_RATE_LIMIT, timeWindow: '15 minutes' };

  /** The reset row, locked, with `expired` from the database clock. */
  const lockRow = (trx: Knex.Transaction, where: (q: Knex.QueryBuilder) => void): Promise<ResetRow | undefined> => {
    const q = trx('passwordResets').select('*', trx.raw('(expires_at <= now()) AS expired')).whereNull('usedAt');
    where(q);
    return q.orderBy('createdAt', 'desc').limit(1).forUpdate().first();
  };

  /** Judges `code` against `row`; a wrong code counts an attempt (inside `trx`). */
  const judge = async (trx: Knex.Transaction, row: ResetRow | undefined, code: string): Promise<Judgement> => {
    if (!row) return { ok: false, code: 'ERR_INVALID_RESET_CODE' };
    if (row.attempts >= RESET_MAX_ATTEMPTS) return { ok: false, code: 'ERR_RESET_ATTEMPTS_EXCEEDED' };
    if (row.expired) return { ok: false, code: 'ERR_RESET_CODE_EXPIRED' };
    // Always compute the HMAC, also for rows of unknown numbers (which never match), so timing is the same.
    const matches = resetCodeMatches(secret, row.id, code, row.codeHash);
    if (matches && row.userId !== null) return { ok: true, row };
    const attempts = row.attempts + 1;
    await trx('passwordResets').where({ id: row.id }).update({ attempts });
    const left = RESET_MAX_ATTEMPTS - attempts;
    return left > 0 ? { ok: false, code: 'ERR_INVALID_RESET_CODE', attemptsLeft: left } : { ok: false, code: 'ERR_RESET_ATTEMPTS_EXCEEDED' };
  };

  app.post('/api/enviar-email', {
    config: { role: 'public', rateLimit: ipLimit },
    schema: {
      tags: ['auth'],
      summary: 'Password reset, step 1: send a verification code to a WhatsApp number',
      description: 'Answers the same for registered and unknown numbers. `userId` is an opaque reset id, not a user id.',
      security: [],
      body: SendBody,
      response: { 200: SendAnswer, 400: ErrorAnswer, 429: ErrorAnswer },
    },
  }, async (req) => {
    const { wpp } = req.body;
    const digits = numberOf(wpp);
    const key = wppKey(digits);
    const id = randomUUID();
    const code = newResetCode();
    const issued = await db.transaction(async (trx) => {
      // One request per number at a time, so the hourly count below is exact on every node.
      await trx.raw('SELECT pg_advisory_xact_lock(4242002, hashtext(?))', [key]);
      const recent = await trx('passwordResets').where({ wppKey: key }).where('createdAt', '>', trx.raw("now() - interval '1 hour'")).count({ n: '*' }).first();
      if (Number(recent?.n ?? 0) >= config.PASSWORD_RESET_PER_NUMBER) return undefined;
      const users: { id: number; companyId: number; wpp: string; language: string | null }[] = await trx('users')
        .whereRaw("regexp_replace(coalesce(wpp, ''), '[^0-9]', '', 'g') = ANY(?)", [wppCandidates(digits)])
        .limit(2)
        .select('id', 'companyId', 'wpp', 'language');
      // A number shared by several users cannot say whose password to reset: nobody gets a code.
      const user = users.length === 1 ? users[0] : undefined;
      if (users.length > 1) req.log.warn({ users: users.map((u) => u.id) }, 'password reset: number shared by several users, no code sent');
      await trx('passwordResets').where({ wppKey: key }).whereNull('usedAt').update({ usedAt: trx.fn.now() });
      const [row] = await trx('passwordResets')
        .insert({
          id,
          wppKey: key,
          userId: user?.id ?? null,
          companyId: user?.companyId ?? null,
          codeHash: hashResetCode(secret, id, code),
          expiresAt: trx.raw(`now() + interval '${Math.round(RESET_CODE_TTL_MS / 1000)} seconds'`),
          ip: req.ip?.slice(0, 64) ?? null,
        })
        .returning(['expiresAt']);
      await trx('passwordResets').where('createdAt', '<', new Date(Date.now() - RESET_RETENTION_MS)).delete();
      const expiresAt = new Date(row.expiresAt);
      if (user) {
        const event: PasswordResetCodeEvent = {
          companyId: user.companyId,
          userId: user.id,
          to: deliveryNumber(user.wpp),
          code,
          text: resetCodeText(code, user.language),
          expiresAt: expiresAt.toISOString(),
        };
        // With the code's row: the code is delivered if and only if it was issued (the outbox; no broker wait
        // on this path, so registered and unknown numbers answer alike).
        await bus.publish(resetCodeIssued, event, { id: `${resetCodeIssued.name}:${id}`, trx });
      }
      return { user, expiresAt };
    });
    if (!issued) throw new AppError('ERR_TOO_MANY_REQUESTS', 'Too many codes for this number, try again later');
    return { userId: id };
  });

  app.get('/api/verificar-code/:wpp', {
    config: { role: 'public', rateLimit: ipLimit },
    schema: {
      tags: ['auth'],
      summary: 'Password reset, step 2: check the code received on WhatsApp',
      description: 'Never answers the code. Three wrong codes use it up (429 ERR_RESET_ATTEMPTS_EXCEEDED).',
      security: [],
      params: VerifyParams,
      querystring: VerifyQuery,
      response: { 200: VerifyAnswer, 400: ErrorAnswer, 429: ErrorAnswer },
    },
  }, async (req) => {
    const { wpp } = req.params;
    const { code, userId } = req.query;
    const key = wppKey(numberOf(wpp));
    const verdict = await db.transaction(async (trx) => {
      const row = await lockRow(trx, (q) => {
        q.where({ wppKey: key });
        if (userId) q.where({ id: userId.toLowerCase() });
      });
      const j = await judge(trx, row, code);
      if (j.ok) await trx('passwordResets').where({ id: j.row.id }).update({ verifiedAt: trx.fn.now() });
      return j;
    });
    if (!verdict.ok) throw fail(verdict);
    return { valid: true, userId: verdict.row.id, expiresAt: new Date(verdict.row.expiresAt).toISOString() };
  });

  app.put('/api/atualizar-senha', {
    config: { role: 'public', rateLimit: ipLimit },
    schema: {
      tags: ['auth'],
      summary: 'Password reset, step 3: set a new password with the code (single use); signs the user out everywhere',
      security: [],
      body: UpdateBody,
      response: { 200: UpdateAnswer, 400: ErrorAnswer, 429: ErrorAnswer },
    },
  }, async (req) => {
    const body = req.body;
    const verdict = await db.transaction(async (trx) => {
      const row = await lockRow(trx, (q) => q.where({ id: body.userId.toLowerCase() }));
      const j = await judge(trx, row, body.code);
      if (!j.ok) return j;
      const { userId, companyId } = j.row;
      const passwordHash = await hashPassword(body.newPassword);
      const n = await trx('users')
        .where({ id: userId!, companyId: companyId! })
        .update({ passwordHash, tokenVersion: trx.raw('token_version + 1'), updatedAt: trx.fn.now() });
      if (!n) return { ok: false, code: 'ERR_INVALID_RESET_CODE' } as Judgement;
      await sessions.revokeUser(trx, userId!);
      // Issue 34: a user's credentials changed without a session: audited as the system's reset flow.
      await deps.audit.record(trx, { companyId: companyId!, req, actor: { kind: 'system', label: 'password-reset' }, entity: 'user', entityId: userId!, action: 'update', after: { credentials: 'reset-by-code', sessionsRevoked: true } });
      await trx('passwordResets').where({ id: j.row.id }).update({ usedAt: trx.fn.now(), verifiedAt: trx.raw('coalesce(verified_at, now())') });
      // Any other code still pending for this user dies with this one.
      await trx('passwordResets').where({ userId: userId! }).whereNull('usedAt').update({ usedAt: trx.fn.now() });
      return j;
    });
    if (!verdict.ok) throw fail(verdict);
    req.log.info({ userId: verdict.row.userId, companyId: verdict.row.companyId }, 'password reset by WhatsApp code');
    return { message: 'Password updated' };
  });
}
