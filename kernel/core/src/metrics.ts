import client, { Registry } from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { Bus, BusHandler, Counter, Gauge, Histogram, MetricOptions, Metrics, PublishOptions, Subscription, SubscribeOptions, TopicLike, TopicPattern } from '@atendo/sdk';
import { topicNames } from '@atendo/sdk';

/** Seconds: 5 ms to 10 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The node's Prometheus registry (prom-client), served at `GET /metrics`, with what the kernel measures:
 * - process and Node.js runtime (CPU, memory, event-loop lag, GC, handles): prom-client's defaults;
 * - `atendo_http_request_duration_seconds{method, route, status_code}`: every HTTP answer, by route pattern;
 * - `atendo_bus_published_total{topic}`, `atendo_bus_deliveries_total{queue, outcome}` and
 *   `atendo_bus_handler_duration_seconds{queue}`: the bus as this node uses it;
 * - `atendo_bus_queue_depth{queue}`: messages waiting in each named queue this node consumes (read from
 *   RabbitMQ, or the in-process queues, at each scrape);
 * - `atendo_inbound_messages_total{channel, kind}`: channel envelopes entering the platform (publishes on
 *   `channel.inbound.<channel>.<kind>`, the SDK's envelope topics); its rate is inbound messages per second;
 * - `atendo_sockets_connected`: socket.io clients connected to this node.
 * Other kernel code (e.g. the job scheduler's lag) and plugins (`ctx.metrics`) add theirs through the
 * `Metrics` methods below.
 */
export class KernelMetrics implements Metrics {
  readonly registry = new Registry();
  readonly httpDuration: client.Histogram<'method' | 'route' | 'status_code'>;
  private readonly published: client.Counter<'topic'>;
  private readonly inbound: client.Counter<'channel' | 'kind'>;
  private readonly deliveries: client.Counter<'queue' | 'outcome'>;
  private readonly handlerDuration: client.Histogram<'queue'>;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics !== false) client.collectDefaultMetrics({ register: this.registry });
    this.httpDuration = this.histogram({ name: 'atendo_http_request_duration_seconds', help: 'HTTP answers by method, route pattern and status code (seconds)', labelNames: ['method', 'route', 'status_code'] }) as client.Histogram<'method' | 'route' | 'status_code'>;
    this.published = this.counter({ name: 'atendo_bus_published_total', help: 'Messages this node published, by topic', labelNames: ['topic'] }) as client.Counter<'topic'>;
    this.inbound = this.counter({ name: 'atendo_inbound_messages_total', help: 'Channel envelopes received (published on channel.inbound.<channel>.<kind>)', labelNames: ['channel', 'kind'] }) as client.Counter<'channel' | 'kind'>;
    this.deliveries = this.counter({ name: 'atendo_bus_deliveries_total', help: 'Bus messages handled by this node, by queue and outcome (ok, failed)', labelNames: ['queue', 'outcome'] }) as client.Counter<'queue' | 'outcome'>;
    this.handlerDuration = this.histogram({ name: 'atendo_bus_handler_duration_seconds', help: 'Time this node spent handling one bus message, by queue (seconds)', labelNames: ['queue'] }) as client.Histogram<'queue'>;
  }

  counter<L extends string = string>(opts: MetricOptions<L>): Counter<L> {
    return this.existing(opts.name, 'counter') ?? new client.Counter({ name: opts.name, help: opts.help, labelNames: (opts.labelNames ?? []) as L[], registers: [this.registry] });
  }

  gauge<L extends string = string>(opts: MetricOptions<L> & { collect?: (gauge: Gauge<L>) => Promise<void> | void }): Gauge<L> {
    const found = this.existing<Gauge<L>>(opts.name, 'gauge');
    if (found) return found;
    const collect = opts.collect;
    return new client.Gauge<L>({
      name: opts.name,
      help: opts.help,
      labelNames: (opts.labelNames ?? []) as L[],
      registers: [this.registry],
      ...(collect ? { collect(this: client.Gauge<L>) { return collect(this as unknown as Gauge<L>); } } : {}),
    }) as unknown as Gauge<L>;
  }

  histogram<L extends string = string>(opts: MetricOptions<L> & { buckets?: number[] }): Histogram<L> {
    return this.existing(opts.name, 'histogram') ?? new client.Histogram({ name: opts.name, help: opts.help, labelNames: (opts.labelNames ?? []) as L[], buckets: opts.buckets ?? LATENCY_BUCKETS, registers: [this.registry] });
  }

  /** The metric already registered under `name` (same kind), or undefined; a different kind throws. */
  private existing<T>(name: string, kind: 'counter' | 'gauge' | 'histogram'): T | undefined {
    const m = this.registry.getSingleMetric(name) as (client.Metric & { constructor: { name: string } }) | undefined;
    if (!m) return undefined;
    const found = m instanceof client.Counter ? 'counter' : m instanceof client.Gauge ? 'gauge' : m instanceof client.Histogram ? 'histogram' : 'other';
    if (found !== kind) throw new Error(`metric ${name} is already registered as a ${found}`);
    return m as unknown as T;
  }

  /** Times every HTTP answer by its route pattern (unmatched URLs count as `unmatched`, never by raw URL). */
  instrumentHttp(app: FastifyInstance): void {
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      this.httpDuration.observe({ method: req.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    });
  }

  /**
   * A bus that counts what goes through `bus` (publishes by topic, inbound envelopes, deliveries and
   * handler time by queue) and otherwise behaves as `bus`.
   */
  instrumentBus(bus: Bus): Bus {
    const m = this;
    return {
      get kind() {
        return bus.kind;
      },
      async publish<T>(topic: TopicLike<T>, payload: T, opts?: PublishOptions): Promise<void> {
        await bus.publish(topic, payload, opts);
        const name = typeof topic === 'string' ? topic : topic.name;
        m.published.inc({ topic: name });
        const inbound = /^channel\.inbound\.([^.]+)\.([^.]+)$/.exec(name);
        if (inbound) m.inbound.inc({ channel: inbound[1], kind: inbound[2] });
      },
      subscribe<T>(topic: TopicPattern<T>, handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription> {
        const queue = opts.broadcast ? `broadcast:${topicNames(topic as TopicPattern<unknown>).join(',')}` : (opts.queue ?? '');
        return bus.subscribe(topic, async (message) => {
          const end = m.handlerDuration.startTimer({ queue });
          try {
            await handler(message);
            m.deliveries.inc({ queue, outcome: 'ok' });
          } catch (err) {
            m.deliveries.inc({ queue, outcome: 'failed' });
            throw err;
          } finally {
            end();
          }
        }, opts);
      },
      deadLetters: (queue) => bus.deadLetters(queue),
      isReady: () => bus.isReady(),
      close: () => bus.close(),
    };
  }

  /** The Prometheus text exposition of every metric. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
