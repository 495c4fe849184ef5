import type { Bus } from '@atendo/sdk';
import { InProcessBroker, InProcessBus, type BusLogger, type DeadLetter } from './in-process';
import { RabbitMqBus } from './rabbitmq';

export { InProcessBus, InProcessBroker, BUS_DEFAULTS, BUS_MAX_QUEUE_LENGTH, type BusLogger, type DeadLetter } from './in-process';
export { RabbitMqBus, DEAD_LETTER_EXCHANGE, type RabbitMqBusOptions } from './rabbitmq';

/**
 * Creates the kernel's message bus.
 * - `amqpUrl` set (e.g. `amqp://user:pass@host:5672`): a `RabbitMqBus`, already connected; rejects when
 *   the broker cannot be reached or refuses the login (no retry for the first connection, so a wrong
 *   URL fails at startup). Later connection losses are recovered automatically.
 * - otherwise: an `InProcessBus` (single process, in memory, nothing persisted).
 * `exchange` is the RabbitMQ topic exchange (default `atendo.events`; ignored by the in-process bus).
 * `logger` is an optional pino-like logger (a Fastify/pino logger fits). In-process only: `maxQueueLength`
 * bounds every queue (BUS_MAX_QUEUE_LENGTH). `deadLetterSink` keeps dead letters in the kernel's table (both buses).
 */
export async function createBus(
  opts: { amqpUrl?: string; exchange?: string; logger?: BusLogger; maxQueueLength?: number; deadLetterSink?: (letter: DeadLetter) => Promise<void> } = {},
): Promise<Bus> {
  if (opts.amqpUrl) {
    // Queues of a non-default exchange are namespaced by it, so installations sharing a broker stay apart.
    const exchange = opts.exchange ?? 'atendo.events';
    const queuePrefix = exchange === 'atendo.events' ? '' : `${exchange}.`;
    const bus = new RabbitMqBus({ url: opts.amqpUrl, exchange, queuePrefix, logger: opts.logger, deadLetterSink: opts.deadLetterSink });
    await bus.connect();
    return bus;
  }
  return new InProcessBus({ logger: opts.logger, broker: new InProcessBroker({ maxQueueLength: opts.maxQueueLength }), deadLetterSink: opts.deadLetterSink, privateBroker: true });
}
