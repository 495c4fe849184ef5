import type { FastifyInstance } from 'fastify';
import { Type } from '@atendo/sdk';
import type { CoreDeps } from './deps';

const STARTED = Date.now();

/**
 * `GET /health`: liveness. 200 `{status: "ok", version, uptime (seconds), database: {ok, ms}}` while the
 * process serves HTTP, whatever the state of the database or the bus (a restart would not fix those;
 * `GET /ready` answers 503 for them). It never waits on the database: `database` is the result of the
 * last `select 1` check (`ms` the time it took), run in the background by a call when the last one is older
 * than a second (one at a time); a check still hanging after READY_TIMEOUT_MS is reported as not ok, and
 * before the first check ends `database.ok` is false.
 * `GET /version`: `{version}`. Both public.
 */
export async function healthRoutes(app: FastifyInstance, deps: Pick<CoreDeps, 'db' | 'version' | 'config'>): Promise<void> {
  const timeout = deps.config.READY_TIMEOUT_MS;
  /** Age after which a call starts a new background check, ms. */
  const FRESH_MS = 1000;
  let running: { since: number } | undefined;
  let last: { ok: boolean; ms: number; at: number } | undefined;
  const database = (): { ok: boolean; ms: number } => {
    const now = performance.now();
    if (!running && (!last || now - last.at > FRESH_MS)) {
      const check = { since: now };
      running = check;
      void deps.db.raw('select 1').then(
        () => true,
        () => false,
      ).then((ok) => {
        const at = performance.now();
        last = { ok, ms: Math.round((at - check.since) * 10) / 10, at };
        running = undefined;
      });
    }
    if (running && now - running.since > timeout) return { ok: false, ms: Math.round((now - running.since) * 10) / 10 };
    return last ? { ok: last.ok, ms: last.ms } : { ok: false, ms: 0 };
  };

  app.get('/health', {
    config: { role: 'public' },
    schema: {
      tags: ['kernel'],
      summary: 'Liveness: the process answers, never waiting on the database (the last background check is reported; see /ready for traffic)',
      response: {
        200: Type.Object({
          status: Type.Literal('ok'),
          version: Type.String(),
          uptime: Type.Number({ description: 'seconds since start' }),
          database: Type.Object({ ok: Type.Boolean(), ms: Type.Number({ description: 'time the check took, ms' }) }),
        }),
      },
    },
  }, async () => ({ status: 'ok' as const, version: deps.version, uptime: Math.round((Date.now() - STARTED) / 1000), database: database() }));

  app.get('/version', {
    config: { role: 'public' },
    schema: { tags: ['kernel'], summary: 'Running version', response: { 200: Type.Object({ version: Type.String() }) } },
  }, async () => ({ version: deps.version }));
}
