/**
 * Benchmark of the ticket lists (GET /tickets): page 1 of each tab (open, pending, group, closed, and a
 * search for a common word) as an admin and as a plain user with 3 queues, under autocannon with 50
 * connections for ~10 s per case, on the database bench/seed-tickets.ts seeds (seeded here first when
 * missing). Prints per case: requests/s, p50 and p99 latency (ms), errors, and the CPU time one request
 * costs the API process and the database backends (ms; read from /proc, so Linux with a local database
 * only), plus the machine and its load average (other processes share the CPUs: compare CPU per request
 * when the load is not ~0).
 *
 *   npx tsx bench/tickets-list.ts
 *
 * Viewers: `admin` (one admin token on every connection), `user` (the plain user with 3 queues) and
 * `agents` (each request signed by one of the company's 20 users in turn: 50 agents of different
 * profiles and queues, each with answers of their own).
 *
 * The list answers are cached per caller and forgotten on every event of the company (see
 * plugins/tickets/src/services/answer-cache.ts), so a quiet company is served from memory. The
 * `agents ... @ N changes/s` cases measure the other side: while they run, a writer makes N real changes a
 * second through the API, each with its real event: by default (BENCH_CHANGE=note) an admin writes a
 * private note on an open ticket (`POST /messages/:ticketId`; the ticket's event forgets the answers
 * of the viewers who see that ticket: admins and the users of its queue), or (BENCH_CHANGE=contact) renames
 * the contact of an active ticket (`PUT /contacts/:id`: a contact event forgets every answer of the
 * company, the worst case: up to N x 20 answers a second are recomputed).
 *
 * The API runs in a child process (logger off), so autocannon's own CPU is not counted.
 * Env: DATABASE_URL (name containing "bench"; unset: the embedded server of seed-tickets.ts),
 * BENCH_CONNECTIONS (50), BENCH_DURATION (seconds, 10), BENCH_WARMUP (seconds, 2), BENCH_ONLY (comma
 * list of case names, e.g. "admin open,user search,agents pending @ 10 changes/s"), BENCH_CHANGE_RATES
 * (changes per second of the agents' extra cases, comma list, "5,20"; "" for none), DB_POOL_MAX (10).
 */
import { BENCH_BUILD } from './compiled-build';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import type { Kernel } from '@atendo/core/src/app';
import { signAccess } from '@atendo/core/src/plugins/auth';
import { BENCH_ADMIN_EMAIL, BENCH_USER_EMAIL, benchDatabase, benchKernel, seedTickets } from './seed-tickets';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toLowerCase());
const CHANGE_RATES = (process.env.BENCH_CHANGE_RATES ?? '5,20').split(',').map(Number).filter((n) => n > 0);
const CHANGE: 'note' | 'contact' = process.env.BENCH_CHANGE === 'contact' ? 'contact' : 'note';

/** The tabs measured: the client's requests for page 1. */
const TABS: { name: string; query: string }[] = [
  { name: 'open', query: 'status=open&showAll=true&pageNumber=1' },
  { name: 'pending', query: 'status=pending&showAll=true&pageNumber=1' },
  { name: 'group', query: 'status=group&showAll=true&pageNumber=1' },
  { name: 'closed', query: 'status=closed&showAll=true&pageNumber=1' },
  { name: 'search', query: 'status=search&searchParam=pedido&showAll=true&pageNumber=1' },
];

interface ServerReady {
  base: string;
  dbName: string;
  tokens: Record<'admin' | 'user', string>;
  /** A token of each of the company's users. */
  agents: string[];
  /** Open tickets and their contacts (the change writer writes notes on them or renames the contacts). */
  targets: { ticketId: number; contactId: number; number: string }[];
}

/** Child process: the kernel on a random port; tells the parent its URL and the viewers' tokens. */
async function server(): Promise<void> {
  const database = await benchDatabase();
  const kernel: Kernel = await benchKernel(database.url);
  const { companyId } = await seedTickets(kernel.db);
  const tokens = {} as ServerReady['tokens'];
  for (const [name, email] of [['admin', BENCH_ADMIN_EMAIL], ['user', BENCH_USER_EMAIL]] as const) {
    const u = await kernel.db('users').where({ companyId, email }).first('id', 'profile', 'super', 'name');
    tokens[name] = signAccess(kernel.app, { id: u.id, companyId, profile: u.profile, super: u.super, name: u.name });
  }
  const users = await kernel.db('users').where({ companyId }).orderBy('id').select('id', 'profile', 'super', 'name');
  const agents = users.map((u) => signAccess(kernel.app, { id: u.id, companyId, profile: u.profile, super: u.super, name: u.name }));
  const targets = await kernel.db('tickets')
    .join('contacts', 'contacts.id', 'tickets.contactId')
    .where({ 'tickets.companyId': companyId, 'tickets.isGroup': false })
    .where('tickets.status', 'open')
    .limit(200)
    .select('tickets.id as ticketId', 'contacts.id as contactId', 'contacts.number');
  const base = await kernel.app.listen({ port: 0, host: '127.0.0.1' });
  const stop = async () => {
    await kernel.close();
    await database.stop();
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.send!({ base, dbName: new URL(database.url).pathname.slice(1), url: database.url, tokens, agents, targets });
}

/** utime + stime of `pids` in ms (0 for pids this machine does not show). */
function cpuMs(pids: number[]): number {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  let total = 0;
  for (const pid of pids) {
    const file = `/proc/${pid}/stat`;
    if (!existsSync(file)) continue;
    const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return total;
}

/** autocannon on `url`; each request signed by the next of `tokens` (one token: every request). */
function run(url: string, tokens: string[], duration: number): Promise<autocannon.Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration,
        headers: { authorization: `Bearer ${tokens[0]}` },
        requests: tokens.length > 1 ? [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` } }) }] : undefined,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/**
 * Makes `perSecond` changes a second through the API until stopped (see BENCH_CHANGE): private notes on
 * open tickets, or renames of their contacts. `stop` resolves with the count made.
 */
function changeWriter(base: string, token: string, targets: ServerReady['targets'], perSecond: number): { stop: () => Promise<number> } {
  let made = 0;
  let failed = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const one = async (i: number) => {
    const c = targets[i % targets.length];
    const stamp = `${i} ${Date.now().toString(36)}`;
    const r = await fetch(CHANGE === 'contact' ? `${base}/contacts/${c.contactId}` : `${base}/messages/${c.ticketId}`, {
      method: CHANGE === 'contact' ? 'PUT' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(CHANGE === 'contact' ? { name: `Cliente ${stamp}`, number: c.number } : { body: `Nota interna ${stamp}`, isPrivate: true }),
    });
    const text = await r.text();
    if (r.status === 200) made++;
    else if (++failed === 1) console.error(`change failed: HTTP ${r.status} ${text.slice(0, 200)}`);
  };
  // Open loop: one change every 1000/perSecond ms whatever the answers' latency (at most 20 in flight).
  const timer = setInterval(() => {
    if (inFlight.size >= 20) return;
    const p = one(sent++).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, 1000 / perSecond);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
      if (failed) throw new Error(`${failed} changes failed`);
      return made;
    },
  };
}

async function main(): Promise<void> {
  const child: ChildProcess = fork(__filename, [], { env: { ...process.env, BENCH_ROLE: 'server' }, execArgv: process.execArgv });
  const ready = await new Promise<ServerReady & { url: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as ServerReady & { url: string }));
    child.once('exit', (code) => reject(new Error(`API process exited (${code})`)));
  });
  const db = new pg.Client({ connectionString: ready.url });
  await db.connect();
  const backends = async () =>
    (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [ready.dbName])).rows.map((r: { pid: number }) => r.pid);
  try {
    const cpu = os.cpus();
    console.log(`machine: ${cpu[0]?.model ?? 'unknown'} x ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}`);
    console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION} s per case (after ${WARMUP} s warm-up); ${BENCH_BUILD} build; database ${ready.dbName}`);
    const rows: Record<string, string | number>[] = [];
    const cases: { viewer: string; tokens: string[]; rate: number }[] = [
      { viewer: 'admin', tokens: [ready.tokens.admin], rate: 0 },
      { viewer: 'user', tokens: [ready.tokens.user], rate: 0 },
      { viewer: 'agents', tokens: ready.agents, rate: 0 },
      ...CHANGE_RATES.map((rate) => ({ viewer: 'agents', tokens: ready.agents, rate })),
    ];
    for (const { viewer, tokens, rate } of cases) {
      const token = tokens[0];
      for (const tab of TABS) {
        const name = `${viewer} ${tab.name}${rate ? ` @ ${rate} ${CHANGE === 'note' ? 'notes' : 'renames'}/s` : ''}`;
        if (ONLY && !ONLY.includes(name)) continue;
        const url = `${ready.base}/tickets?${tab.query}`;
        const probe = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        const body = (await probe.json()) as { tickets?: unknown[] };
        if (probe.status !== 200) throw new Error(`${name}: HTTP ${probe.status} ${JSON.stringify(body)}`);
        if (WARMUP > 0) await run(url, tokens, WARMUP);
        const writer = rate ? changeWriter(ready.base, ready.tokens.admin, ready.targets, rate) : undefined;
        const pids = await backends();
        const api0 = cpuMs([child.pid!]);
        const db0 = cpuMs(pids);
        const load = os.loadavg()[0];
        const r = await run(url, tokens, DURATION);
        const changes = (await writer?.stop()) ?? 0;
        const n = Math.max(1, r.requests.total);
        rows.push({
          case: name,
          changes,
          'req/s': Math.round(r.requests.average),
          'p50 ms': r.latency.p50,
          'p99 ms': r.latency.p99,
          errors: r.errors + r.timeouts + r.non2xx,
          'api cpu ms/req': Number(((cpuMs([child.pid!]) - api0) / n).toFixed(2)),
          'db cpu ms/req': Number(((cpuMs(pids) - db0) / n).toFixed(2)),
          'load avg': Number(load.toFixed(1)),
          tickets: body.tickets?.length ?? 0,
        });
        console.log(JSON.stringify(rows[rows.length - 1]));
      }
    }
    console.table(rows);
  } finally {
    await db.end();
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

if (process.env.BENCH_ROLE === 'server') {
  server().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
