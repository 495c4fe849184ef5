/**
 * Fault injection on the embedded default (in-process bus, embedded PostgreSQL; issue 18 item 10): the
 * compiled kernel (`npm run build --server-only`, NODE_ENV=production) runs as its own process on a DATA_DIR
 * of its own, with signed WhatsApp Cloud webhooks streaming in from several senders. A sender counts a
 * message as acknowledged when its POST answered 200; anything else (503, a refused or cut connection) is
 * delivered again, as Meta does.
 *
 * 1. kill -9 of the kernel mid-stream: its embedded PostgreSQL is left running as an orphan; a normal start
 *    on the same data detects and stops it (logged), handles what the dead process had accepted, and the
 *    senders deliver again what was not acknowledged: every message stored exactly once.
 * 2. The database killed (kill -9 of the postmaster) mid-stream: webhooks are answered 503 while it is
 *    down, the kernel restarts it by itself, and every acknowledged message is stored exactly once, with
 *    the kernel up all along.
 * 3. The database down for PG_DOWN_MS (default 3 s: killed, and its restarts failing meanwhile; issue 37
 *    item 9): the process stays up, `/health` answers at once, a route that needs the database answers
 *    503 ERR_SERVICE_UNAVAILABLE at once (not 500, not a hang), the supervisor keeps trying with backoff
 *    (EMBEDDED_PG_MAX_BACKOFF_MS, short here) and logs why each try failed, then all recovers by itself.
 * 4. A socket that drops while messages arrive gets the events it missed when it reconnects.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import knexFactory, { type Knex } from 'knex';
import { freePort } from '../shell/test/harness';
import { cleanEnv, startNode, waitForUrl, type NodeProcess } from './support/processes';

jest.setTimeout(600_000);

const ROOT = resolve(__dirname, '..');
const SECRET = randomBytes(16).toString('hex');
const PHONE_ID = String(400000000000000 + Math.floor(Math.random() * 1e9));
const PASSWORD = `no-loss-${randomBytes(6).toString('hex')}`;

function webhookBody(wid: string, from: string): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_ID },
              contacts: [{ profile: { name: `Cliente ${from.slice(-3)}` }, wa_id: from }],
              messages: [{ from, id: wid, timestamp: String(Math.floor(Date.now() / 1000)), text: { body: `msg ${wid}` }, type: 'text' }],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });
}

const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

/** Whether a process is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('no loss: kill -9 of the kernel, of the database; sockets that drop', () => {
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let port: number;
  let pgPort: number;
  let node: NodeProcess | undefined;
  let sql: Knex;
  let token: string;
  let companyId: number;
  const base = () => `http://127.0.0.1:${port}`;
  const pgDir = () => join(dataDir, 'pg');
  const postmasterPid = () => Number(readFileSync(join(pgDir(), 'postmaster.pid'), 'utf8').split('\n')[0]);
  const start = () => startNode('kernel', ['kernel/core/dist/src/main.js'], { cwd: ROOT, env });

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--server-only'], { cwd: ROOT, stdio: 'pipe' });
    dataDir = mkdtempSync(join(tmpdir(), 'atendo-no-loss-'));
    chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as the postgres user when we are root
    port = await freePort();
    pgPort = await freePort();
    env = cleanEnv({
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: PASSWORD,
      META_APP_SECRET: SECRET,
      META_VERIFY_TOKEN: 'verify-no-loss',
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '5000',
      // Short backoffs: the supervisor's restarts, and the pool's reconnects while the database is down.
      EMBEDDED_PG_MAX_BACKOFF_MS: '500',
      DB_RECONNECT_MAX_MS: '250',
    });
    node = start();
    await waitForUrl(`${base()}/ready`, node, 240_000);
    sql = knexFactory({ client: 'pg', connection: `postgres://postgres:atendo-embedded@127.0.0.1:${pgPort}/atendo`, pool: { min: 0, max: 2 } });
    const login = await fetch(`${base()}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password: PASSWORD }) });
    expect(login.status).toBe(200);
    const answer = (await login.json()) as { token: string; user: { companyId: number } };
    token = answer.token;
    companyId = answer.user.companyId;
    const conn = await fetch(`${base()}/whatsapp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: 'EAAG-no-loss' }),
    });
    expect(conn.status).toBe(200);
  }, 600_000);

  afterAll(async () => {
    await sql?.destroy().catch(() => undefined);
    await node?.stop('SIGTERM', 30_000).catch(() => undefined);
    // Whatever PostgreSQL a failed test left behind.
    if (dataDir && existsSync(join(dataDir, 'pg', 'postmaster.pid'))) {
      try {
        process.kill(Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** HTTP statuses of the webhook answers (and 'no answer' for refused or cut connections), by count. */
  const answers = new Map<number | 'no answer', number>();
  const count = (k: number | 'no answer') => answers.set(k, (answers.get(k) ?? 0) + 1);

  /** POSTs one message's webhook; true only on 200. */
  async function post(wid: string, from: string): Promise<boolean> {
    const body = webhookBody(wid, from);
    try {
      const res = await fetch(`${base()}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) }, body, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      count(res.status);
      return res.status === 200;
    } catch {
      count('no answer');
      return false;
    }
  }

  /**
   * Senders streaming distinct messages until `stop()`; each remembers what was acknowledged (200) and
   * what was not (to deliver again, as Meta would).
   */
  function stream(prefix: string, senders = 6) {
    const acked = new Set<string>();
    const unacked = new Set<string>();
    let running = true;
    let seq = 0;
    const loops = Array.from({ length: senders }, async (_, slot) => {
      while (running) {
        const wid = `wamid.${prefix}${slot}X${(seq++).toString(36).toUpperCase()}`;
        const from = String(5511930000000 + (seq % 50));
        if (await post(wid, from)) acked.add(wid);
        else {
          unacked.add(wid);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    });
    return {
      acked,
      unacked,
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /** Delivers `wids` again until each is acknowledged (Meta's retries). */
  async function deliverAgain(wids: Iterable<string>, deadlineMs = 120_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    for (const wid of wids) {
      while (!(await post(wid, '5511930000999'))) {
        if (Date.now() > until) throw new Error(`webhook ${wid} never accepted`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** Rows per wid among `wids`. */
  async function stored(wids: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < wids.length; i += 1000) {
      const rows = (await sql('messages').whereIn('wid', wids.slice(i, i + 1000)).groupBy('wid').select('wid').count({ n: '*' })) as { wid: string; n: string }[];
      for (const r of rows) out.set(r.wid, Number(r.n));
    }
    return out;
  }

  async function expectAllStoredOnce(wids: string[], label: string): Promise<void> {
    let rows = new Map<string, number>();
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      rows = await stored(wids).catch(() => rows);
      if (rows.size === wids.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const lost = wids.filter((w) => !rows.has(w));
    const duplicated = [...rows].filter(([, n]) => n > 1).map(([w]) => w);
    console.log(`${label}: ${wids.length} messages; lost ${lost.length}, duplicated ${duplicated.length}`);
    expect({ lost, duplicated }).toEqual({ lost: [], duplicated: [] });
    // The inbox empties: nothing left waiting, nothing dead-lettered (handled rows are deleted in groups
    // shortly after their messages are stored, so it is polled).
    let left: { state: string; n: number }[] = [];
    for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      left = (await sql.raw('SELECT state, count(*)::int AS n FROM inbox_events GROUP BY state')).rows as { state: string; n: number }[];
      if (!left.length) break;
    }
    expect(left).toEqual([]);
  }

  test('kill -9 of the kernel mid-stream; a normal start on the same data; what was not acknowledged is delivered again: nothing lost, nothing twice', async () => {
    const s = stream('KILL');
    await new Promise((r) => setTimeout(r, 2500));
    const pgBefore = postmasterPid();
    node!.proc.kill('SIGKILL');
    await node!.exited;
    await s.stop();
    expect(s.acked.size).toBeGreaterThan(20);
    // The API alone died: its embedded PostgreSQL is an orphan still holding the data directory.
    expect(alive(pgBefore)).toBe(true);

    node = start();
    await waitForUrl(`${base()}/ready`, node, 180_000);
    expect(node.lines.join('\n')).toMatch(/a server from a previous run \(crashed or killed\) still holds the data directory/);
    expect(alive(pgBefore)).toBe(false);
    await deliverAgain(s.unacked);
    await expectAllStoredOnce([...s.acked, ...s.unacked], 'kill -9 of the kernel');
  });

  test('kill -9 of the database mid-stream: 503 while it is down, restarted by the kernel, nothing acknowledged lost', async () => {
    const s = stream('PGKILL');
    await new Promise((r) => setTimeout(r, 2000));
    const pg = postmasterPid();
    answers.clear();
    process.kill(pg, 'SIGKILL');
    // The senders keep going through the outage (their posts are refused meanwhile) and after it.
    const until = Date.now() + 90_000;
    let restarted = false;
    while (Date.now() < until && !restarted) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        restarted = postmasterPid() !== pg && (await fetch(`${base()}/ready`)).status === 200;
      } catch {
        /* not yet */
      }
    }
    expect(restarted).toBe(true);
    const ackedAfter = s.acked.size;
    await new Promise((r) => setTimeout(r, 2000));
    await s.stop();
    expect(s.acked.size).toBeGreaterThan(ackedAfter); // accepting again after the restart
    // While the database was down the webhook said so (503, which Meta retries), never another status.
    expect(answers.get(503) ?? 0).toBeGreaterThan(0);
    expect([...answers.keys()].filter((k) => k !== 200 && k !== 503 && k !== 'no answer')).toEqual([]);
    expect(node!.proc.exitCode).toBeNull(); // the kernel stayed up
    expect(node!.lines.join('\n')).toMatch(/embedded PostgreSQL exited unexpectedly: restarting it/);
    await deliverAgain(s.unacked);
    await expectAllStoredOnce([...s.acked, ...s.unacked], 'kill -9 of the database');
  });

  test('the database down a while (its restarts failing): the process stays up, /health at once, 503 at once where the database is needed, retried with backoff and logged, then recovered', async () => {
    const DOWN_MS = Number(process.env.PG_DOWN_MS ?? 3000);
    const users = () => fetch(`${base()}/users`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    expect((await users()).status).toBe(200);
    const linesBefore = node!.lines.length;
    const pg = postmasterPid();
    process.kill(pg, 'SIGKILL');
    // Its data directory out of reach: every restart fails until it is back (a disk gone, a full volume).
    renameSync(pgDir(), `${pgDir()}.away`);
    const downUntil = Date.now() + DOWN_MS;
    const health: number[] = [];
    const refused: { status: number; error?: string; ms: number }[] = [];
    try {
      while (Date.now() < downUntil) {
        let t0 = Date.now();
        const h = await fetch(`${base()}/health`, { signal: AbortSignal.timeout(5000) });
        expect(h.status).toBe(200);
        await h.arrayBuffer();
        health.push(Date.now() - t0);
        t0 = Date.now();
        const res = await users();
        const body = (await res.json()) as { error?: string };
        refused.push({ status: res.status, error: body.error, ms: Date.now() - t0 });
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      renameSync(`${pgDir()}.away`, pgDir());
    }
    // Down: liveness at once; the database route refused with 503 at once (after the first moments, when
    // the pool may still be finding out that its connections are gone).
    expect(node!.proc.exitCode).toBeNull();
    expect(Math.max(...health)).toBeLessThan(1000);
    const settled = refused.slice(2);
    expect(settled.length).toBeGreaterThan(3);
    expect(settled.map((r) => `${r.status} ${r.error}`)).toEqual(settled.map(() => '503 ERR_SERVICE_UNAVAILABLE'));
    expect(Math.max(...settled.map((r) => r.ms))).toBeLessThan(1000);
    // The supervisor kept trying (each failure logged with why), never gave up.
    const during = node!.lines.slice(linesBefore).join('\n');
    expect(during).toMatch(/embedded PostgreSQL exited unexpectedly: restarting it/);
    expect(during.match(/embedded PostgreSQL: restart failed; trying again with backoff/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(during).toMatch(/did not start on port/);

    // Back by itself: the server restarted, the API answers again.
    await waitUntil(async () => (await users().then((r) => r.status, () => 0)) === 200, 30_000);
    expect(postmasterPid()).not.toBe(pg);
    expect((await fetch(`${base()}/ready`)).status).toBe(200);
    expect(node!.lines.slice(linesBefore).join('\n')).toMatch(/embedded PostgreSQL restarted/);
    expect(node!.proc.exitCode).toBeNull();
  });

  test('a socket that drops while messages arrive gets what it missed when it reconnects', async () => {
    const socket: Socket = ioClient(base(), { transports: ['websocket'], auth: { token }, reconnectionDelay: 100, reconnectionDelayMax: 500, forceNew: true });
    const seen = new Map<string, number>();
    socket.on(`company-${companyId}-appMessage`, (p: { action?: string; message?: { wid?: string } }) => {
      if (p.action === 'create' && p.message?.wid) seen.set(p.message.wid, (seen.get(p.message.wid) ?? 0) + 1);
    });
    try {
      await new Promise<void>((ok, fail) => {
        socket.once('connect', () => ok());
        socket.once('connect_error', fail);
      });
      expect(await post('wamid.SOCKBEFORE', '5511930000777')).toBe(true);
      await waitUntil(() => seen.has('wamid.SOCKBEFORE'), 20_000);
      // The connection drops (as a network failure would: the client reconnects by itself).
      const away = new Promise((r) => socket.once('disconnect', r));
      (socket.io.engine as unknown as { close(): void }).close();
      await away;
      const missed = ['wamid.SOCKAWAY1', 'wamid.SOCKAWAY2', 'wamid.SOCKAWAY3'];
      for (const wid of missed) expect(await post(wid, '5511930000777')).toBe(true);
      await expectAllStoredOnceQuiet(missed);
      await waitUntil(() => socket.connected, 20_000);
      await waitUntil(() => missed.every((w) => seen.has(w)), 20_000);
      expect(socket.recovered).toBe(true);
      expect(missed.map((w) => seen.get(w))).toEqual([1, 1, 1]);
      expect(seen.get('wamid.SOCKBEFORE')).toBe(1);
    } finally {
      socket.close();
    }
  });

  async function expectAllStoredOnceQuiet(wids: string[]): Promise<void> {
    await waitUntil(async () => (await stored(wids)).size === wids.length, 30_000);
  }

  async function waitUntil(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('timed out');
  }
});
