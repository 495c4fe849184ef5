/**
 * Benchmark of the campaigns plugin (issue 14 §6): importing a 10,000-row sheet into a contact list, then a
 * campaign to those 10,000 recipients with messageInterval 0 through a WhatsApp Cloud connection whose Graph
 * API is a local HTTP server.
 *
 *   npx tsx bench/campaigns.ts
 *
 * The kernel runs in a child process (every plugin under plugins/ whose src/index.ts loads, logger off,
 * NODE_ENV production) on a database of its own (created, then dropped), with a company, an admin and
 * BENCH_CONNECTIONS `whatsappapi` connections (the campaign rotates among them). The parent is the client and
 * the Graph server: it counts every send per recipient (a duplicate is a second send to one number).
 *
 * Figures:
 * - import: wall time of `POST /contact-lists/{id}/upload` (the sheet is built in the parent beforehand),
 *   the kernel's RSS before it and its peak while it runs (sampled every 20 ms), rows created;
 * - dispatch: from the campaign's creation (scheduled now) to the last send reaching the Graph server;
 *   items/s = recipients / (last send - first send); the CPU time one recipient cost the kernel process,
 *   the PostgreSQL backends of the benchmark database (from /proc) and the parent (client + Graph server);
 *   duplicates (sends per number > 1) and missing recipients; status FINALIZADA and the report's counts.
 *
 * Env: DATABASE_URL (a server to create the benchmark database on; unset: an embedded PostgreSQL in a
 * temporary folder on BENCH_PG_PORT, default 54490), BENCH_ROWS (10000), BENCH_CONNECTIONS (1),
 * CAMPAIGNS_BATCH_SIZE / CAMPAIGNS_RUN_BUDGET_MS (the plugin's config), DB_POOL_MAX (kernel pool, 10),
 * BENCH_CPU_PROF (a folder: the kernel writes a V8 CPU profile there), BENCH_TRACE (1: the kernel prints its SQL
 * statements by count after the import and after the dispatch).
 */
import { BENCH_BUILD } from './compiled-build';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import * as XLSX from '@e965/xlsx';

const ROOT = join(__dirname, '..');
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 1));

interface Ready {
  type: 'ready';
  base: string;
  companyId: number;
  connectionIds: number[];
  phoneIds: string[];
  token: string;
  plugins: string[];
  skipped: string[];
}

// ---------------------------------------------------------------------------------------------------
// Child: the kernel

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
      if (mod.default?.id && typeof mod.default.register === 'function') {
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
      ...env,
      NODE_ENV: 'production',
      DATABASE_URL: env.BENCH_DB_URL,
      DATA_DIR: env.BENCH_DATA_DIR,
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      LOG_LEVEL: 'silent',
      DB_POOL_MAX: env.DB_POOL_MAX ?? '10',
      CHANNELS_META_APP_SECRET: randomBytes(16).toString('hex'),
      CHANNELS_META_GRAPH_URL: env.BENCH_GRAPH_URL,
    },
    plugins: plugins as never,
    logger: false,
  });
  const db = kernel.db;
  const queries = new Map<string, number>();
  if (env.BENCH_TRACE) {
    db.on('query', (q: { sql: string }) => {
      const key = q.sql.replace(/\$\d+/g, '?').replace(/\((\?, )+\?\)/g, '(…)').replace(/(, \(…\))+/g, ', …').slice(0, 150);
      queries.set(key, (queries.get(key) ?? 0) + 1);
    });
  }
  const [plan] = await db('plans').insert({ name: `Bench ${Date.now()}`, users: 100, connections: 10, queues: 20, amount: 10, isPublic: false, useCampaigns: true }).returning('*');
  const [company] = await db('companies').insert({ name: 'Bench Campaigns', email: 'bench-campaigns@example.com', planId: plan.id, status: true, dueDate: '2999-01-01', recurrence: 'MONTHLY' }).returning('*');
  const [admin] = await db('users')
    .insert({ companyId: company.id, name: 'Bench Admin', email: `bench-admin-${Date.now()}@example.com`, passwordHash: await hashPassword(randomBytes(12).toString('hex')), profile: 'admin', super: false })
    .returning('*');
  const connectionIds: number[] = [];
  const phoneIds: string[] = [];
  for (let i = 0; i < Number(env.BENCH_CONNECTIONS ?? 1); i++) {
    const phoneId = String(200000000000000 + i);
    const [conn] = await db('whatsapps')
      .insert({ companyId: company.id, name: `Bench Cloud ${i + 1}`, channel: 'whatsappapi', status: 'CONNECTED', isDefault: i === 0, token: randomBytes(15).toString('hex').toUpperCase(), facebookPageUserId: phoneId, facebookUserToken: randomBytes(32).toString('hex') })
      .returning('*');
    connectionIds.push(conn.id);
    phoneIds.push(phoneId);
  }
  const base = await kernel.app.listen({ port: 0, host: '127.0.0.1' });
  const token = signAccess(kernel.app, { id: admin.id, companyId: company.id, profile: 'admin', super: false, name: admin.name });
  const ready: Ready = { type: 'ready', base, companyId: company.id, connectionIds, phoneIds, token, plugins: loaded, skipped };
  process.send!(ready);
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'mem') process.send!({ type: 'mem', mem: process.memoryUsage(), cpu: process.cpuUsage() });
    else if (msg.type === 'trace') {
      console.log([...queries].sort((a, b) => b[1] - a[1]).slice(0, 45).map(([q, n]) => `${String(n).padStart(7)} ${q}`).join('\n'));
      queries.clear();
    }
    else if (msg.type === 'stop') void kernel.close().finally(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------------------------------
// Parent

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
  let total = 0;
  for (const { pid } of rows as { pid: number }[]) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      // a backend that ended meanwhile
    }
  }
  return total;
}

/** A JSON request to the kernel. */
async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(new URL(path, base), { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function main(): Promise<void> {
  let baseUrl = process.env.DATABASE_URL;
  let embedded: { stop(): Promise<void> } | undefined;
  const { ensureDatabase, dropDatabase, startEmbeddedPostgres } = require('@atendo/core/src/db') as typeof import('@atendo/core/src/db');
  const pgDir = baseUrl ? undefined : mkdtempSync(join(os.tmpdir(), 'atendo-bench-pg-'));
  if (!baseUrl) {
    const server = await startEmbeddedPostgres(pgDir!, Number(process.env.BENCH_PG_PORT ?? 54490), 'postgres');
    embedded = server;
    baseUrl = server.url;
  }
  const dbName = `atendo_bench_campaigns_${process.pid}_${Date.now().toString(36)}`;
  const dbUrl = new URL(baseUrl);
  dbUrl.pathname = `/${dbName}`;
  await ensureDatabase(dbUrl.toString());
  const dataDir = mkdtempSync(join(os.tmpdir(), 'atendo-bench-campaigns-'));

  // The Graph API: every send counted per recipient.
  const sends = new Map<string, number>();
  let first = 0;
  let last = 0;
  let total = 0;
  let onSend: () => void = () => undefined;
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
        const now = Date.now();
        if (!first) first = now;
        last = now;
        total++;
        sends.set(to, (sends.get(to) ?? 0) + 1);
        onSend();
      }
      res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.B${randomBytes(8).toString('hex')}` }] }));
    });
  });
  await new Promise<void>((r) => graph.listen(0, '127.0.0.1', () => r()));
  const graphUrl = `http://127.0.0.1:${(graph.address() as import('node:net').AddressInfo).port}`;
  const child = fork(__filename, ['--kernel'], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, BENCH_DB_URL: dbUrl.toString(), BENCH_DATA_DIR: dataDir, BENCH_GRAPH_URL: graphUrl, BENCH_CONNECTIONS: String(CONNECTIONS) },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const check = knexFactory({ client: 'pg', connection: dbUrl.toString(), pool: { min: 0, max: 2 } });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m: Ready) => (m.type === 'ready' ? resolve(m) : reject(new Error('unexpected child message'))));
      child.once('exit', (code) => reject(new Error(`kernel process exited (${code})`)));
    });
    const cpu = os.cpus();
    console.log(`machine: ${cpu[0]?.model ?? 'unknown'} x ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`kernel: plugins ${ready.plugins.join(', ')}${ready.skipped.length ? ` (not loaded: ${ready.skipped.join('; ')})` : ''}; ${BENCH_BUILD} build; DB pool ${process.env.DB_POOL_MAX ?? 10}; ${CONNECTIONS} Cloud connection(s)`);

    // 1. Import a ROWS-row sheet.
    const numbers = Array.from({ length: ROWS }, (_, i) => String(5511900000000 + i * 7 + 1));
    const aoa: unknown[][] = [['name', 'number', 'email'], ...numbers.map((n, i) => [`Cliente ${i + 1}`, n, `c${i + 1}@example.com`])];
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(aoa), 'Contatos');
    const file = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    const list = await api(ready.base, ready.token, 'POST', '/contact-lists', { name: 'Bench' });
    await new Promise((r) => setTimeout(r, 500));
    const before = await memOf(child);
    let peak = before.rss;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const m = await memOf(child);
        if (m.rss > peak) peak = m.rss;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const form = new FormData();
    form.append('file', new Blob([file]), 'bench.xlsx');
    const t0 = Date.now();
    const res = await fetch(new URL(`/contact-lists/${list.id}/upload`, ready.base), { method: 'POST', headers: { authorization: `Bearer ${ready.token}` }, body: form });
    const imported = (await res.json()) as { created: number; errors: unknown[] };
    const importMs = Date.now() - t0;
    sampling = false;
    await sampler;
    if (!res.ok) throw new Error(`import: ${res.status} ${JSON.stringify(imported)}`);
    console.log(`\nimport: ${ROWS} rows (${(file.length / 1024).toFixed(0)} KiB .xlsx) in ${importMs} ms; created ${imported.created}, errors ${imported.errors.length}; kernel RSS ${(before.rss / 2 ** 20).toFixed(0)} MiB before, peak ${(peak / 2 ** 20).toFixed(0)} MiB (+${((peak - before.rss) / 2 ** 20).toFixed(0)} MiB)`);

    // 2. A campaign to every row, messageInterval 0.
    if (process.env.BENCH_TRACE) {
      child.send({ type: 'trace' });
      await new Promise((r) => setTimeout(r, 500));
    }
    await api(ready.base, ready.token, 'POST', '/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 } });
    const k0 = await memOf(child);
    const pg0 = await pgCpuMs(check, dbName);
    const d0 = process.cpuUsage();
    first = 0;
    total = 0;
    sends.clear();
    const allSent = new Promise<void>((resolve) => {
      onSend = () => {
        if (sends.size >= ROWS) resolve();
      };
    });
    const c0 = Date.now();
    const campaign = await api(ready.base, ready.token, 'POST', '/campaigns', {
      name: 'Bench',
      contactListId: list.id,
      whatsappId: ready.connectionIds.join(','),
      message1: 'Olá {nome}, oferta 1',
      message2: 'Oi {nome}, oferta 2',
      scheduledAt: new Date(Date.now() - 1000).toISOString(),
    });
    const timeout = new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${sends.size}/${ROWS} recipients reached`)), 600_000));
    await Promise.race([allSent, timeout]);
    const dCpu = process.cpuUsage(d0);
    const k1 = await memOf(child);
    const pg1 = await pgCpuMs(check, dbName);
    let status = '';
    for (let i = 0; i < 100 && status !== 'FINALIZADA'; i++) {
      status = (await api(ready.base, ready.token, 'GET', `/campaigns/${campaign.id}`)).status;
      if (status !== 'FINALIZADA') await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1500));
    const report = await api(ready.base, ready.token, 'GET', `/campaigns/${campaign.id}`);
    if (process.env.BENCH_TRACE) {
      child.send({ type: 'trace' });
      await new Promise((r) => setTimeout(r, 500));
    }
    const dups = [...sends.values()].filter((n) => n > 1).length;
    const missing = numbers.filter((n) => !sends.has(n)).length;
    const dispatchS = (last - first) / 1000;
    const items = ROWS;
    const stored = Number((await check('messages').where({ company_id: ready.companyId, from_me: true }).count({ n: '*' }).first())!.n);
    console.log(
      `dispatch: ${items} recipients, first send ${first - c0} ms after the campaign was created, last after ${((last - c0) / 1000).toFixed(2)} s; ` +
        `${(items / dispatchS).toFixed(0)} items/s (first to last send); status ${status}, counts ${JSON.stringify(report.counts)}`,
    );
    console.log(
      `sends ${total}, duplicated numbers ${dups}, missing ${missing}, messages stored ${stored}; CPU per item: kernel ${((k1.cpuMicros - k0.cpuMicros) / 1000 / items).toFixed(3)} ms, ` +
        `PostgreSQL ${((pg1 - pg0) / items).toFixed(3)} ms, driver + Graph server ${((dCpu.user + dCpu.system) / 1000 / items).toFixed(3)} ms; kernel RSS ${(k1.rss / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    child.send({ type: 'stop' });
    // A kernel that does not stop within 15 s is killed (the figures are printed already).
    await new Promise((r) => {
      const t = setTimeout(() => {
        console.error('the kernel did not stop within 15 s: killed');
        child.kill('SIGKILL');
      }, 15_000);
      child.once('exit', () => {
        clearTimeout(t);
        r(undefined);
      });
    });
    await check.destroy();
    graph.close();
    await dropDatabase(dbUrl.toString());
    rmSync(dataDir, { recursive: true, force: true });
    if (embedded) await embedded.stop();
    if (pgDir) rmSync(pgDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--kernel')) {
  kernelMain().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  // Exits once the figures are printed and everything is cleaned up (a library's idle handle never keeps it).
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
