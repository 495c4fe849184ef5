import type { FastifyInstance } from 'fastify';
import { Type } from '@atendo/sdk';
import type { CoreDeps } from './deps';

/** `GET /health` (200 only when database and bus are ready, else 503) and `GET /version`. */
export async function healthRoutes(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  const Status = Type.Object({ status: Type.String(), database: Type.Boolean(), bus: Type.Boolean(), busKind: Type.String(), version: Type.String() });
  app.get('/health', {
    config: { role: 'public' },
    schema: { tags: ['kernel'], summary: 'Readiness: database and bus', response: { 200: Status, 503: Status } },
  }, async (_req, reply) => {
    let database = false;
    try {
      await deps.db.raw('select 1');
      database = true;
    } catch {
      database = false;
    }
    const bus = deps.bus.isReady();
    const ok = database && bus;
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', database, bus, busKind: deps.bus.kind, version: deps.version });
  });

  app.get('/version', {
    config: { role: 'public' },
    schema: { tags: ['kernel'], summary: 'Running version', response: { 200: Type.Object({ version: Type.String() }) } },
  }, async () => ({ version: deps.version }));
}
