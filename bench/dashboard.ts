/**
 * Dashboard benchmark: how long the dashboard routes take on the 100,000 tickets of bench/seed-tickets.ts
 * (seeded here first when needed), plus NPS ratings for 30% of the closed tickets (automation's table).
 *
 *   npx tsx bench/dashboard.ts
 *
 * A kernel with the tickets plugins, automation and dashboard on the benchmark database (DATABASE_URL
 * whose name contains "bench", else the embedded server of seed-tickets.ts); the dashboard's read model
 * is rebuilt from scratch (its backfill through the tickets service is timed), then every route is asked
 * BENCH_REPEAT times (default 30) one after the other through Fastify inject as the company's admin, for
 * three ranges: the current month, the last 90 days and a year (every ticket): "cold" with the company's
 * cached figures dropped before each request (`dashboard.changed`, as after any ticket change: the SQL
 * runs every time) and "warm" (answered from the cache). Prints p50 / p95 ms and the API process's CPU
 * time per cold request (PostgreSQL's own time is in the wall-clock figures only).
 * Env: BENCH_PG_PORT (embedded server port), BENCH_REPEAT, BENCH_LOG=1 (the kernel's errors on stderr).
 */
import { BENCH_BUILD } from './compiled-build';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { PluginDefinition } from '@atendo/sdk';
import { buildKernel, type Kernel } from '@atendo/core/src/app';
import { signAccess } from '@atendo/core/src/plugins/auth';
import automationPlugin from '@atendo/plugin-automation';
import dashboardPlugin from '@atendo/plugin-dashboard';
import { dashboardChanged } from '@atendo/plugin-dashboard/contract';
import { BENCH_ADMIN_EMAIL, BENCH_PASSWORD, BENCH_PLUGINS, benchDatabase, seedTickets } from './seed-tickets';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);

function kernelOn(url: string): Promise<Kernel> {
  const dataDir = '/tmp/atendo-bench-data';
  mkdirSync(dataDir, { recursive: true });
  return buildKernel({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_PASSWORD: BENCH_PASSWORD,
      LOG_LEVEL: process.env.BENCH_LOG ? 'error' : 'silent',
    },
    plugins: [...BENCH_PLUGINS, automationPlugin, dashboardPlugin] as PluginDefinition[],
    ...(process.env.BENCH_LOG ? { logStream: process.stderr } : { logger: false }),
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const database = await benchDatabase();
  const kernel = await kernelOn(database.url);
  try {
    const { companyId } = await seedTickets(kernel.db);
    const db = kernel.db;
    const [{ n: rated }] = await db('automationNpsRatings').where({ companyId }).count({ n: '*' });
    if (Number(rated) === 0) {
      await db.raw(
        `INSERT INTO automation_nps_ratings (company_id, ticket_id, user_id, queue_id, whatsapp_id, contact_id, rate, created_at)
         SELECT company_id, id, user_id, queue_id, whatsapp_id, contact_id, (id * 7) % 11, closed_at
           FROM tickets WHERE company_id = ? AND status = 'closed' AND id % 10 < 3`,
        [companyId],
      );
    }
    const [{ n: ratings }] = await db('automationNpsRatings').where({ companyId }).count({ n: '*' });
    const [{ n: tickets }] = await db('tickets').where({ companyId }).count({ n: '*' });
    // Rebuild the read model from scratch and time the backfill (the first request does it).
    await db('dashboardTickets').where({ companyId }).del();
    await db('dashboardBackfills').where({ companyId }).del();
    const admin = await db('users').where({ companyId, email: BENCH_ADMIN_EMAIL }).first('id', 'profile', 'super', 'name');
    const token = signAccess(kernel.app, { id: admin.id, companyId, profile: admin.profile, super: admin.super, name: admin.name });
    const get = async (url: string) => {
      const res = await kernel.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return res;
    };
    const t0 = performance.now();
    await get('/dashboard?days=1');
    const backfillMs = performance.now() - t0;
    const [{ n: copied }] = await db('dashboardTickets').where({ companyId }).count({ n: '*' });
    console.log(`tickets ${tickets}, ratings ${ratings}; backfill of ${copied} tickets: ${(backfillMs / 1000).toFixed(1)} s`);

    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const ranges: [string, string][] = [
      ['current month', ''],
      ['90 days', 'days=90'],
      ['a year (all tickets)', `initialDate=${yearAgo}&finalDate=${today}`],
    ];
    const routes = ['/dashboard', '/dashboard/total-atendimentos', '/dashboard/queues', '/dashboard/ticketsUsers', '/dashboard/user-info', '/dashboard/nps-info', '/dashboard/atendimentos-encerrados', '/ticket/reports'];
    console.log(`${BENCH_BUILD} build; load average at start: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log('| route | range | cold p50 ms | cold p95 ms | API CPU ms/req | warm p50 ms |');
    console.log('|---|---|---:|---:|---:|---:|');
    const measure = async (url: string, cold: boolean) => {
      const times: number[] = [];
      let cpu = 0;
      for (let i = 0; i < REPEAT; i++) {
        if (cold) {
          await kernel.bus.publish(dashboardChanged, { companyId });
          await new Promise((r) => setTimeout(r, 20)); // the broadcast delivery (not timed)
        }
        const c0 = process.cpuUsage();
        const s = performance.now();
        await get(url);
        times.push(performance.now() - s);
        const c = process.cpuUsage(c0);
        cpu += (c.user + c.system) / 1000;
      }
      times.sort((a, b) => a - b);
      return { p50: pct(times, 50), p95: pct(times, 95), cpu: cpu / REPEAT };
    };
    for (const [label, q] of ranges) {
      for (const route of routes) {
        const query = route === '/dashboard' ? q.replace('initialDate', 'date_from').replace('finalDate', 'date_to') : q;
        const url = query ? `${route}?${query}` : route;
        await get(url); // warm-up
        const cold = await measure(url, true);
        const warm = await measure(url, false);
        console.log(`| ${route} | ${label} | ${cold.p50.toFixed(1)} | ${cold.p95.toFixed(1)} | ${cold.cpu.toFixed(1)} | ${warm.p50.toFixed(1)} |`);
      }
    }
    const m = await measure('/dashboard/moments?showAll=true', true);
    console.log(`| /dashboard/moments | last 30 days, open + pending (not cached) | ${m.p50.toFixed(1)} | ${m.p95.toFixed(1)} | ${m.cpu.toFixed(1)} | - |`);
  } finally {
    await kernel.close();
    await database.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
