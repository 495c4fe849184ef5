import type { FastifyInstance, FastifyRequest } from 'fastify';
import fjwt from '@fastify/jwt';
import { AppError, hasRole, type AuthUser, type PlanFeature } from '@atendo/sdk';
import type { Identity } from '../identity/service';
import type { SessionGuard, SessionClaims } from '../auth/session-guard';

/** Verified access tokens kept (LRU) so that a token seen before is not verified again (see registerAuth). */
export const JWT_CACHE_SIZE = 10_000;

/**
 * Payload of the access JWT. `usarname` keeps the product family's (misspelt) claim for old clients; `tv` is
 * the user's tokenVersion at signing and `sid` the refresh-session family the token was issued from (both
 * checked on every request by the SessionGuard); `exp` (seconds) is always present.
 */
export interface AccessClaims extends AuthUser {
  usarname?: string;
  tv?: number;
  sid?: string;
  exp?: number;
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessClaims;
    user: AccessClaims;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The kernel's check that a token's session is still live (see SessionGuard). */
    sessionGuard: SessionGuard;
  }
}

/**
 * Access tokens and the request guard.
 *
 * Every route is private unless its config says `role: 'public'`. The guard runs `onRequest` (before the
 * body is read): no bearer token -> 401 ERR_SESSION_EXPIRED; a token that fails verification, has expired,
 * has no `exp`, is signed with another algorithm than HS256, or whose session is no longer live (logout,
 * password change, user deleted, profile or super flag changed, company deactivated: SessionGuard) -> 403
 * ERR_INVALID_TOKEN (clients refresh once and retry; a revoked session's refresh then fails with 401); a
 * role below the route's -> 403 ERR_NO_PERMISSION; a plan without the route's feature -> 403
 * ERR_FEATURE_NOT_IN_PLAN; a company past its due date -> 403 ERR_SUBSCRIPTION_EXPIRED, except on routes
 * whose config says `allowExpired: true` (what /financeiro-aberto needs).
 */
export async function registerAuth(app: FastifyInstance, opts: { secret: string; expiresIn: string; identity: Identity; guard: SessionGuard }): Promise<void> {
  // Verified tokens are cached (fast-jwt's LRU, keyed by the token; an entry never outlives its token's
  // `exp`): a request with a token seen before skips the HMAC and the JSON decoding. Whatever is checked
  // per request beyond the signature (the SessionGuard's revocation check) runs on every request, cached
  // verification or not. Only HS256, and never a token without an expiry.
  await app.register(fjwt, {
    secret: opts.secret,
    sign: { expiresIn: opts.expiresIn, algorithm: 'HS256' },
    verify: { algorithms: ['HS256'], requiredClaims: ['exp'], cache: JWT_CACHE_SIZE },
  });
  app.decorate('sessionGuard', opts.guard);

  app.decorateRequest('auth', null as unknown as AuthUser);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    if (!request.routeOptions.url) return; // unknown route: the 404 handler answers
    const role = config?.role ?? 'user';
    if (role === 'public') return;
    request.auth = await verifyAccess(app, request.headers.authorization, { allowExpired: config?.allowExpired === true });
    if (!hasRole(request.auth, role)) throw new AppError('ERR_NO_PERMISSION');
    for (const feature of [config?.pluginFeature, config?.feature]) {
      if (feature) await assertFeature(opts.identity, request.auth.companyId, feature);
    }
  });
}

/**
 * Step 1, the token alone: `Authorization: Bearer <jwt>` verified (HS256, signature, `exp` present and not
 * passed) into its claims. Says nothing about revocation: this is the part a verification cache may
 * remember. 401 ERR_SESSION_EXPIRED without a bearer token, 403 ERR_INVALID_TOKEN otherwise.
 */
export function verifyToken(app: FastifyInstance, header: string | undefined): AccessClaims & SessionClaims {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match) throw new AppError('ERR_SESSION_EXPIRED');
  let token = match[1];
  // Clients of this product family may store the token JSON-encoded ("\"eyJ...\"").
  if (token.startsWith('"') && token.endsWith('"')) token = token.slice(1, -1);
  let claims: AccessClaims;
  try {
    claims = app.jwt.verify<AccessClaims>(token);
  } catch {
    throw new AppError('ERR_INVALID_TOKEN');
  }
  if (!Number.isInteger(claims.id) || !Number.isInteger(claims.companyId) || typeof claims.exp !== 'number') throw new AppError('ERR_INVALID_TOKEN');
  if ((claims.tv !== undefined && !Number.isInteger(claims.tv)) || (claims.sid !== undefined && typeof claims.sid !== 'string')) throw new AppError('ERR_INVALID_TOKEN');
  return { ...claims, super: Boolean(claims.super) };
}

/**
 * Verifies `Authorization: Bearer <jwt>` and returns the caller: the token (verifyToken), then, always,
 * that its session is still live and as signed (SessionGuard.judge, cached and invalidated through the bus).
 * Throws the catalogue errors above, and 403 ERR_SUBSCRIPTION_EXPIRED when the caller's company is past its
 * due date, unless `allowExpired` (the routes of the open-invoices page; a renewal lifts it at once: the
 * renew route publishes company.changed, which drops the guard's cached company).
 */
export async function verifyAccess(app: FastifyInstance, header: string | undefined, opts: { allowExpired?: boolean } = {}): Promise<AuthUser> {
  const claims = verifyToken(app, header);
  const verdict = await app.sessionGuard.judge(claims);
  if (!verdict.live || !verdict.asSigned) throw new AppError('ERR_INVALID_TOKEN');
  if (verdict.expired && !opts.allowExpired) throw new AppError('ERR_SUBSCRIPTION_EXPIRED');
  return verdict.current;
}

/** Throws 403 ERR_FEATURE_NOT_IN_PLAN unless the company's plan has `feature`. */
export async function assertFeature(identity: Identity, companyId: number, feature: PlanFeature): Promise<void> {
  const plan = await identity.getCompanyPlan(companyId);
  if (!plan || !plan[feature]) throw new AppError('ERR_FEATURE_NOT_IN_PLAN', `This company's plan does not include ${feature}`, { extra: { feature } });
}

/**
 * Signs a 15-minute (JWT_EXPIRES_IN) access token for `user`, with the user's current `tokenVersion` (default
 * 0) and the refresh-session family it was issued from (`sessionId`), which the SessionGuard checks.
 */
export function signAccess(app: FastifyInstance, user: AuthUser & { name?: string; tokenVersion?: number; sessionId?: string }): string {
  return app.jwt.sign({ id: user.id, companyId: user.companyId, profile: user.profile, super: user.super, usarname: user.name, tv: user.tokenVersion ?? 0, ...(user.sessionId ? { sid: user.sessionId } : {}) });
}
