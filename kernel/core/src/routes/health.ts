import type { FastifyInstance } from 'fastify';
import { Type } from '@atendo/sdk';
import type { CoreDeps } from './deps';

const STARTED = Date.now();

/**
 * `GET /health`: liveness. 200 `{status: "ok", version, uptime (seconds), database: {ok, ms}}` while the
 * process serves HTTP, whatever the state of the database or the bus (a restart would not fix those;
 * `GET /ready` answers 503 for them). `database` says whether PostgreSQL answered `select 1` within
 * READY_TIMEOUT_MS: the answer never waits longer than that, even with the database frozen, and one check
 * at a time runs (concurrent calls share it; a check still hanging is reported as not ok without adding
 * another).
 * `GET /version`: `{version}`. Both public.
 */
export async function healthRoutes(app: FastifyInstance, deps: Pick<CoreDeps, 'db' | 'version' | 'config'>): Promise<void> {
  const timeout = deps.config.READY_TIMEOUT_MS;
  let running: Promise<boolean> | undefined;
  const database = async (): Promise<{ ok: boolean; ms: number }> => {
    const t0 = performance.now();
    running ??= deps.db.raw('select 1').then(
      () => true,
      () => false,
    ).finally(() => {
      running = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([running, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeout)))]).finally(() => clearTimeout(timer));
    return { ok, ms: Math.round((performance.now() - t0) * 10) / 10 };
  };

  app.get('/health', {
    config: { role: 'public' },
    schema: {
      tags: ['kernel'],
      summary: 'Liveness: the process answers (with the database check of at most READY_TIMEOUT_MS; see /ready for traffic)',
      response: {
        200: Type.Object({
          status: Type.Literal('ok'),
          version: Type.String(),
          uptime: Type.Number({ description: 'seconds since start' }),
          database: Type.Object({ ok: Type.Boolean(), ms: Type.Number({ description: 'time the check took, ms' }) }),
        }),
      },
    },
  }, async () => ({ status: 'ok' as const, version: deps.version, uptime: Math.round((Date.now() - STARTED) / 1000), database: await database() }));

  app.get('/version', {
    config: { role: 'public' },
    schema: { tags: ['kernel'], summary: 'Running version', response: { 200: Type.Object({ version: Type.String() }) } },
  }, async () => ({ version: deps.version }));
}
