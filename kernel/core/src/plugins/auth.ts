import type { FastifyInstance, FastifyRequest } from 'fastify';
import fjwt from '@fastify/jwt';
import { AppError, hasRole, type AuthUser, type PlanFeature } from '@atendo/sdk';
import type { Identity } from '../identity/service';

/** Payload of the access JWT. `usarname` keeps the product family's (misspelt) claim for old clients. */
export interface AccessClaims extends AuthUser {
  usarname?: string;
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessClaims;
    user: AccessClaims;
  }
}

/**
 * Access tokens and the request guard.
 *
 * Every route is private unless its config says `role: 'public'`. The guard runs `onRequest` (before the
 * body is read): no bearer token -> 401 ERR_SESSION_EXPIRED; a token that fails verification or has
 * expired -> 403 ERR_INVALID_TOKEN (clients refresh once and retry); a role below the route's ->
 * 403 ERR_NO_PERMISSION; a plan without the route's feature -> 403 ERR_FEATURE_NOT_IN_PLAN.
 */
export async function registerAuth(app: FastifyInstance, opts: { secret: string; expiresIn: string; identity: Identity }): Promise<void> {
  await app.register(fjwt, { secret: opts.secret, sign: { expiresIn: opts.expiresIn, algorithm: 'HS256' }, verify: { algorithms: ['HS256'] } });

  app.decorateRequest('auth', null as unknown as AuthUser);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    if (!request.routeOptions.url) return; // unknown route: the 404 handler answers
    const role = config?.role ?? 'user';
    if (role === 'public') return;
    request.auth = await verifyAccess(app, request.headers.authorization);
    if (!hasRole(request.auth, role)) throw new AppError('ERR_NO_PERMISSION');
    for (const feature of [config?.pluginFeature, config?.feature]) {
      if (feature) await assertFeature(opts.identity, request.auth.companyId, feature);
    }
  });
}

/** Verifies `Authorization: Bearer <jwt>` and returns the caller. Throws the catalogue errors above. */
export async function verifyAccess(app: FastifyInstance, header: string | undefined): Promise<AuthUser> {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match) throw new AppError('ERR_SESSION_EXPIRED');
  let token = match[1];
  // Clients of this product family may store the token JSON-encoded ("\"eyJ...\"").
  if (token.startsWith('"') && token.endsWith('"')) token = token.slice(1, -1);
  try {
    const claims = app.jwt.verify<AccessClaims>(token);
    if (!Number.isInteger(claims.id) || !Number.isInteger(claims.companyId)) throw new Error('bad claims');
    return { id: claims.id, companyId: claims.companyId, profile: claims.profile, super: Boolean(claims.super) };
  } catch {
    throw new AppError('ERR_INVALID_TOKEN');
  }
}

/** Throws 403 ERR_FEATURE_NOT_IN_PLAN unless the company's plan has `feature`. */
export async function assertFeature(identity: Identity, companyId: number, feature: PlanFeature): Promise<void> {
  const plan = await identity.getCompanyPlan(companyId);
  if (!plan || !plan[feature]) throw new AppError('ERR_FEATURE_NOT_IN_PLAN', `This company's plan does not include ${feature}`, { extra: { feature } });
}

/** Signs a 15-minute (JWT_EXPIRES_IN) access token for `user`. */
export function signAccess(app: FastifyInstance, user: AuthUser & { name?: string }): string {
  return app.jwt.sign({ id: user.id, companyId: user.companyId, profile: user.profile, super: user.super, usarname: user.name });
}
