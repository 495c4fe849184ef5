/**
 * Benchmark of the inbound pipeline: provider payload -> (channels plugin: webhook, signature, queue,
 * normalize) -> bus -> tickets plugin (contact, ticket, message, idempotent) -> socket event.
 *
 *   npx tsx bench/inbound.ts                       # in-process bus
 *   AMQP_URL=amqp://guest:guest@localhost:5672 npx tsx bench/inbound.ts
 *
 * The kernel runs in a child process (every plugin under plugins/ whose src/index.ts loads, logger off) on a
 * database of its own (created, then dropped), with a company, an admin and a `whatsappapi` connection.
 * The parent connects BENCH_SOCKETS admin sockets and drives the load:
 * - when plugins/channels is loaded: signed webhooks over HTTP (`POST /webhook`, `X-Hub-Signature-256` over
 *   WhatsApp Cloud API text payloads, one message per POST, distinct wamids, 1,000 contacts);
 * - otherwise: envelopes published on the kernel's bus (through the child's IPC channel).
 * Each stage keeps C messages in flight (closed loop: a slot sends its next message when the previous one's
 * `company-{id}-appMessage` create event reached socket 0) for BENCH_DURATION seconds. The text body
 * carries the send timestamp; latency = event arrival - send time. After each stage the database and the
 * events of every socket are checked: lost = sent but no row or no event on some socket; duplicated = rows
 * per wid > 1 or events per wid and socket > 1.
 *
 * Env: DATABASE_URL (a server to create the benchmark database on; default
 * postgres://postgres:postgres@127.0.0.1:5432/postgres), AMQP_URL (RabbitMQ; unset: in-process bus),
 * BENCH_CONCURRENCY ("50,200,500"), BENCH_RATES (open loop instead: webhooks offered per second, e.g. "200,400",
 * whatever the latency, as deploy/k6/inbound.ts's constant arrival rate), BENCH_DURATION (seconds per stage, 10), BENCH_WARMUP (seconds, 3),
 * BENCH_KERNEL_ARGS (extra node flags of the kernel process, e.g. V8 heap flags), HEAP_GROWING_PERCENT (the kernel's, default 50), BENCH_SOCKETS (admin sockets, 10), BENCH_CONTACTS (1000), DB_POOL_MAX (kernel pool, 10), BENCH_SETTLE (seconds of quiet after the load, RSS every 5 s),
 * BENCH_PLUGINS (plugin ids to load, comma-separated; default every plugin: e.g. the set of an older build, to
 * compare the same work), BENCH_MODE ("webhook" or "bus"; default webhook when plugins/channels loads), BENCH_TRACE (1: the kernel
 * prints its SQL statements by count, queue depths and bus handler times after each stage), BENCH_CPU_PROF (a
 * folder: the kernel writes a V8 CPU profile there), BENCH_HEAP_SNAPSHOT (a folder: the kernel writes a heap
 * snapshot there after each stage).
 *
 * BENCH_BOT ("idle" default, "off", "on") says what the automation plugin does: "off" does not load it,
 * "idle" loads it on a connection with no greeting and no queues (what a fresh install has: every message
 * runs the conversation-handler chain, the bot passes), "on" gives the connection a greeting and two queues,
 * so the bot answers each contact's first messages with the menu (up to maxUseBotQueues = 3 per ticket).
 * Bot replies go to a local Graph API server in the parent; the reply latency is the time from the inbound
 * message's `appMessage` event (it is stored a few ms before) to the reply reaching that server.
 *
 * Besides throughput and latency it prints the CPU time one message costs the kernel process, the
 * PostgreSQL backends of the benchmark database and RabbitMQ (from /proc), and the load driver itself, with
 * the load average: on a shared machine, CPU per message is the figure to compare between runs.
 */
import { BENCH_BUILD } from './compiled-build';
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import knexFactory from 'knex';

const ROOT = join(__dirname, '..');
const APP_SECRET = 'bench-app-secret-' + randomBytes(8).toString('hex');
const PHONE_NUMBER_ID = String(100000000000000 + Math.floor(Math.random() * 1e12));

// ---------------------------------------------------------------------------------------------------
// Child: the kernel

interface Ready {
  type: 'ready';
  base: string;
  companyId: number;
  connectionId: number;
  token: string;
  busKind: string;
  plugins: string[];
  skipped: string[];
}

async function kernelMain(): Promise<void> {
  const { buildKernel } = require('@atendo/core/src/app') as typeof import('@atendo/core/src/app');
  const { hashPassword } = require('@atendo/core/src/identity/service') as typeof import('@atendo/core/src/identity/service');
  const { signAccess } = require('@atendo/core/src/plugins/auth') as typeof import('@atendo/core/src/plugins/auth');
  const plugins: unknown[] = [];
  const loaded: string[] = [];
  const skipped: string[] = [];
  for (const dir of readdirSync(join(ROOT, 'plugins')).sort()) {
    // plugins/_template is the copy source of new plugins, never a plugin of the product.
    if (dir.startsWith('_')) continue;
    const entry = join(ROOT, 'plugins', dir, 'src', 'index.ts');
    if (!existsSync(entry)) continue;
    try {
      const mod = require(entry) as { default?: { id?: string; register?: unknown } };
      const only = process.env.BENCH_PLUGINS ? new Set(process.env.BENCH_PLUGINS.split(',').map((x) => x.trim())) : undefined;
      if (mod.default?.id === 'automation' && process.env.BENCH_BOT === 'off') {
        skipped.push(`${dir} (BENCH_BOT=off)`);
      } else if (only && mod.default?.id && !only.has(mod.default.id)) {
        skipped.push(`${dir} (not in BENCH_PLUGINS)`);
      } else if (mod.default?.id && typeof mod.default.register === 'function') {
        plugins.push(mod.default);
        loaded.push(mod.default.id);
      } else skipped.push(`${dir} (no plugin definition)`);
    } catch (err) {
      skipped.push(`${dir} (${(err as Error).message.split('\n')[0].slice(0, 80)})`);
    }
  }
  const env = process.env as Record<string, string>;
  const kernel = await buildKernel({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: env.BENCH_DB_URL,
      AMQP_URL: env.AMQP_URL,
      AMQP_EXCHANGE: env.BENCH_EXCHANGE,
      DATA_DIR: env.BENCH_DATA_DIR,
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      LOG_LEVEL: 'silent',
      DB_POOL_MAX: env.DB_POOL_MAX ?? '10',
      ...(env.HEAP_GROWING_PERCENT !== undefined ? { HEAP_GROWING_PERCENT: env.HEAP_GROWING_PERCENT } : {}),
      META_APP_SECRET: env.BENCH_APP_SECRET,
      CHANNELS_META_APP_SECRET: env.BENCH_APP_SECRET,
      CHANNELS_META_GRAPH_URL: env.BENCH_GRAPH_URL,
    },
    plugins: plugins as never,
    logger: false,
  });
  const db = kernel.db;
  const queries = new Map<string, number>();
  if (env.BENCH_TRACE) {
    db.on('query', (q: { sql: string }) => {
      const key = q.sql.replace(/\$\d+/g, '?').replace(/\((\?, )+\?\)/g, '(…)').replace(/(, \(…\))+/g, ', …').slice(0, 140);
      queries.set(key, (queries.get(key) ?? 0) + 1);
    });
  }
  const [plan] = await db('plans').insert({ name: `Bench ${Date.now()}`, users: 100, connections: 10, queues: 20, amount: 10, isPublic: false }).returning('*');
  const [company] = await db('companies').insert({ name: 'Bench Inbound', email: 'bench-inbound@example.com', planId: plan.id, status: true, dueDate: '2999-01-01', recurrence: 'MONTHLY' }).returning('*');
  const [admin] = await db('users')
    .insert({ companyId: company.id, name: 'Bench Admin', email: `bench-admin-${Date.now()}@example.com`, passwordHash: await hashPassword(randomBytes(12).toString('hex')), profile: 'admin', super: false })
    .returning('*');
  const [conn] = await db('whatsapps')
    .insert({
      companyId: company.id,
      name: 'Bench Cloud API',
      channel: 'whatsappapi',
      status: 'CONNECTED',
      isDefault: true,
      token: randomBytes(15).toString('hex').toUpperCase(),
      facebookPageUserId: env.BENCH_PHONE_NUMBER_ID,
      facebookUserToken: randomBytes(32).toString('hex'),
    })
    .returning('*');
  if (env.BENCH_BOT === 'on') {
    // The bot's menu: a greeting and two queues on the connection (maxUseBotQueues stays 3).
    await db('whatsapps').where({ id: conn.id }).update({ greetingMessage: 'Olá {{firstName}}! Escolha um departamento:' });
    for (const [i, name] of ['Comercial', 'Suporte'].entries()) {
      const [q] = await db('queues').insert({ companyId: company.id, name, color: `#00000${i}`, orderQueue: i + 1, greetingMessage: `Você está no ${name}.` }).returning('id');
      await db('whatsappQueues').insert({ whatsappId: conn.id, queueId: q.id, companyId: company.id });
    }
  }
  const base = await kernel.app.listen({ port: 0, host: '127.0.0.1' });
  const token = signAccess(kernel.app, { id: admin.id, companyId: company.id, profile: 'admin', super: false, name: admin.name });
  const ready: Ready = { type: 'ready', base, companyId: company.id, connectionId: conn.id, token, busKind: kernel.bus.kind, plugins: loaded, skipped };
  process.send!(ready);
  process.on('message', async (msg: { type: string; envelopes?: unknown[] }) => {
    if (msg.type === 'mem') {
      if (env.BENCH_HEAP_SNAPSHOT) {
        const { writeHeapSnapshot } = await import('node:v8');
        console.log(`heap snapshot: ${writeHeapSnapshot(join(env.BENCH_HEAP_SNAPSHOT, `kernel-${Date.now()}.heapsnapshot`))}`);
      }
      if (env.BENCH_TRACE) {
        const total = [...queries.values()].reduce((a, b) => a + b, 0);
        console.log([...queries].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([q, n]) => `${String(n).padStart(7)} ${q}`).join('\n') + `\n${String(total).padStart(7)} statements in all`);
        queries.clear();
        // Consumers that fall behind: messages still waiting in each queue at the end of the stage.
        const gauge = (await kernel.metrics.registry.getSingleMetric('atendo_bus_queue_depth')?.get())?.values ?? [];
        const waiting = gauge.filter((v) => v.value > 0).map((v) => `${v.labels.queue} ${v.value}`);
        console.log(`queue depths: ${waiting.join(', ') || 'all empty'}`);
        // Mean time a bus handler took per queue over the run so far (ms) and how many it handled.
        const hist = (await kernel.metrics.registry.getSingleMetric('atendo_bus_handler_duration_seconds')?.get())?.values ?? [];
        const sums = new Map<string, { sum: number; count: number }>();
        for (const v of hist) {
          const q = String(v.labels.queue);
          const e = sums.get(q) ?? { sum: 0, count: 0 };
          const name = (v as { metricName?: string }).metricName ?? '';
          if (name.endsWith('_sum')) e.sum = v.value;
          if (name.endsWith('_count')) e.count = v.value;
          sums.set(q, e);
        }
        console.log(`handler time: ${[...sums].filter(([, e]) => e.count).map(([q, e]) => `${q} ${e.count} × ${((1000 * e.sum) / e.count).toFixed(1)} ms`).join(', ')}`);
      }
      process.send!({ type: 'mem', mem: process.memoryUsage(), cpu: process.cpuUsage() });
    }
    else if (msg.type === 'publish') {
      for (const e of msg.envelopes ?? []) {
        const env2 = e as { channel: string; kind: string; idempotencyKey: string };
        void kernel.bus.publish(`channel.inbound.${env2.channel}.${env2.kind}`, e, { id: env2.idempotencyKey });
      }
    } else if (msg.type === 'stop') {
      void kernel.close().finally(() => process.exit(0));
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Parent: the load

const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '50,200,500').split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
/** Open-loop stages (messages offered per second); when set, they replace the closed-loop CONCURRENCY stages. */
const RATES = (process.env.BENCH_RATES ?? '').split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1000);
const SLOT_TIMEOUT_MS = 15_000;

interface StageResult {
  stage: string;
  'in flight': number;
  sent: number;
  'msg/s stored': number;
  'events/s (socket 0)': number;
  'p50 ms': number;
  'p99 ms': number;
  'max ms': number;
  lost: number;
  'dup rows': number;
  'dup events': number;
  'http errors': number;
  'kernel RSS MiB': number;
  'kernel CPU ms/msg': number;
  'PG CPU ms/msg': number;
  'driver CPU ms/msg': number;
  'RabbitMQ CPU ms/msg'?: number;
  'bot replies': number;
  'reply p50 ms': number;
  'reply p99 ms': number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

class Load {
  private seq = 0;
  /** wid -> resolve of the slot waiting for its event on socket 0. */
  private readonly waiting = new Map<string, () => void>();
  /** Per socket: wid -> create events received. */
  readonly counts: Map<string, number>[] = [];
  latencies: number[] = [];
  httpErrors = 0;
  /** Contact number -> when its last inbound message's event reached socket 0 (bot reply latency). */
  readonly lastInbound = new Map<string, number>();
  /** Bot reply latencies (ms) of the current stage: inbound event -> reply at the Graph server. */
  replyLatencies: number[] = [];
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(
    private readonly ready: Ready,
    readonly mode: 'webhook' | 'bus',
    private readonly child: ChildProcess,
    readonly sockets: Socket[],
  ) {
    this.url = new URL('/webhook', ready.base);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
    const event = `company-${ready.companyId}-appMessage`;
    sockets.forEach((s, i) => {
      const counts = new Map<string, number>();
      this.counts.push(counts);
      s.on(event, (p: { action?: string; message?: { wid?: string; body?: string } }) => {
        if (p.action !== 'create' || !p.message?.wid) return;
        const wid = p.message.wid;
        counts.set(wid, (counts.get(wid) ?? 0) + 1);
        if (i !== 0) return;
        const sentAt = Number(/^bench (\d+) /.exec(p.message.body ?? '')?.[1]);
        if (Number.isFinite(sentAt)) this.latencies.push(Date.now() - sentAt);
        const from = (p as { contact?: { number?: string } }).contact?.number;
        if (from) this.lastInbound.set(from, Date.now());
        const done = this.waiting.get(wid);
        if (done) {
          this.waiting.delete(wid);
          done();
        }
      });
    });
  }

  /** Sends one message of contact `n`; resolves when its event reached socket 0 (or after the slot timeout). */
  async one(n: number, sent: string[]): Promise<void> {
    const seq = this.seq++;
    const wid = `wamid.BENCH${process.pid}${seq.toString(36).toUpperCase()}${randomBytes(4).toString('hex').toUpperCase()}`;
    const from = String(5511900000000 + n);
    const now = Date.now();
    const text = `bench ${now} #${seq}`;
    sent.push(wid);
    const arrived = new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.waiting.delete(wid);
        resolve();
      }, SLOT_TIMEOUT_MS);
      this.waiting.set(wid, () => {
        clearTimeout(t);
        resolve();
      });
    });
    if (this.mode === 'webhook') {
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
                  contacts: [{ profile: { name: `Cliente ${n}` }, wa_id: from }],
                  messages: [{ from, id: wid, timestamp: String(Math.floor(now / 1000)), text: { body: text }, type: 'text' }],
                },
                field: 'messages',
              },
            ],
          },
        ],
      });
      const ok = await this.post(body);
      if (!ok) {
        this.httpErrors++;
        this.waiting.delete(wid);
        return;
      }
    } else {
      const key = `whatsappapi:${this.ready.connectionId}:message:${wid}`;
      this.child.send({
        type: 'publish',
        envelopes: [
          {
            schemaVersion: 1,
            id: key,
            idempotencyKey: key,
            companyId: this.ready.companyId,
            connectionId: this.ready.connectionId,
            channel: 'whatsappapi',
            direction: 'in',
            kind: 'message',
            occurredAt: new Date(now).toISOString(),
            thread: { externalId: from, isGroup: false },
            sender: { externalId: from, name: `Cliente ${n}`, phone: from },
            content: { type: 'text', text },
            externalId: wid,
            raw: { from, id: wid, type: 'text', text: { body: text } },
          },
        ],
      });
    }
    await arrived;
  }

  private post(body: string): Promise<boolean> {
    const sig = 'sha256=' + createHmac('sha256', APP_SECRET).update(body).digest('hex');
    return new Promise((resolve) => {
      const req = http.request(
        { host: this.url.hostname, port: this.url.port, path: '/webhook', method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-hub-signature-256': sig } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });
  }

  /** Runs `concurrency` closed-loop slots for `seconds`; returns the wids sent. */
  async stage(concurrency: number, seconds: number): Promise<{ sent: string[]; elapsed: number }> {
    const sent: string[] = [];
    const until = Date.now() + seconds * 1000;
    const started = Date.now();
    let next = Math.floor(Math.random() * CONTACTS);
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) await this.one(next++ % CONTACTS, sent);
      }),
    );
    return { sent, elapsed: (Date.now() - started) / 1000 };
  }

  /**
   * Open loop: offers `rate` messages a second for `seconds` whatever the latency (a new message every
   * 1/rate s, each awaited on its own), like k6's constant-arrival-rate; resolves once every one is settled.
   */
  async stageRate(rate: number, seconds: number): Promise<{ sent: string[]; elapsed: number }> {
    const sent: string[] = [];
    const started = Date.now();
    const until = started + seconds * 1000;
    const inFlight: Promise<void>[] = [];
    let issued = 0;
    let next = Math.floor(Math.random() * CONTACTS);
    while (Date.now() < until) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      for (; issued < due; issued++) inFlight.push(this.one(next++ % CONTACTS, sent));
      await new Promise((r) => setTimeout(r, 5));
    }
    const offeredFor = (Date.now() - started) / 1000;
    await Promise.all(inFlight);
    return { sent, elapsed: offeredFor };
  }

  pendingCount(): number {
    return this.waiting.size;
  }
}

/** Memory and CPU time (microseconds, user + system) of the kernel process. */
function memOf(child: ChildProcess): Promise<NodeJS.MemoryUsage & { cpuMicros: number }> {
  return new Promise((resolve) => {
    const on = (m: { type: string; mem?: NodeJS.MemoryUsage; cpu?: NodeJS.CpuUsage }) => {
      if (m.type !== 'mem') return;
      child.off('message', on);
      resolve({ ...m.mem!, cpuMicros: m.cpu!.user + m.cpu!.system });
    };
    child.on('message', on);
    child.send({ type: 'mem' });
  });
}

/** CPU time (ms) PostgreSQL backends connected to `dbName` have used so far (from /proc; Linux only). */
async function pgCpuMs(check: ReturnType<typeof knexFactory>, dbName: string): Promise<number> {
  const { rows } = await check.raw('SELECT pid FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()', [dbName]);
  const tick = 100; // USER_HZ
  let total = 0;
  for (const { pid } of rows as { pid: number }[]) {
    try {
      const stat = (await import('node:fs')).readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(f[11]) + Number(f[12])) * 1000) / tick;
    } catch {
      // a backend that ended meanwhile
    }
  }
  return total;
}

/** CPU time (ms) of the local RabbitMQ server (`beam.smp`) so far, or undefined when none runs here. */
function rabbitCpuMs(): number | undefined {
  const fs = require('node:fs') as typeof import('node:fs');
  let total: number | undefined;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(beam.smp)')) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total = (total ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      // a process that ended meanwhile
    }
  }
  return total;
}

async function main(): Promise<void> {
  const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const dbName = `atendo_bench_inbound_${process.pid}_${Date.now().toString(36)}`;
  const dbUrl = new URL(baseUrl);
  dbUrl.pathname = `/${dbName}`;
  const { ensureDatabase, dropDatabase } = require('@atendo/core/src/db') as typeof import('@atendo/core/src/db');
  await ensureDatabase(dbUrl.toString());
  const dataDir = mkdtempSync(join(os.tmpdir(), 'atendo-bench-inbound-'));
  // The Graph API the bot's replies go to (WhatsApp Cloud sends).
  let onReply: (to: string) => void = () => undefined;
  let replies = 0;
  const graph = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      let to = '';
      try {
        to = String(JSON.parse(raw || '{}').to ?? '');
      } catch {
        /* not JSON */
      }
      if (req.method === 'POST' && /\/messages$/.test(req.url ?? '')) {
        replies++;
        onReply(to);
      }
      res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.BOT${randomBytes(8).toString('hex')}` }] }));
    });
  });
  await new Promise<void>((r) => graph.listen(0, '127.0.0.1', () => r()));
  const graphUrl = `http://127.0.0.1:${(graph.address() as import('node:net').AddressInfo).port}`;
  const child = fork(__filename, ['--kernel'], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ...(process.env.BENCH_KERNEL_ARGS ?? '').split(' ').filter(Boolean),
    ],
    env: {
      ...process.env,
      BENCH_DB_URL: dbUrl.toString(),
      BENCH_DATA_DIR: dataDir,
      BENCH_APP_SECRET: APP_SECRET,
      BENCH_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      BENCH_EXCHANGE: `atendo.bench.${process.pid}`,
      BENCH_GRAPH_URL: graphUrl,
    },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const sockets: Socket[] = [];
  const check = knexFactory({ client: 'pg', connection: dbUrl.toString(), pool: { min: 0, max: 2 } });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m: Ready) => (m.type === 'ready' ? resolve(m) : reject(new Error('unexpected child message'))));
      child.once('exit', (code) => reject(new Error(`kernel process exited (${code})`)));
    });
    const mode: 'webhook' | 'bus' = (process.env.BENCH_MODE as 'webhook' | 'bus' | undefined) ?? (ready.plugins.includes('channels') ? 'webhook' : 'bus');
    for (let i = 0; i < SOCKETS; i++) {
      sockets.push(
        await new Promise<Socket>((resolve, reject) => {
          const s = ioClient(ready.base, { transports: ['websocket'], auth: { token: ready.token }, reconnection: false, forceNew: true });
          s.once('connect', () => resolve(s));
          s.once('connect_error', reject);
        }),
      );
    }
    const cpu = os.cpus();
    console.log(`machine: ${cpu[0]?.model ?? 'unknown'} x ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`);
    console.log(`kernel: plugins ${ready.plugins.join(', ')}${ready.skipped.length ? ` (not loaded: ${ready.skipped.join('; ')})` : ''}; ${BENCH_BUILD} build; bus ${ready.busKind}; DB pool ${process.env.DB_POOL_MAX ?? 10}; database ${dbName}`);
    console.log(
      `load: ${mode === 'webhook' ? 'signed WhatsApp Cloud API webhooks over HTTP (POST /webhook, one text message per POST)' : 'envelopes published on the kernel bus (no channels plugin)'}; ${CONTACTS} contacts; ${SOCKETS} admin sockets; ${DURATION} s per stage after a ${WARMUP} s warm-up`,
    );
    const idle = await memOf(child);
    console.log(`kernel RSS at idle: ${(idle.rss / 2 ** 20).toFixed(0)} MiB (heap used ${(idle.heapUsed / 2 ** 20).toFixed(0)} MiB)`);

    const load = new Load(ready, mode, child, sockets);
    onReply = (to) => {
      const at = load.lastInbound.get(to);
      if (at !== undefined) load.replyLatencies.push(Date.now() - at);
    };
    console.log(`bot: BENCH_BOT=${process.env.BENCH_BOT ?? 'idle'}${ready.plugins.includes('automation') ? '' : ' (automation not loaded)'}`);
    if (WARMUP > 0) {
      await load.stage(Math.min(50, CONCURRENCY[0] ?? 50), WARMUP);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const rows: StageResult[] = [];
    for (const c of RATES.length ? RATES : CONCURRENCY) {
      load.latencies = [];
      load.replyLatencies = [];
      load.httpErrors = 0;
      const replies0 = replies;
      const before = Number((await check('messages').count({ n: '*' }).first())!.n);
      const k0 = await memOf(child);
      const pg0 = await pgCpuMs(check, dbName);
      const d0 = process.cpuUsage();
      const r0 = ready.busKind === 'rabbitmq' ? rabbitCpuMs() : undefined;
      const { sent, elapsed } = RATES.length ? await load.stageRate(c, DURATION) : await load.stage(c, DURATION);
      const dCpu = process.cpuUsage(d0);
      const k1 = await memOf(child);
      const pg1 = await pgCpuMs(check, dbName);
      const r1 = r0 !== undefined ? rabbitCpuMs() : undefined;
      const storedAtEnd = Number((await check('messages').count({ n: '*' }).first())!.n) - before;
      const events0 = load.latencies.length;
      // Let stragglers land before checking.
      const drainUntil = Date.now() + 10_000;
      while (load.pendingCount() && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500));
      const mem = await memOf(child);
      const perWid = new Map<string, number>();
      for (let i = 0; i < sent.length; i += 5000) {
        const chunk = sent.slice(i, i + 5000);
        for (const r of (await check('messages').whereIn('wid', chunk).groupBy('wid').select('wid').count({ n: '*' })) as { wid: string; n: string }[]) perWid.set(r.wid, Number(r.n));
      }
      let lost = 0;
      let dupRows = 0;
      let dupEvents = 0;
      for (const w of sent) {
        const n = perWid.get(w) ?? 0;
        if (n > 1) dupRows++;
        const evs = load.counts.map((m) => m.get(w) ?? 0);
        if (n === 0 || evs.some((e) => e === 0)) lost++;
        if (evs.some((e) => e > 1)) dupEvents++;
      }
      const lat = [...load.latencies].sort((a, b) => a - b);
      const rlat = [...load.replyLatencies].sort((a, b) => a - b);
      const row: StageResult = {
        stage: RATES.length ? `${c}/s offered` : `${c} in flight`,
        'in flight': c,
        sent: sent.length,
        'msg/s stored': Math.round(storedAtEnd / elapsed),
        'events/s (socket 0)': Math.round(events0 / elapsed),
        'p50 ms': percentile(lat, 50),
        'p99 ms': percentile(lat, 99),
        'max ms': lat[lat.length - 1] ?? NaN,
        lost,
        'dup rows': dupRows,
        'dup events': dupEvents,
        'http errors': load.httpErrors,
        'kernel RSS MiB': Math.round(mem.rss / 2 ** 20),
        'kernel CPU ms/msg': Number(((k1.cpuMicros - k0.cpuMicros) / 1000 / Math.max(1, storedAtEnd)).toFixed(2)),
        'PG CPU ms/msg': Number(((pg1 - pg0) / Math.max(1, storedAtEnd)).toFixed(2)),
        'driver CPU ms/msg': Number(((dCpu.user + dCpu.system) / 1000 / Math.max(1, storedAtEnd)).toFixed(2)),
        ...(r0 !== undefined && r1 !== undefined ? { 'RabbitMQ CPU ms/msg': Number(((r1 - r0) / Math.max(1, storedAtEnd)).toFixed(2)) } : {}),
        'bot replies': replies - replies0,
        'reply p50 ms': percentile(rlat, 50),
        'reply p99 ms': percentile(rlat, 99),
      };
      rows.push(row);
      console.log(
        `${row.stage}: ${row['msg/s stored']} msg/s stored, p50 ${row['p50 ms']} ms, p99 ${row['p99 ms']} ms, lost ${lost}, dup rows ${dupRows}, dup events ${dupEvents}, http errors ${row['http errors']}, kernel RSS ${row['kernel RSS MiB']} MiB (heap used ${Math.round(mem.heapUsed / 2 ** 20)}, external ${Math.round(mem.external / 2 ** 20)} MiB); CPU per message: kernel ${row['kernel CPU ms/msg']} ms, PostgreSQL ${row['PG CPU ms/msg']} ms, load driver ${row['driver CPU ms/msg']} ms${row['RabbitMQ CPU ms/msg'] !== undefined ? `, RabbitMQ ${row['RabbitMQ CPU ms/msg']} ms` : ''}; load average ${os.loadavg()[0].toFixed(1)}; bot replies ${row['bot replies']} (p50 ${row['reply p50 ms']} ms, p99 ${row['reply p99 ms']} ms)`,
      );
      for (const m of load.counts) for (const w of sent) m.delete(w);
    }
    console.table(rows.map(({ stage: _s, ...r }) => r));
    const end = await memOf(child);
    console.log(`kernel RSS at idle: ${(idle.rss / 2 ** 20).toFixed(0)} MiB; at the end of the load: ${(end.rss / 2 ** 20).toFixed(0)} MiB (heap used ${(end.heapUsed / 2 ** 20).toFixed(0)} MiB)`);
    // BENCH_SETTLE: seconds of quiet after the load, then the RSS again (what the process gives back).
    const settle = Number(process.env.BENCH_SETTLE ?? 0);
    if (settle > 0) {
      for (let waited = 0; waited < settle; waited += 5) {
        await new Promise((r) => setTimeout(r, 5000));
        const m = await memOf(child);
        console.log(`kernel RSS ${waited + 5} s after the load: ${(m.rss / 2 ** 20).toFixed(0)} MiB (heap used ${(m.heapUsed / 2 ** 20).toFixed(0)}, heap total ${(m.heapTotal / 2 ** 20).toFixed(0)} MiB)`);
      }
    }
    const totals = await check('tickets').count({ n: '*' }).first();
    const contacts = await check('contacts').count({ n: '*' }).first();
    console.log(`database: ${totals?.n} tickets, ${contacts?.n} contacts, ${(await check('messages').count({ n: '*' }).first())?.n} messages`);
  } finally {
    for (const s of sockets) s.close();
    await check.destroy();
    if (child.connected) {
      child.send({ type: 'stop' });
      await new Promise((r) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          r(undefined);
        }, 15_000);
        child.once('exit', () => {
          clearTimeout(t);
          r(undefined);
        });
      });
    }
    await new Promise((r) => graph.close(r));
    await dropDatabase(dbUrl.toString()).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--kernel')) {
  kernelMain().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
