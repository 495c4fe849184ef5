import { randomUUID } from 'node:crypto';
import * as amqp from 'amqplib';
import {
  isOutage,
  PermanentError,
  type Bus,
  type BusHandler,
  type BusMessage,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
  type TopicLike,
  type TopicPattern,
  topicNames,
} from '@atendo/sdk';
import { encodePayload, outageDelay, outageLog, resolveSubscribeOptions, type BusLogger, type DeadLetter, type ResolvedSubscribeOptions } from './in-process';

/** Options of `RabbitMqBus`. */
export interface RabbitMqBusOptions {
  /** AMQP URL, e.g. `amqp://guest:guest@localhost:5672` (`?heartbeat=N` etc. are honoured). */
  url: string;
  /** Durable topic exchange events are published to (default `atendo.events`). */
  exchange?: string;
  /** Optional pino-like logger (connection loss, reconnects, retries, dead letters). */
  logger?: BusLogger;
  /** Exponential reconnect backoff: first delay and cap, in milliseconds (defaults 250 and 5000). */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  /** How long `publish` (and `subscribe`, `deadLetters`) wait for a connection while disconnected, in ms (default 10000). */
  connectWaitMs?: number;
  /**
   * Prefix of every named queue on the broker (default ''). Queue names are global to a vhost, so
   * installations (or test kernels) sharing a broker with different exchanges must not share queues.
   */
  queuePrefix?: string;
  /**
   * Keeps dead letters in the kernel's table (`bus_dead_letters`) instead of `<queue>.dlq`: the message is acked
   * once the sink stored it (nacked into `<queue>.dlq` as before when the sink fails), so operators see and
   * redrive every bus's dead letters in one place. Without it, dead letters go to `<queue>.dlq`.
   */
  deadLetterSink?: (letter: DeadLetter) => Promise<void>;
}

/** Dead-letter exchange (direct); each queue's `<queue>.dlq` is bound to it on routing key `<queue>`. */
export const DEAD_LETTER_EXCHANGE = 'atendo.dlx';

/** Headers the bus sets on every message; they are not part of `BusMessage.headers`. */
const H_TOPIC = 'x-topic';
const H_PUBLISHED_AT = 'x-published-at';
const H_ATTEMPT = 'x-attempt';
/** Tries that failed on an outage (`isOutage`): retried with backoff, not counted as attempts. */
const H_OUTAGES = 'x-outages';
const RESERVED_HEADERS = new Set([H_TOPIC, H_PUBLISHED_AT, H_ATTEMPT, H_OUTAGES, 'x-death']);
const BROKER_HEADER_PREFIXES = ['x-first-death-', 'x-last-death-'];

interface RabbitSub {
  opts: ResolvedSubscribeOptions;
  handler: BusHandler<unknown>;
  active: boolean;
  /** Connection the current/ongoing setup belongs to. */
  model: amqp.ChannelModel | null;
  establishing: Promise<void> | null;
  channel: amqp.Channel | null;
  consumerTag: string | null;
  running: Set<Promise<void>>;
  retries: Set<{ fire: () => void }>;
  resubscribeTimer: NodeJS.Timeout | null;
  stopping: Promise<void> | null;
}

/**
 * RabbitMQ implementation of the `Bus` contract (`kind: 'rabbitmq'`), on amqplib.
 *
 * Topology: events go to a durable topic exchange (`atendo.events` by default). A named subscription
 * declares a durable queue `<queue>` (with `x-dead-letter-exchange: atendo.dlx`,
 * `x-dead-letter-routing-key: <queue>`) bound to each pattern, and a durable `<queue>.dlq` bound to the
 * direct exchange `atendo.dlx` on `<queue>`. A broadcast subscription uses a server-named exclusive,
 * auto-delete queue (no dead-letter queue: exhausted messages are dropped and logged).
 *
 * Messages: JSON body (`contentType: application/json`), persistent, `messageId`, `timestamp` (seconds),
 * user headers plus the reserved headers `x-topic`, `x-published-at` (ISO-8601) and `x-attempt`.
 * `publish` resolves once the broker confirms (ConfirmChannel).
 *
 * Consumption: one channel per subscription with `prefetch`. A resolved handler acks. A failed handler
 * is retried by republishing a copy to the same queue (default exchange) with `x-attempt` + 1 after
 * `retryDelayMs`, then acking the original; when `attempt > maxRetries`, or on `PermanentError`, the
 * message is nacked without requeue so the broker dead-letters it. Delivery is at least once: after a
 * connection loss unacked messages are redelivered, so handlers should dedupe on `id`.
 *
 * Connection: call `connect()` first (rejects if the broker is unreachable). On an unexpected connection
 * loss the bus reconnects with exponential backoff and re-establishes every active subscription;
 * `publish` waits up to `connectWaitMs` for the connection, then rejects.
 *
 * `Subscription.unsubscribe()` cancels the consumer, fires pending retries at once and waits for the
 * subscription's in-flight handlers before closing its channel, so do not await it from inside that
 * subscription's own handler.
 */
export class RabbitMqBus implements Bus {
  readonly kind = 'rabbitmq' as const;
  private readonly url: string;
  private readonly exchange: string;
  private readonly queuePrefix: string;
  private readonly logger?: BusLogger;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly connectWaitMs: number;
  private readonly deadLetterSink?: (letter: DeadLetter) => Promise<void>;

  private model: amqp.ChannelModel | null = null;
  private pubChannel: amqp.ConfirmChannel | null = null;
  private readonly subs = new Set<RabbitSub>();
  private readonly deadChannels = new WeakSet<amqp.Channel>();
  private readonly readyWaiters = new Set<() => void>();
  private opening: Promise<void> | null = null;
  private reconnecting: Promise<void> | null = null;
  private reconnectSleep: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  private closed = false;
  /** Set once the first connection was fully set up; only then does a loss trigger the reconnect loop. */
  private connectedOnce = false;
  private closing: Promise<void> | null = null;

  constructor(opts: RabbitMqBusOptions) {
    if (!opts?.url) throw new TypeError('RabbitMqBus: url is required');
    this.url = opts.url;
    this.exchange = opts.exchange ?? 'atendo.events';
    this.queuePrefix = opts.queuePrefix ?? '';
    this.logger = opts.logger;
    this.initialDelayMs = Math.max(1, opts.reconnect?.initialDelayMs ?? 250);
    this.maxDelayMs = Math.max(this.initialDelayMs, opts.reconnect?.maxDelayMs ?? 5_000);
    this.connectWaitMs = opts.connectWaitMs ?? 10_000;
    this.deadLetterSink = opts.deadLetterSink;
  }

  /**
   * Puts `messages` (dead letters kept in the kernel's table) back into the named queue `queue` with attempt 1,
   * each confirmed by the broker. Returns how many were put back. Rejects when the broker does not confirm.
   */
  async redrive(queue: string, opts: { messages: BusMessage[] }): Promise<number> {
    if (this.closed) throw new Error('bus is closed');
    let n = 0;
    for (const m of opts.messages) {
      const props: amqp.Options.Publish = {
        persistent: true,
        contentType: 'application/json',
        messageId: m.id,
        timestamp: Math.floor(Date.parse(m.publishedAt) / 1000) || Math.floor(Date.now() / 1000),
        headers: { ...m.headers, [H_TOPIC]: m.topic, [H_PUBLISHED_AT]: m.publishedAt, [H_ATTEMPT]: 1 },
      };
      const content = Buffer.from(encodePayload(m.payload), 'utf8');
      await this.confirmedSend((ch, cb) => ch.sendToQueue(`${this.queuePrefix}${queue}`, content, props, cb));
      n++;
    }
    return n;
  }

  /**
   * Opens the connection, the publish (confirm) channel and declares the exchanges. Rejects when the
   * broker cannot be reached or refuses the credentials (no retry for the first connection). Idempotent.
   */
  async connect(): Promise<void> {
    if (this.closed) throw new Error('bus is closed');
    if (this.model && this.pubChannel) return;
    if (this.reconnecting) return this.reconnecting;
    this.opening ??= this.open().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  /** True while connected with an open publish channel and not closed. */
  isReady(): boolean {
    return !this.closed && this.model !== null && this.pubChannel !== null;
  }

  /**
   * Publishes a persistent JSON message to the topic exchange with routing key `topic` and resolves on the
   * broker's confirm. While disconnected it waits up to `connectWaitMs`; rejects after `close()`, on a
   * broker nack, on timeout, or when the payload is not JSON-serialisable.
   */
  async publish<T>(topicArg: TopicLike<T>, payload: T, opts: PublishOptions = {}): Promise<void> {
    if (this.closed) throw new Error('bus is closed');
    const topic = typeof topicArg === 'string' ? topicArg : topicArg?.name;
    if (typeof topic !== 'string' || topic.length === 0) throw new TypeError('bus.publish: topic is required');
    const content = Buffer.from(encodePayload(payload), 'utf8');
    const now = new Date();
    const props: amqp.Options.Publish = {
      persistent: true,
      contentType: 'application/json',
      messageId: opts.id ?? randomUUID(),
      timestamp: Math.floor(now.getTime() / 1000),
      headers: { ...(opts.headers ?? {}), [H_TOPIC]: topic, [H_PUBLISHED_AT]: now.toISOString(), [H_ATTEMPT]: 1 },
    };
    await this.confirmedSend((ch, cb) => ch.publish(this.exchange, topic, content, props, cb));
  }

  /**
   * Declares the queue topology (see the class doc), binds `pattern` and starts consuming on a dedicated
   * channel. Throws `TypeError` on invalid options; rejects after `close()`, when no connection comes
   * within `connectWaitMs`, or when the broker refuses the declaration (e.g. a queue with other arguments).
   * The subscription survives reconnects.
   */
  async subscribe<T>(topic: TopicPattern<T>, handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('bus is closed');
    const resolved = resolveSubscribeOptions(topicNames(topic), opts);
    const sub: RabbitSub = {
      opts: resolved,
      handler: handler as BusHandler<unknown>,
      active: true,
      model: null,
      establishing: null,
      channel: null,
      consumerTag: null,
      running: new Set(),
      retries: new Set(),
      resubscribeTimer: null,
      stopping: null,
    };
    const deadline = Date.now() + this.connectWaitMs;
    for (;;) {
      const model = await this.waitConnected(deadline);
      this.subs.add(sub);
      try {
        await this.establish(sub);
        break;
      } catch (err) {
        if (this.closed) {
          this.subs.delete(sub);
          throw new Error('bus is closed');
        }
        if (this.model === model) {
          // The connection is fine: the broker refused the topology.
          sub.active = false;
          this.subs.delete(sub);
          throw err;
        }
        // Connection lost meanwhile: the reconnect re-establishes the subscription; make sure it did.
        if (sub.channel) break;
        this.subs.delete(sub);
      }
    }
    return { unsubscribe: () => this.stopSub(sub) };
  }

  /**
   * Readiness probe (GET /ready): true when connected and the broker answers a passive check of the
   * exchange within `timeoutMs` (on a throw-away channel, so a failure never disturbs publishing).
   */
  async probe(timeoutMs: number): Promise<boolean> {
    if (!this.isReady() || !this.model) return false;
    const model = this.model;
    const check = (async () => {
      const ch = await model.createChannel();
      ch.on('error', () => {});
      try {
        await ch.checkExchange(this.exchange);
        return true;
      } finally {
        await ch.close().catch(() => {});
      }
    })();
    return withDeadline(check, timeoutMs).catch(() => false);
  }

  /**
   * Messages waiting in each named queue this node consumes (ready, not yet delivered), by queue name
   * without the exchange prefix: the broker's count from a passive declare, within `timeoutMs` in total.
   * Broadcast queues are left out. Empty when not connected.
   */
  async queueDepths(timeoutMs: number): Promise<Record<string, number>> {
    if (!this.isReady() || !this.model) return {};
    const names = [...new Set([...this.subs].filter((s) => s.active && !s.opts.broadcast && s.opts.queue).map((s) => s.opts.queue!))];
    if (names.length === 0) return {};
    const model = this.model;
    const work = (async () => {
      const ch = await model.createChannel();
      ch.on('error', () => {});
      const out: Record<string, number> = {};
      try {
        for (const name of names) out[name] = (await ch.checkQueue(this.queuePrefix + name)).messageCount;
      } finally {
        await ch.close().catch(() => {});
      }
      return out;
    })();
    return withDeadline(work, timeoutMs).catch(() => ({}));
  }

  /**
   * Messages currently in `<queue>.dlq`, oldest first. Reads them with `basic.get` on a throw-away
   * channel and requeues them, so they stay in the queue (a consumer of the dlq could miss them meanwhile).
   * A missing dlq yields `[]`. Rejects when closed or not connected within `connectWaitMs`.
   */
  async deadLetters(queue: string): Promise<BusMessage[]> {
    if (this.closed) throw new Error('bus is closed');
    const model = await this.waitConnected(Date.now() + this.connectWaitMs);
    const ch = await model.createChannel();
    ch.on('error', () => {}); // 404 when the dlq does not exist closes this channel
    const dlq = `${this.queuePrefix}${queue}.dlq`;
    const out: BusMessage[] = [];
    try {
      try {
        await ch.checkQueue(dlq);
      } catch {
        return [];
      }
      for (let i = 0; i < 100_000; i++) {
        const m = await ch.get(dlq, { noAck: false });
        if (!m) break;
        out.push(decodeMessage(m, true));
      }
      if (out.length > 0) ch.nackAll(true);
      return out;
    } finally {
      await ch.close().catch(() => {});
    }
  }

  /**
   * Cancels every consumer, fires pending retries at once, waits for in-flight handlers (and their
   * acks), waits for outstanding publish confirms, then closes the channels and the connection.
   * Publishing afterwards rejects. Idempotent. Do not await it from inside a handler of this bus.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    this.closing = (async () => {
      if (this.reconnectSleep) {
        clearTimeout(this.reconnectSleep.timer);
        this.reconnectSleep.resolve();
      }
      this.notifyReady();
      await Promise.allSettled([...this.subs].map((s) => this.stopSub(s)));
      if (this.reconnecting) await this.reconnecting.catch(() => {});
      const pub = this.pubChannel;
      if (pub) await pub.waitForConfirms().catch(() => {});
      const model = this.model;
      this.model = null;
      this.pubChannel = null;
      if (model) await model.close().catch(() => {});
    })();
    return this.closing;
  }

  /**
   * Test hook: destroys the underlying socket as if the network failed, which triggers the reconnect
   * logic. Not for production use.
   * @internal
   */
  simulateConnectionLoss(): void {
    const conn = (this.model as unknown as { connection?: { stream?: { destroy(err?: Error): void } } } | null)
      ?.connection;
    conn?.stream?.destroy(new Error('simulated connection loss'));
  }

  // ---------------------------------------------------------------- connection

  private async open(): Promise<void> {
    const model = await amqp.connect(this.url, {
      noDelay: true,
      clientProperties: { connection_name: `atendo-bus-${process.pid}` },
    });
    if (this.closed) {
      await model.close().catch(() => {});
      throw new Error('bus is closed');
    }
    model.on('error', (err: Error) => this.logger?.warn({ err }, 'bus: RabbitMQ connection error'));
    model.on('close', (err?: Error) => this.onConnectionLost(model, err));
    model.on('blocked', (reason: string) => this.logger?.warn({ reason }, 'bus: RabbitMQ connection blocked'));
    model.on('unblocked', () => this.logger?.info({}, 'bus: RabbitMQ connection unblocked'));
    this.model = model;
    try {
      const ch = await this.openPublishChannel(model);
      if (this.model !== model) throw new Error('connection lost during setup');
      this.pubChannel = ch;
      this.connectedOnce = true;
    } catch (err) {
      if (this.model === model) this.model = null;
      await model.close().catch(() => {});
      throw err;
    }
    this.notifyReady();
    for (const sub of this.subs) {
      if (!sub.active) continue;
      try {
        await this.establish(sub);
      } catch (err) {
        if (this.model !== model) return; // lost again; the reconnect loop continues
        this.logger?.error({ err, queue: sub.opts.queue }, 'bus: re-subscribing failed, will retry');
        this.scheduleResubscribe(sub);
      }
    }
  }

  private async openPublishChannel(model: amqp.ChannelModel): Promise<amqp.ConfirmChannel> {
    const ch = await model.createConfirmChannel();
    ch.on('error', (err: Error) => this.logger?.warn({ err }, 'bus: publish channel error'));
    await ch.assertExchange(this.exchange, 'topic', { durable: true });
    await ch.assertExchange(DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
    ch.on('close', () => {
      this.deadChannels.add(ch);
      if (this.pubChannel !== ch) return;
      this.pubChannel = null;
      // Let a connection-level close run first; then replace a channel that closed on its own.
      setImmediate(() => {
        if (this.closed || this.model !== model || this.pubChannel) return;
        this.openPublishChannel(model)
          .then((fresh) => {
            if (this.closed || this.model !== model) return fresh.close().catch(() => {});
            this.pubChannel = fresh;
            this.notifyReady();
          })
          .catch((err) => {
            this.logger?.error({ err }, 'bus: reopening the publish channel failed, reconnecting');
            model.close().catch(() => {});
          });
      });
    });
    return ch;
  }

  private onConnectionLost(model: amqp.ChannelModel, err?: Error): void {
    if (this.model !== model) return;
    this.model = null;
    this.pubChannel = null;
    for (const sub of this.subs) {
      if (sub.channel) this.deadChannels.add(sub.channel);
      sub.channel = null;
      sub.consumerTag = null;
    }
    if (this.closed || !this.connectedOnce) return;
    this.logger?.warn({ err }, 'bus: RabbitMQ connection lost, reconnecting');
    this.startReconnect();
  }

  private startReconnect(): void {
    if (this.reconnecting || this.closed) return;
    this.reconnecting = (async () => {
      let delay = this.initialDelayMs;
      let attempt = 0;
      while (!this.closed && !this.model) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.reconnectSleep = { timer, resolve };
        });
        this.reconnectSleep = null;
        if (this.closed) break;
        attempt++;
        try {
          await this.open();
          this.logger?.info({ attempt }, 'bus: reconnected to RabbitMQ');
        } catch (err) {
          this.logger?.warn({ err, attempt, nextDelayMs: Math.min(delay * 2, this.maxDelayMs) }, 'bus: reconnect failed');
          delay = Math.min(delay * 2, this.maxDelayMs);
        }
      }
    })().finally(() => {
      this.reconnecting = null;
    });
  }

  private notifyReady(): void {
    for (const w of [...this.readyWaiters]) w();
  }

  /** Waits (until `deadline`, epoch ms) for an open connection; rejects when closed or on timeout. */
  private async waitConnected(deadline: number): Promise<amqp.ChannelModel> {
    for (;;) {
      if (this.closed) throw new Error('bus is closed');
      if (this.model && this.pubChannel) return this.model;
      await this.waitReady(deadline);
    }
  }

  private async waitReady(deadline: number): Promise<void> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`bus: not connected to RabbitMQ within ${this.connectWaitMs} ms`);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.readyWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, remaining);
      this.readyWaiters.add(done);
    });
  }

  /**
   * Sends through the confirm channel and resolves on the broker's ack. If the channel dies before the
   * confirm, retries on the next channel until `connectWaitMs` elapsed (at-least-once: a message may be
   * duplicated). A broker nack rejects at once.
   */
  private async confirmedSend(send: (ch: amqp.ConfirmChannel, cb: (err: unknown) => void) => void): Promise<void> {
    const deadline = Date.now() + this.connectWaitMs;
    for (;;) {
      await this.waitConnected(deadline).catch((err) => {
        // During close() in-flight retries may still use the open publish channel.
        if (!(this.closed && this.pubChannel)) throw err;
      });
      const ch = this.pubChannel!;
      try {
        await new Promise<void>((resolve, reject) => {
          try {
            send(ch, (err) => (err ? reject(err) : resolve()));
          } catch (err) {
            reject(err);
          }
        });
        return;
      } catch (err) {
        const nacked = err instanceof Error && err.message === 'message nacked';
        if (nacked || this.closed || Date.now() >= deadline) throw err;
        if (this.pubChannel === ch) await sleep(50); // the close event has not arrived yet
      }
    }
  }

  // ---------------------------------------------------------------- consumers

  private establish(sub: RabbitSub): Promise<void> {
    const model = this.model;
    if (!model) return Promise.reject(new Error('bus: not connected'));
    if (sub.model === model && sub.establishing) return sub.establishing;
    sub.model = model;
    const p = this.doEstablish(sub, model).catch((err: unknown) => {
      if (sub.establishing === p) {
        sub.model = null;
        sub.establishing = null;
      }
      throw err;
    });
    sub.establishing = p;
    return p;
  }

  private async doEstablish(sub: RabbitSub, model: amqp.ChannelModel): Promise<void> {
    const ch = await model.createChannel();
    ch.on('error', (err: Error) => this.logger?.warn({ err, queue: sub.opts.queue }, 'bus: consumer channel error'));
    ch.on('close', () => this.onSubChannelClosed(sub, model, ch));
    try {
      await ch.prefetch(sub.opts.prefetch);
      let queue: string;
      if (sub.opts.broadcast) {
        queue = (await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false })).queue;
      } else {
        queue = this.queuePrefix + sub.opts.queue!;
        const dlq = `${queue}.dlq`;
        await ch.assertQueue(dlq, { durable: true });
        await ch.bindQueue(dlq, DEAD_LETTER_EXCHANGE, queue);
        await ch.assertQueue(queue, {
          durable: true,
          deadLetterExchange: DEAD_LETTER_EXCHANGE,
          deadLetterRoutingKey: queue,
        });
      }
      for (const p of sub.opts.patterns) await ch.bindQueue(queue, this.exchange, p);
      if (!sub.active || this.closed || this.model !== model) {
        await ch.close().catch(() => {});
        return;
      }
      sub.channel = ch;
      const { consumerTag } = await ch.consume(queue, (msg) => this.onDelivery(sub, ch, queue, msg), { noAck: false });
      sub.consumerTag = consumerTag;
    } catch (err) {
      if (sub.channel === ch) sub.channel = null;
      await ch.close().catch(() => {});
      throw err;
    }
  }

  private onSubChannelClosed(sub: RabbitSub, model: amqp.ChannelModel, ch: amqp.Channel): void {
    this.deadChannels.add(ch);
    if (sub.channel !== ch) return;
    sub.channel = null;
    sub.consumerTag = null;
    sub.model = null;
    sub.establishing = null;
    // A connection-level close is handled by the reconnect; a lone channel close is re-established here.
    setImmediate(() => {
      if (sub.active && !this.closed && this.model === model) this.scheduleResubscribe(sub);
    });
  }

  private scheduleResubscribe(sub: RabbitSub): void {
    if (sub.resubscribeTimer || !sub.active || this.closed) return;
    sub.resubscribeTimer = setTimeout(() => {
      sub.resubscribeTimer = null;
      if (!sub.active || this.closed || !this.model || sub.channel) return;
      this.establish(sub).catch((err) => {
        this.logger?.error({ err, queue: sub.opts.queue }, 'bus: re-subscribing failed, will retry');
        this.scheduleResubscribe(sub);
      });
    }, this.initialDelayMs * 4);
  }

  private onDelivery(sub: RabbitSub, ch: amqp.Channel, queue: string, msg: amqp.ConsumeMessage | null): void {
    if (msg === null) {
      // Cancelled by the broker (queue deleted, node failover): start over.
      this.logger?.warn({ queue }, 'bus: consumer cancelled by the broker');
      if (sub.channel === ch) {
        sub.channel = null;
        sub.consumerTag = null;
        sub.model = null;
        sub.establishing = null;
        ch.close().catch(() => {});
        this.scheduleResubscribe(sub);
      }
      return;
    }
    const run: Promise<void> = this.process(sub, ch, queue, msg).finally(() => sub.running.delete(run));
    sub.running.add(run);
  }

  private async process(sub: RabbitSub, ch: amqp.Channel, queue: string, msg: amqp.ConsumeMessage): Promise<void> {
    let message: BusMessage;
    try {
      message = decodeMessage(msg, false);
    } catch (err) {
      this.logger?.error({ err, queue }, 'bus: undecodable message dead-lettered');
      this.settle(ch, msg, 'dead');
      return;
    }
    const outages = Number((msg.properties.headers ?? {})[H_OUTAGES]) || 0;
    let outage = false;
    let delay = sub.opts.retryDelayMs;
    try {
      await sub.handler(message);
      this.settle(ch, msg, 'ack');
      return;
    } catch (err) {
      const log = { err, queue: sub.opts.queue, topic: message.topic, id: message.id, attempt: message.attempt };
      outage = !(err instanceof PermanentError) && isOutage(err);
      if (!outage && (err instanceof PermanentError || message.attempt > sub.opts.maxRetries)) {
        this.logger?.error(log, sub.opts.broadcast ? 'bus: broadcast message failed, dropped' : 'bus: message dead-lettered');
        if (this.deadLetterSink && !sub.opts.broadcast && sub.opts.queue) {
          try {
            await this.deadLetterSink({ queue: sub.opts.queue, message, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
            this.settle(ch, msg, 'ack');
            return;
          } catch (sinkErr) {
            this.logger?.error({ err: sinkErr, queue }, 'bus: storing a dead letter failed; it goes to the dead-letter queue');
          }
        }
        this.settle(ch, msg, 'dead');
        return;
      }
      if (outage) {
        delay = outageDelay(sub.opts.retryDelayMs, outages + 1);
        outageLog(this.logger, log, delay);
      } else this.logger?.warn(log, 'bus: handler failed, will retry');
    }
    await new Promise<void>((resolve) => {
      const retry = {
        fire: () => {
          clearTimeout(timer);
          sub.retries.delete(retry);
          resolve();
        },
      };
      const timer = setTimeout(retry.fire, delay);
      sub.retries.add(retry);
    });
    // If the consumer channel died meanwhile the broker already requeued the original.
    if (this.deadChannels.has(ch)) return;
    const headers = outage ? { ...(msg.properties.headers ?? {}), [H_OUTAGES]: outages + 1 } : { ...(msg.properties.headers ?? {}), [H_ATTEMPT]: message.attempt + 1 };
    const props: amqp.Options.Publish = {
      persistent: true,
      contentType: msg.properties.contentType ?? 'application/json',
      messageId: msg.properties.messageId,
      timestamp: msg.properties.timestamp,
      headers,
    };
    try {
      await this.confirmedSend((pub, cb) => pub.sendToQueue(queue, msg.content, props, cb));
      this.settle(ch, msg, 'ack');
    } catch (err) {
      this.logger?.warn({ err, queue }, 'bus: retry republish failed, requeueing');
      this.settle(ch, msg, 'requeue');
    }
  }

  /** Acks / dead-letters / requeues; a closed channel means the broker requeues by itself. */
  private settle(ch: amqp.Channel, msg: amqp.Message, how: 'ack' | 'dead' | 'requeue'): void {
    if (this.deadChannels.has(ch)) return;
    try {
      if (how === 'ack') ch.ack(msg);
      else ch.nack(msg, false, how === 'requeue');
    } catch (err) {
      this.logger?.warn({ err }, 'bus: could not settle a message (channel closed)');
    }
  }

  private stopSub(sub: RabbitSub): Promise<void> {
    sub.stopping ??= (async () => {
      sub.active = false;
      if (sub.resubscribeTimer) clearTimeout(sub.resubscribeTimer);
      sub.resubscribeTimer = null;
      if (sub.establishing) await sub.establishing.catch(() => {});
      const ch = sub.channel;
      if (ch && sub.consumerTag && !this.deadChannels.has(ch)) {
        await ch.cancel(sub.consumerTag).catch((err) => this.logger?.warn({ err }, 'bus: cancelling a consumer failed'));
      }
      for (const r of [...sub.retries]) r.fire();
      while (sub.running.size > 0) await Promise.allSettled([...sub.running]);
      sub.channel = null;
      sub.consumerTag = null;
      if (ch) await ch.close().catch(() => {});
      this.subs.delete(sub);
    })();
    return sub.stopping;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Converts an AMQP message to a `BusMessage`; `lenient` keeps an unparsable body as a string instead of throwing. */
function decodeMessage(msg: amqp.Message, lenient: boolean): BusMessage {
  const raw = (msg.properties.headers ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (RESERVED_HEADERS.has(k) || BROKER_HEADER_PREFIXES.some((p) => k.startsWith(p))) continue;
    if (v === undefined || v === null) continue;
    headers[k] = typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
  const text = msg.content.toString('utf8');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (err) {
    if (!lenient) throw err;
    payload = text;
  }
  const ts = msg.properties.timestamp as number | undefined;
  const attempt = Number(raw[H_ATTEMPT]);
  return {
    id: msg.properties.messageId ? String(msg.properties.messageId) : randomUUID(),
    topic: typeof raw[H_TOPIC] === 'string' ? (raw[H_TOPIC] as string) : msg.fields.routingKey,
    payload,
    headers,
    publishedAt:
      typeof raw[H_PUBLISHED_AT] === 'string'
        ? (raw[H_PUBLISHED_AT] as string)
        : new Date(typeof ts === 'number' ? ts * 1000 : Date.now()).toISOString(),
    attempt: Number.isInteger(attempt) && attempt >= 1 ? attempt : 1,
  };
}

/** `promise`, or a rejection after `ms`. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
