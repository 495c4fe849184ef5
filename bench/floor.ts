/**
 * The floor benchmark (`npm run bench:floor`): Atendo next to a minimal server doing the same database
 * work, on the same database, under the same load, so the table says how far Atendo is from what Node +
 * Fastify 5 + pg can do at all on this machine.
 *
 * The floor is a Fastify 5 server with a pg pool of the same size (DB_POOL_MAX, 10) and a JWT check
 * (fast-jwt, the library @fastify/jwt uses, same secret):
 * - `GET /tickets` (uncached): runs the SQL statements Atendo ran for the same request (captured from
 *   Atendo's own knex `query` events on a warm, uncached request: the page, the counts, the contacts,
 *   tags...), all at once on the pool, then answers the same JSON (the captured answer, serialized);
 * - `GET /tickets` (cached): the JWT check, then the same JSON bytes from memory (what Atendo's answer
 *   cache does on a hit).
 *
 * - the bare floor (inbound rows, issue 36): `node:http` and `pg` only, the HMAC check and one
 *   `INSERT … ON CONFLICT DO NOTHING` per signed webhook; its ratio ("bare ratio") is the stricter target.
 *
 * Atendo runs in two child processes on the seeded company of bench/seed-tickets.ts (100,000 tickets; the
 * admin, page 1 of the pending tab with showAll): one as configured by default (answer cache on), one with
 * TICKETS_LIST_CACHE_MS=0 (every request computes its answer: the uncached row). Every server is a child
 * process, so autocannon's CPU is not counted. Per row: requests/s, p99, the API process's CPU per request
 * and the PostgreSQL backends' CPU per request (from /proc: Linux, local database), Atendo and floor, and
 * the ratio; then the idle RSS of each server. The load average at each case is printed: on a shared
 * machine compare CPU per request, not requests/s.
 *
 * Env: BENCH_CONNECTIONS ("16,64"), BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_SCALE (seed size,
 * 1), BENCH_SHORT=1 (CI: 2 % seed, 16 connections, 1 s per case, no warm-up: checks the benchmark runs and
 * prints its table; not a measurement), DATABASE_URL (name containing "bench"; unset: the embedded server
 * of seed-tickets.ts), BENCH_CPU_PROF (a folder: the webhook kernel writes a V8 CPU profile there), BENCH_BOT
 * (the webhook kernel's bot, as in bench/inbound.ts: idle by default).
 */
import { BENCH_BUILD } from './compiled-build';
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { createVerifier } from 'fast-jwt';
import pg from 'pg';
import type { Kernel } from '@atendo/core/src/app';
import { signAccess } from '@atendo/core/src/plugins/auth';

const SHORT = process.env.BENCH_SHORT === '1';
if (SHORT) process.env.BENCH_SCALE ??= '0.02';
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? (SHORT ? '16' : '16,64')).split(',').map(Number).filter((n) => n > 0);
const DURATION = Number(process.env.BENCH_DURATION ?? (SHORT ? 1 : 10));
const WARMUP = Number(process.env.BENCH_WARMUP ?? (SHORT ? 0 : 2));
/** BENCH_CASES: which rows to measure, "lists", "inbound" or both (default "lists,inbound"). */
const CASES = new Set((process.env.BENCH_CASES ?? 'lists,inbound').split(',').map((c) => c.trim()));
const LIST_QUERY = '/tickets?status=pending&showAll=true&pageNumber=1';

/** A statement as knex sent it to pg. */
interface Statement {
  sql: string;
  bindings: unknown[];
}

/** What an Atendo child tells the parent. */
interface AtendoReady {
  role: 'atendo';
  base: string;
  url: string;
  dbName: string;
  token: string;
  jwtSecret: string;
  /** The statements of one warm, uncached list request, and its answer. */
  statements: Statement[];
  answer: unknown;
}

/** Child: Atendo on the seeded database (TICKETS_LIST_CACHE_MS from the environment). */
async function atendo(): Promise<void> {
  // Imported here: the floor child must not pay for loading the kernel.
  const { BENCH_ADMIN_EMAIL, benchDatabase, benchKernel, seedTickets } = await import('./seed-tickets');
  const database = await benchDatabase();
  const jwtSecret = process.env.JWT_SECRET!;
  const kernel: Kernel = await benchKernel(database.url);
  const { companyId } = await seedTickets(kernel.db, () => undefined);
  const u = await kernel.db('users').where({ companyId, email: BENCH_ADMIN_EMAIL }).first('id', 'profile', 'super', 'name');
  const token = signAccess(kernel.app, { id: u.id, companyId, profile: u.profile, super: u.super, name: u.name });
  const headers = { authorization: `Bearer ${token}` };
  let statements: Statement[] = [];
  let answer: unknown;
  if (process.env.BENCH_CAPTURE === '1') {
    // A first request warms the viewer and related-record caches (as in steady use); the second is captured.
    await kernel.app.inject({ method: 'GET', url: LIST_QUERY, headers });
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => statements.push({ sql: q.sql, bindings: q.bindings ?? [] });
    kernel.db.on('query', onQuery);
    const r = await kernel.app.inject({ method: 'GET', url: LIST_QUERY, headers });
    kernel.db.off('query', onQuery);
    if (r.statusCode !== 200) throw new Error(`GET ${LIST_QUERY}: HTTP ${r.statusCode} ${r.body.slice(0, 200)}`);
    answer = r.json();
    statements = statements.filter((s) => !/^(BEGIN|COMMIT|ROLLBACK)/i.test(s.sql));
  }
  const base = await kernel.app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', (m) => {
    if (m === 'stop') void kernel.close().then(() => database.stop()).then(() => process.exit(0));
  });
  const ready: AtendoReady = { role: 'atendo', base, url: database.url, dbName: decodeURIComponent(new URL(database.url).pathname.slice(1)), token, jwtSecret, statements, answer };
  process.send!(ready);
}

/** Child: the floor server (its statements and answer come from the parent once it starts). */
async function floor(): Promise<void> {
  const cfg = await new Promise<{ url: string; jwtSecret: string; statements: Statement[]; answer: unknown; inbound?: { appSecret: string; companyId: number; ticketId: number; url: string } }>((resolve) =>
    process.once('message', (m) => resolve(m as never)),
  );
  const pool = new pg.Pool({ connectionString: cfg.url, max: Number(process.env.DB_POOL_MAX ?? 10) });
  const verify = createVerifier({ key: cfg.jwtSecret, cache: true });
  const cached = Buffer.from(JSON.stringify(cfg.answer));
  const app = Fastify({ logger: false });
  const auth = (header: string | undefined): boolean => {
    if (!header?.startsWith('Bearer ')) return false;
    try {
      verify(header.slice(7));
      return true;
    } catch {
      return false;
    }
  };
  app.get('/cached/tickets', async (req, reply) => {
    if (!auth(req.headers.authorization)) return reply.code(401).send({ error: 'ERR_SESSION_EXPIRED' });
    return reply.type('application/json; charset=utf-8').send(cached);
  });
  app.get('/tickets', async (req, reply) => {
    if (!auth(req.headers.authorization)) return reply.code(401).send({ error: 'ERR_SESSION_EXPIRED' });
    await Promise.all(cfg.statements.map((s) => pool.query(s.sql, s.bindings as unknown[])));
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(cfg.answer));
  });
  // POST /webhook: the raw body's HMAC checked as Meta signs it, the JSON parsed, each message inserted
  // into the same messages table (one INSERT per webhook, under the ticket the parent names).
  if (cfg.inbound) {
    const inbound = cfg.inbound;
    const inboundPool = new pg.Pool({ connectionString: inbound.url, max: Number(process.env.DB_POOL_MAX ?? 10) });
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post('/webhook', async (req, reply) => {
      const raw = req.body as Buffer;
      const expected = `sha256=${createHmac('sha256', inbound.appSecret).update(raw).digest('hex')}`;
      const got = String(req.headers['x-hub-signature-256'] ?? '');
      if (got.length !== expected.length || !timingSafeEqual(Buffer.from(got), Buffer.from(expected))) return reply.code(401).send({ error: 'ERR_WEBHOOK_SIGNATURE' });
      const payload = JSON.parse(raw.toString('utf8')) as MetaPayload;
      const messages = payload.entry.flatMap((e) => e.changes.flatMap((c) => c.value.messages ?? []));
      await inboundPool.query(
        'INSERT INTO messages (company_id, ticket_id, wid, body, from_me) SELECT $1, $2, w, b, false FROM unnest($3::text[], $4::text[]) AS m(w, b)',
        [inbound.companyId, inbound.ticketId, messages.map((m) => m.id), messages.map((m) => m.text?.body ?? '')],
      );
      return reply.send('EVENT_RECEIVED');
    });
  }
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', (m) => {
    if (m === 'stop') void app.close().then(() => pool.end()).then(() => process.exit(0));
  });
  process.send!({ role: 'floor', base });
}

/**
 * Child: the bare floor (issue 36): `node:http` and `pg`, nothing else. POST /webhook reads the body, checks
 * Meta's HMAC, parses the JSON and stores each message with one `INSERT … ON CONFLICT DO NOTHING` (the
 * messages table's (company_id, wid) index) before answering 200: the least any server can do per signed
 * webhook on this machine.
 */
async function bareFloor(): Promise<void> {
  const cfg = await new Promise<{ appSecret: string; companyId: number; ticketId: number; url: string }>((resolve) => process.once('message', (m) => resolve(m as never)));
  const pool = new pg.Pool({ connectionString: cfg.url, max: Number(process.env.DB_POOL_MAX ?? 10) });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(`sha256=${createHmac('sha256', cfg.appSecret).update(raw).digest('hex')}`);
      const got = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
      if (req.method !== 'POST' || got.length !== expected.length || !timingSafeEqual(got, expected)) {
        res.writeHead(401).end();
        return;
      }
      const payload = JSON.parse(raw.toString('utf8')) as MetaPayload;
      const messages = payload.entry.flatMap((e) => e.changes.flatMap((c) => c.value.messages ?? []));
      pool
        .query(
          'INSERT INTO messages (company_id, ticket_id, wid, body, from_me) SELECT $1, $2, w, b, false FROM unnest($3::text[], $4::text[]) AS m(w, b) ON CONFLICT (company_id, wid) WHERE wid IS NOT NULL DO NOTHING',
          [cfg.companyId, cfg.ticketId, messages.map((m) => m.id), messages.map((m) => m.text?.body ?? '')],
        )
        .then(
          () => res.writeHead(200, { 'content-type': 'text/plain' }).end('EVENT_RECEIVED'),
          () => res.writeHead(500).end(),
        );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  process.on('message', (m) => {
    if (m === 'stop') server.close(() => void pool.end().then(() => process.exit(0)));
  });
  process.send!({ role: 'bare', base: `http://127.0.0.1:${port}` });
}

/** The part of a WhatsApp Cloud webhook the floor reads. */
interface MetaPayload {
  entry: { changes: { value: { messages?: { id: string; text?: { body: string } }[] } }[] }[];
}

/** One signed WhatsApp Cloud text-message webhook (a new message id every call), as bench/inbound.ts sends. */
function webhookBody(appSecret: string, phoneNumberId: string, seq: number): { body: string; signature: string } {
  const from = String(5511900000000 + (seq % 1000));
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: `Cliente ${seq % 1000}` }, wa_id: from }],
              messages: [{ from, id: `wamid.FLOOR${process.pid}${seq.toString(36).toUpperCase()}${randomBytes(3).toString('hex')}`, timestamp: String(Math.floor(Date.now() / 1000)), text: { body: `floor bench #${seq}` }, type: 'text' }],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });
  return { body, signature: `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}` };
}

/**
 * Signed webhooks to `url` from `connections` clients for DURATION s; then waits until the company's
 * messages stop growing (Atendo acknowledges once the body is durable and stores behind). Answers messages
 * stored per second (over the load and the drain), the CPU per stored message of `pid` and of the
 * database backends, and the HTTP errors.
 */
async function webhookLoad(
  url: string,
  pid: number,
  connections: number,
  o: { appSecret: string; phoneNumberId: string; companyId: number; db: pg.Client; dbName: string },
): Promise<Measure & { stored: number }> {
  const count = async () => Number((await o.db.query('SELECT count(*)::int AS n FROM messages WHERE company_id = $1', [o.companyId])).rows[0].n);
  const pgPids = async () => (await o.db.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [o.dbName])).rows.map((r: { pid: number }) => r.pid);
  let seq = Math.floor(Math.random() * 1e6) * 1000;
  const post = (duration: number) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      autocannon(
        {
          url,
          connections,
          duration,
          method: 'POST',
          requests: [
            {
              setupRequest: (req) => {
                const { body, signature } = webhookBody(o.appSecret, o.phoneNumberId, seq++);
                return { ...req, method: 'POST', body, headers: { ...req.headers, 'content-type': 'application/json', 'x-hub-signature-256': signature } };
              },
            },
          ],
        },
        (err, result) => (err ? reject(err) : resolve(result)),
      );
    });
  if (WARMUP > 0) await post(WARMUP);
  // Let the warm-up's messages land first.
  for (let last = -1, n = await count(); n !== last; await new Promise((r) => setTimeout(r, 1000))) [last, n] = [n, await count()];
  const before = await count();
  const pids = await pgPids();
  const api0 = cpuMs([pid]);
  const dbMeter = cpuMeter(pids);
  const t0 = Date.now();
  const r = await post(DURATION);
  let stored = (await count()) - before;
  let lastGrowth = Date.now();
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    await new Promise((res) => setTimeout(res, 250));
    const n = (await count()) - before;
    if (n !== stored) {
      stored = n;
      lastGrowth = Date.now();
    } else if (Date.now() - lastGrowth > 1500) break;
  }
  const elapsed = (Math.max(lastGrowth, t0 + DURATION * 1000) - t0) / 1000;
  const n = Math.max(1, stored);
  return { rps: Math.round(stored / elapsed), p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx, apiCpu: (cpuMs([pid]) - api0) / n, dbCpu: dbMeter.stop() / n, stored };
}

/**
 * A CPU meter over `pids`: `stop()` answers the CPU (ms) they used since it started, counting only the
 * processes alive at both ends (a database backend that exited meanwhile is left out, never negative).
 */
function cpuMeter(pids: number[]): { stop: () => number } {
  const start = new Map(pids.map((p) => [p, cpuMs([p])]));
  return {
    stop: () => {
      let total = 0;
      for (const [pid, t0] of start) if (existsSync(`/proc/${pid}/stat`)) total += Math.max(0, cpuMs([pid]) - t0);
      return total;
    },
  };
}

/** utime + stime of `pids` in ms (0 for pids this machine does not show). */
function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    const file = `/proc/${pid}/stat`;
    if (!existsSync(file)) continue;
    const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100
  }
  return total;
}

/** Resident memory of `pid` in MiB (VmRSS). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

function run(url: string, token: string, connections: number, duration: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, headers: { authorization: `Bearer ${token}` } }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** Forks this file as `role`; `config` (the floor's) is sent before waiting for the child's ready message. */
function start<T>(role: string, env: Record<string, string>, config?: unknown): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(__filename, [], { env: { ...process.env, ...env, BENCH_ROLE: role }, execArgv: process.execArgv });
  if (config !== undefined) child.send(config as never);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, ready: m as T }));
    child.once('exit', (code) => reject(new Error(`${role} process exited (${code})`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  // The Atendo and floor children stop on 'stop'; bench/inbound.ts's kernel on {type: 'stop'}.
  child.send('stop');
  child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

interface Measure {
  rps: number;
  p99: number;
  errors: number;
  apiCpu: number;
  dbCpu: number;
}

async function main(): Promise<void> {
  const jwtSecret = process.env.JWT_SECRET ?? randomBytes(32).toString('hex');
  // One database for every server (the embedded one is started here when DATABASE_URL is unset).
  const { benchDatabase } = await import('./seed-tickets');
  const database = await benchDatabase();
  const env = { JWT_SECRET: jwtSecret, DATABASE_URL: database.url };
  // The uncached Atendo seeds (when needed) and captures the statements; the others start on its database.
  const uncached = await start<AtendoReady>('atendo', { ...env, TICKETS_LIST_CACHE_MS: '0', BENCH_CAPTURE: '1' });
  const children: ChildProcess[] = [uncached.child];
  const cleanup: (() => Promise<unknown>)[] = [];
  const db = new pg.Client({ connectionString: uncached.ready.url });
  await db.connect();
  try {
    const cachedAtendo = await start<AtendoReady>('atendo', env);
    children.push(cachedAtendo.child);
    // Atendo with every plugin on its own database, receiving WhatsApp Cloud webhooks (bench/inbound.ts's
    // kernel: one Cloud connection; the bot as BENCH_BOT says, idle by default).
    const inboundUrl = new URL(database.url);
    inboundUrl.pathname = `/${decodeURIComponent(inboundUrl.pathname.slice(1))}_inbound`;
    const { ensureDatabase, dropDatabase } = require('@atendo/core/src/db') as typeof import('@atendo/core/src/db');
    await dropDatabase(inboundUrl.toString()).catch(() => undefined);
    await ensureDatabase(inboundUrl.toString());
    const appSecret = randomBytes(16).toString('hex');
    const phoneNumberId = String(100000000000000 + Math.floor(Math.random() * 1e12));
    const graph = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.R${randomBytes(6).toString('hex')}` }] }));
      });
    });
    await new Promise<void>((r) => graph.listen(0, '127.0.0.1', () => r()));
    cleanup.push(async () => {
      await new Promise((r) => graph.close(r));
      await dropDatabase(inboundUrl.toString()).catch(() => undefined);
    });
    const inboundChild = fork(join(__dirname, 'inbound.ts'), ['--kernel'], {
      // BENCH_CPU_PROF (a folder): the webhook kernel writes a V8 CPU profile there when it stops.
      execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
      env: {
        ...process.env,
        BENCH_DB_URL: inboundUrl.toString(),
        BENCH_DATA_DIR: mkdtempSync(join(os.tmpdir(), 'atendo-floor-')),
        BENCH_APP_SECRET: appSecret,
        BENCH_PHONE_NUMBER_ID: phoneNumberId,
        BENCH_EXCHANGE: `atendo.floor.${process.pid}`,
        BENCH_GRAPH_URL: `http://127.0.0.1:${(graph.address() as import('node:net').AddressInfo).port}`,
      },
    });
    children.push(inboundChild);
    const inboundReady = await new Promise<{ base: string; companyId: number; connectionId: number }>((resolve, reject) => {
      inboundChild.once('message', (m) => resolve(m as never));
      inboundChild.once('exit', (code) => reject(new Error(`inbound kernel exited (${code})`)));
    });
    const inboundDb = new pg.Client({ connectionString: inboundUrl.toString() });
    await inboundDb.connect();
    cleanup.push(() => inboundDb.end());
    const inboundOpts = { appSecret, phoneNumberId, companyId: inboundReady.companyId, db: inboundDb, dbName: decodeURIComponent(inboundUrl.pathname.slice(1)) };

    // One message through Atendo first, so the floor has a ticket to insert under.
    const first = webhookBody(appSecret, phoneNumberId, 0);
    const posted = await fetch(`${inboundReady.base}/webhook`, { method: 'POST', body: first.body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': first.signature } });
    if (posted.status !== 200) throw new Error(`POST /webhook: HTTP ${posted.status} ${await posted.text()}`);
    let ticketId = 0;
    for (const until = Date.now() + 30_000; !ticketId && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      ticketId = (await inboundDb.query('SELECT id FROM tickets WHERE company_id = $1 LIMIT 1', [inboundReady.companyId])).rows[0]?.id ?? 0;
    }
    if (!ticketId) throw new Error('the first webhook never made a ticket');
    // The floor's configuration goes over IPC (the statements can be large).
    const fl = await start<{ base: string }>('floor', env, {
      url: uncached.ready.url,
      jwtSecret,
      statements: uncached.ready.statements,
      answer: uncached.ready.answer,
      inbound: { appSecret, companyId: inboundReady.companyId, ticketId, url: inboundUrl.toString() },
    });
    children.push(fl.child);
    const floorReady = fl.ready;
    const bare = await start<{ base: string }>('bare', env, { appSecret, companyId: inboundReady.companyId, ticketId, url: inboundUrl.toString() });
    children.push(bare.child);
    const token = uncached.ready.token;
    const backends = async (): Promise<number[]> =>
      (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [uncached.ready.dbName])).rows.map((r: { pid: number }) => r.pid);

    const cpu = os.cpus();
    console.log(`machine: ${cpu[0]?.model ?? 'unknown'} x ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}`);
    console.log(`database ${uncached.ready.dbName}; ${uncached.ready.statements.length} statements per uncached list request; ${BENCH_BUILD} build; autocannon ${CONNECTIONS.join('/')} connections, ${DURATION} s per case after ${WARMUP} s warm-up${SHORT ? ' (BENCH_SHORT: a smoke run, not a measurement)' : ''}`);

    const measure = async (url: string, pid: number, connections: number): Promise<Measure> => {
      const probe = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      if (probe.status !== 200) throw new Error(`${url}: HTTP ${probe.status} ${(await probe.text()).slice(0, 200)}`);
      await probe.arrayBuffer().catch(() => undefined);
      if (WARMUP > 0) await run(url, token, connections, WARMUP);
      const pids = await backends();
      const api0 = cpuMs([pid]);
      const dbMeter = cpuMeter(pids);
      const r = await run(url, token, connections, DURATION);
      const n = Math.max(1, r.requests.total);
      return { rps: Math.round(r.requests.average), p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx, apiCpu: (cpuMs([pid]) - api0) / n, dbCpu: dbMeter.stop() / n };
    };

    const rows: Record<string, string | number>[] = [];
    const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(2)) : '-');
    const cases = [
      { name: 'cached GET /tickets', atendo: `${cachedAtendo.ready.base}${LIST_QUERY}`, pid: cachedAtendo.child.pid!, floor: `${floorReady.base}/cached${LIST_QUERY}` },
      { name: 'uncached GET /tickets', atendo: `${uncached.ready.base}${LIST_QUERY}`, pid: uncached.child.pid!, floor: `${floorReady.base}${LIST_QUERY}` },
    ];
    for (const c of CASES.has('lists') ? cases : []) {
      for (const connections of CONNECTIONS) {
        const load = os.loadavg()[0];
        const a = await measure(c.atendo, c.pid, connections);
        const f = await measure(c.floor, fl.child.pid!, connections);
        rows.push({
          case: `${c.name} @${connections}`,
          'atendo req/s': a.rps,
          'floor req/s': f.rps,
          'req/s ratio': ratio(a.rps, f.rps),
          'atendo p99 ms': a.p99,
          'floor p99 ms': f.p99,
          'atendo API ms/req': Number(a.apiCpu.toFixed(3)),
          'floor API ms/req': Number(f.apiCpu.toFixed(3)),
          'API CPU ratio': ratio(a.apiCpu, f.apiCpu),
          'atendo DB ms/req': Number(a.dbCpu.toFixed(3)),
          'floor DB ms/req': Number(f.dbCpu.toFixed(3)),
          errors: a.errors + f.errors,
          'load avg': Number(load.toFixed(1)),
        });
        console.log(JSON.stringify(rows[rows.length - 1]));
      }
    }
    const inboundIdle = rssMiB(inboundChild.pid!);
    const floorIdle = rssMiB(fl.child.pid!);
    for (const connections of CASES.has('inbound') ? CONNECTIONS : []) {
      const load = os.loadavg()[0];
      const a = await webhookLoad(`${inboundReady.base}/webhook`, inboundChild.pid!, connections, inboundOpts);
      const f = await webhookLoad(`${floorReady.base}/webhook`, fl.child.pid!, connections, inboundOpts);
      const b = await webhookLoad(`${bare.ready.base}/webhook`, bare.child.pid!, connections, inboundOpts);
      rows.push({
        case: `inbound webhooks @${connections}`,
        'atendo req/s': a.rps,
        'floor req/s': f.rps,
        'req/s ratio': ratio(a.rps, f.rps),
        'bare floor req/s': b.rps,
        'bare ratio': ratio(a.rps, b.rps),
        'bare floor API ms/req': Number(b.apiCpu.toFixed(3)),
        'bare API CPU ratio': ratio(a.apiCpu, b.apiCpu),
        'atendo p99 ms': a.p99,
        'floor p99 ms': f.p99,
        'atendo API ms/req': Number(a.apiCpu.toFixed(3)),
        'floor API ms/req': Number(f.apiCpu.toFixed(3)),
        'API CPU ratio': ratio(a.apiCpu, f.apiCpu),
        'atendo DB ms/req': Number(a.dbCpu.toFixed(3)),
        'floor DB ms/req': Number(f.dbCpu.toFixed(3)),
        errors: a.errors + f.errors + b.errors,
        'load avg': Number(load.toFixed(1)),
      });
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
    console.table(rows);
    console.log('(inbound rows: req/s = messages stored per second, including the time Atendo takes to store what it acknowledged; CPU per stored message)');
    console.log(`RSS after the runs (MiB): atendo cached ${rssMiB(cachedAtendo.child.pid!)}, atendo uncached ${rssMiB(uncached.child.pid!)}, floor ${rssMiB(fl.child.pid!)}`);
    console.log(`RSS idle / after the webhook runs (MiB): atendo (every plugin) ${inboundIdle} / ${rssMiB(inboundChild.pid!)}, floor ${floorIdle} / ${rssMiB(fl.child.pid!)}, bare floor ${rssMiB(bare.child.pid!)}`);
    if (rows.some((r) => Number(r.errors) > 0)) throw new Error('some requests failed (see the errors column)');
  } finally {
    await db.end();
    for (const child of children.reverse()) await stop(child);
    for (const c of cleanup.reverse()) await c();
    await database.stop();
  }
}

const role = process.env.BENCH_ROLE;
(role === 'atendo' ? atendo() : role === 'floor' ? floor() : role === 'bare' ? bareFloor() : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
