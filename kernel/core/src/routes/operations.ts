import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import { AppError, Type, type Bus } from '@atendo/sdk';
import type { KernelConfig } from '../config';
import type { KernelMetrics } from '../metrics';

/** The kernel's buses can be probed and report their queue depths (kernel/core/src/bus). */
export interface ProbedBus extends Bus {
  probe(timeoutMs: number): Promise<boolean>;
  queueDepths(timeoutMs: number): Promise<Record<string, number>>;
}

/** `promise`'s value, or `fallback` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise.catch(() => fallback), new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]).finally(() => clearTimeout(timer));
}

const Check = Type.Object({ ok: Type.Boolean(), ms: Type.Number({ description: 'time the check took, ms' }) });
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  database: Check,
  bus: Type.Intersect([Check, Type.Object({ kind: Type.String() })]),
  version: Type.String(),
});

/**
 * Operations endpoints (public unless METRICS_TOKEN is set for /metrics):
 * - `GET /ready`: readiness for traffic. 200 `{status: "ready", database: {ok, ms}, bus: {ok, kind, ms}, version}`
 *   when the database answers `select 1` and the bus answers its probe (RabbitMQ: a passive check of the
 *   exchange), each within READY_TIMEOUT_MS; else 503 with `status: "unavailable"`. While the node shuts
 *   down every request, this one included, is answered 503 (load balancers stop sending).
 * - `GET /metrics`: the Prometheus text exposition of the node's registry (see metrics.ts). With
 *   METRICS_TOKEN set, it requires `Authorization: Bearer <METRICS_TOKEN>` (401 ERR_SESSION_EXPIRED otherwise).
 */
export async function operationsRoutes(app: FastifyInstance, deps: { config: KernelConfig; db: Knex; bus: ProbedBus; metrics: KernelMetrics; version: string }): Promise<void> {
  const timeout = deps.config.READY_TIMEOUT_MS;
  app.get('/ready', {
    config: { role: 'public' },
    schema: { tags: ['kernel'], summary: 'Readiness: the database and the bus answer within READY_TIMEOUT_MS', response: { 200: Readiness, 503: Readiness } },
  }, async (_req, reply) => {
    const timed = async (check: () => Promise<boolean>) => {
      const t0 = performance.now();
      const ok = await within(check(), timeout, false);
      return { ok, ms: Math.round((performance.now() - t0) * 10) / 10 };
    };
    const [database, bus] = await Promise.all([
      timed(() => deps.db.raw('select 1').then(() => true)),
      timed(() => deps.bus.probe(timeout)),
    ]);
    const ok = database.ok && bus.ok;
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', database, bus: { ...bus, kind: deps.bus.kind }, version: deps.version });
  });

  app.get('/metrics', {
    config: { role: 'public' },
    schema: { tags: ['kernel'], summary: 'Prometheus metrics of this node (text exposition format)', hide: false },
  }, async (req, reply) => {
    const token = deps.config.METRICS_TOKEN;
    if (token && req.headers.authorization !== `Bearer ${token}`) throw new AppError('ERR_SESSION_EXPIRED', 'GET /metrics needs the METRICS_TOKEN bearer token');
    const { contentType, body } = await deps.metrics.exposition();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}
