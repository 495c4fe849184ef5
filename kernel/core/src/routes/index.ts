import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@atendo/sdk';
import { SessionStore } from '../auth/sessions';
import type { CoreDeps } from './deps';
import { healthRoutes } from './health';
import { authRoutes } from './auth';
import { passwordResetRoutes } from './password-reset';
import { companiesRoutes } from './companies';
import { plansRoutes } from './plans';
import { usersRoutes } from './users';
import { settingsRoutes } from './settings';

/** Registers the kernel's own routes: health, version, auth, and the identity admin routes. */
export async function registerCoreRoutes(root: FastifyInstance, base: Omit<CoreDeps, 'sessions'>): Promise<CoreDeps> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const deps: CoreDeps = { ...base, sessions: new SessionStore(base.db, base.config.REFRESH_TOKEN_DAYS, base.guard) };
  await healthRoutes(app, deps);
  await authRoutes(app, deps);
  await passwordResetRoutes(app, deps);
  await companiesRoutes(app, deps);
  await plansRoutes(app, deps);
  await usersRoutes(app, deps);
  await settingsRoutes(app, deps);
  return deps;
}
