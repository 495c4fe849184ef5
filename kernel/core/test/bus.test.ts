import * as amqp from 'amqplib';
import { topicMatches, type BusMessage } from '@atendo/sdk';
import { createBus, InProcessBroker, InProcessBus, RabbitMqBus } from '../src/bus';
import { busContract, sleep, uid, waitFor } from './bus.contract';

jest.setTimeout(20_000);

const AMQP_URL = process.env.AMQP_URL;

describe('topicMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.b.c', 'a.b', false],
    ['a.b', 'a.b.c', false],
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.c', false],
    ['a.*.c', 'a.b.b.c', false],
    ['*', 'a', true],
    ['*', 'a.b', false],
    ['#', '', true],
    ['#', 'a', true],
    ['#', 'a.b.c', true],
    ['a.#', 'a', true],
    ['a.#', 'a.b.c', true],
    ['a.#', 'b.a', false],
    ['#.c', 'c', true],
    ['#.c', 'a.b.c', true],
    ['#.c', 'a.b.c.d', false],
    ['a.#.c', 'a.c', true],
    ['a.#.c', 'a.x.y.c', true],
    ['a.#.c', 'a.x.y.d', false],
    ['*.#', 'a', true],
    ['*.#', 'a.b', true],
    ['*.*', 'a', false],
    ['message.*', 'message.received', true],
    ['message.*', 'messages.received', false],
  ])('pattern %p vs topic %p -> %p', (pattern, topic, expected) => {
    expect(topicMatches(pattern, topic)).toBe(expected);
  });
});

// In-process: buses made by one suite share a broker, emulating several processes on one RabbitMQ.
const broker = new InProcessBroker();
busContract('in-process', async () => new InProcessBus({ broker }));

describe('createBus', () => {
  it('returns an in-process bus without amqpUrl', async () => {
    const bus = await createBus({});
    expect(bus.kind).toBe('in-process');
    expect(bus).toBeInstanceOf(InProcessBus);
    await bus.close();
  });

  it('rejects when the broker cannot be reached', async () => {
    await expect(createBus({ amqpUrl: 'amqp://guest:guest@127.0.0.1:1' })).rejects.toThrow();
  });
});

const deleteQueues = async (queues: string[]): Promise<void> => {
  const conn = await amqp.connect(AMQP_URL!);
  try {
    const ch = await conn.createChannel();
    for (const queue of queues) {
      await ch.deleteQueue(queue);
      await ch.deleteQueue(`${queue}.dlq`);
    }
    await ch.close();
  } finally {
    await conn.close();
  }
};

const makeRabbit = async (): Promise<RabbitMqBus> => {
  const bus = new RabbitMqBus({ url: AMQP_URL!, reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
  await bus.connect();
  return bus;
};

if (AMQP_URL) {
  busContract('rabbitmq', makeRabbit, { cleanupQueues: deleteQueues });
} else {
  // Visible in the report as skipped: set AMQP_URL=amqp://guest:guest@localhost:5672 to run them.
  describe.skip('Bus contract: rabbitmq (AMQP_URL not set)', () => {
    it('runs the contract against RabbitMQ', () => {});
  });
}

(AMQP_URL ? describe : describe.skip)('RabbitMqBus specifics', () => {
  const buses: RabbitMqBus[] = [];
  const queues: string[] = [];
  afterEach(async () => {
    await Promise.allSettled(buses.splice(0).map((b) => b.close()));
    await deleteQueues(queues.splice(0));
  });

  it('createBus returns a connected RabbitMqBus', async () => {
    const bus = await createBus({ amqpUrl: AMQP_URL });
    buses.push(bus as RabbitMqBus);
    expect(bus.kind).toBe('rabbitmq');
    expect(bus.isReady()).toBe(true);
  });

  it('reconnects after a connection loss and re-establishes subscriptions', async () => {
    const bus = await makeRabbit();
    const publisher = await makeRabbit();
    buses.push(bus, publisher);
    const topic = `reconnect${uid()}.x.happened`;
    const queue = `test.reconnect.${uid()}`;
    queues.push(queue);
    const named: BusMessage[] = [];
    const bcast: BusMessage[] = [];
    await bus.subscribe(topic, (m) => void named.push(m), { queue });
    await bus.subscribe(topic, (m) => void bcast.push(m), { broadcast: true });
    await publisher.publish(topic, { n: 1 });
    await waitFor(() => named.length === 1 && bcast.length === 1, 'the first message');

    bus.simulateConnectionLoss();
    await waitFor(() => !bus.isReady(), 'the bus to notice the loss', 2000);
    // Publishing on the disconnected bus waits for the reconnection instead of failing.
    await bus.publish(topic, { n: 2 });
    expect(bus.isReady()).toBe(true);
    // The broadcast queue is re-created on reconnect; give the re-subscription a moment.
    await waitFor(() => named.length === 2, 'the second message on the named queue');
    await publisher.publish(topic, { n: 3 });
    await waitFor(() => named.length === 3 && bcast.length >= 2, 'the third message');
    await sleep(250);
    expect(named.map((m) => (m.payload as { n: number }).n)).toEqual([1, 2, 3]);
    expect(bcast.map((m) => (m.payload as { n: number }).n)).toContain(3);
  });

  it('publish rejects after connectWaitMs while the broker is unreachable', async () => {
    const bus = new RabbitMqBus({ url: AMQP_URL!, connectWaitMs: 300, reconnect: { initialDelayMs: 5000, maxDelayMs: 5000 } });
    buses.push(bus);
    await bus.connect();
    bus.simulateConnectionLoss();
    await waitFor(() => !bus.isReady(), 'the bus to notice the loss', 2000);
    const started = Date.now();
    await expect(bus.publish(`down${uid()}.x`, {})).rejects.toThrow(/not connected/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});
