/**
 * A third-party plugin installed as a package and loaded by the kernel's discovery, with no kernel or
 * plugin edit: examples/echo-integration (built only on `@atendo/sdk`, the integrations plugin's contract
 * reached through it) adds the queue-integration type `echo` and a company's canned replies (its own table,
 * migration and routes).
 *
 * 1. In process: installed as `npm install ./examples/echo-integration` would, a `node_modules` link beside
 *    links to the product's own plugins, in a scratch root inside the repository's git-ignored .data/; then
 *    discovered and loaded, booted in a kernel, and talked to as a customer over the WhatsApp Cloud webhook.
 * 2. As a third party outside the repository (issue 35): `npm run pack:sdk` packs @atendo/sdk and
 *    @atendo/testing; a folder in the temp dir installs the tarballs and type-checks the example and the
 *    plugin template with `tsc`; a copy of the checkout (hard-linked node_modules, no `npm ci`) installs the
 *    example from that folder (`npm install <folder>`, a link), builds, runs the API with
 *    NODE_ENV=production, and the example's own test runs against it from the folder (the remote kit: no
 *    token refused, another company's replies invisible); then version 0.2.0, packed with `npm pack` and
 *    with a second migration, is installed from its tarball: refused until `npm run build`, then its
 *    migration runs and the first one's rows are kept.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import type { PluginDefinition } from '@atendo/sdk';
import { createKnex } from '@atendo/core/src/db';
import { discoverPlugins, loadDefinition } from '@atendo/core/src/plugins/loader';
import { Graph, sharedEnv, Tenant } from '../plugins/integrations/test/harness';
import { checkoutCopy } from './support/checkout-copy';
import { cleanEnv, emptyDatabase, startNode, waitForUrl, type NodeProcess } from './support/processes';

const ROOT = join(__dirname, '..');
const EXAMPLE = 'atendo-plugin-echo-integration';

describe('a third-party plugin package (examples/echo-integration)', () => {
  mkdirSync(join(ROOT, '.data'), { recursive: true });
  const root = mkdtempSync(join(ROOT, '.data', 'third-party-'));
  let k: TestKernel;
  let defs: PluginDefinition[];
  const graph = new Graph();

  beforeAll(async () => {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
    const link = (name: string, target: string) => {
      const at = join(root, 'node_modules', name);
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(target, at, 'dir');
    };
    // The product as installed (its plugin packages), plus the example as a user would add it.
    for (const pkg of discoverPlugins(ROOT)) link(pkg.packageName, pkg.dir);
    link(EXAMPLE, join(ROOT, 'examples', 'echo-integration'));
    defs = [];
    for (const pkg of discoverPlugins(root)) defs.push(await loadDefinition(root, pkg));
    await graph.start();
    k = await createTestKernel({ plugins: defs, env: sharedEnv(graph.url) });
  }, 120_000);

  afterAll(async () => {
    await k?.close();
    await graph.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('discovery finds it beside the product plugins and loads its definition', () => {
    expect(discoverPlugins(root).map((p) => p.packageName)).toContain(EXAMPLE);
    expect(discoverPlugins(ROOT).map((p) => p.packageName)).not.toContain(EXAMPLE);
    expect(defs.find((d) => d.id === 'echo-integration')).toMatchObject({ dependsOn: ['integrations'] });
  });

  test('type echo: created through /queueIntegration, answers the customer with its per-ticket state and the company\'s canned replies, hands over on "tchau"', async () => {
    const t = await Tenant.create(k, graph);
    expect((await k.as(t.admin, 'POST', '/queueIntegration', { type: 'nope', name: 'Nada' })).json().error).toBe('ERR_VALIDATION');
    const res = await k.as(t.admin, 'POST', '/queueIntegration', { type: 'echo', name: 'Eco' });
    expect(res.statusCode).toBe(200);
    await t.setConnection({ integrationId: res.json().id });
    const c = t.customer('Gil');
    await c.says('oi');
    expect(await c.receives(1)).toEqual(['eco 1: oi']);
    await c.says('tudo bem?');
    expect(await c.receives(1)).toEqual(['eco 2: tudo bem?']);
    // A canned reply of the company (the plugin's own table and route) answers its keyword.
    expect((await k.as(t.admin, 'POST', '/echo-integration/replies', { keyword: 'Horário', reply: 'Das 8h às 18h.' })).statusCode).toBe(200);
    await c.says('  horário ');
    expect(await c.receives(1)).toEqual(['Das 8h às 18h.']);
    await c.says('tchau');
    expect(await c.receives(1)).toEqual(['Até mais!']);
    await c.ticketBecomes({ useIntegration: false, status: 'pending' });
  }, 60_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('a third-party plugin package from outside the repository: packed, installed, built, run in production, upgraded', () => {
  const work = mkdtempSync(join(tmpdir(), 'atendo-third-party-')); // the third party's folder
  const echo = join(work, 'echo-integration');
  let host = ''; // a copy of the product's checkout
  let db: { url: string; drop(): Promise<void> };
  let api: NodeProcess | undefined;
  const rootFiles = () => ['package.json', 'package-lock.json'].map((f) => readFileSync(join(ROOT, f), 'utf8'));
  const before = rootFiles();
  const password = `owner-${randomBytes(6).toString('hex')}`;
  const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline'];
  /** npm with the environment of a shell (no jest or npm variables of this run), from the local cache first. */
  const npm = (cwd: string, ...args: string[]) => execFileSync('npm', [...args, ...NPM_FLAGS], { cwd, env: cleanEnv({}) as NodeJS.ProcessEnv, encoding: 'utf8', stdio: 'pipe' });
  /** A command run asynchronously (as `npm` above): resolves with its stdout, rejects with its stderr. */
  const run = (cmd: string, args: string[], cwd: string) =>
    new Promise<string>((resolve, reject) =>
      execFile(cmd, args, { cwd, env: cleanEnv({}) as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout))),
    );
  const build = () => execFileSync(process.execPath, ['scripts/build.mjs', '--server-only'], { cwd: host, encoding: 'utf8', stdio: 'pipe' });
  let port = 0;
  let env: Record<string, string | undefined>;
  const startApi = () => startNode('api', ['kernel/core/dist/src/main.js'], { cwd: host, env });

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--server-only'], { cwd: ROOT, stdio: 'pipe' });
    // The third party's folder: its plugin (the example) and the template.
    cpSync(join(ROOT, 'examples/echo-integration'), echo, { recursive: true, filter: (f) => !/[\\/](node_modules|dist)$/.test(f) });
    for (const part of ['src', 'migrations', 'package.json']) cpSync(join(ROOT, 'plugins/_template', part), join(work, 'my-feature', part), { recursive: true });
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'third-party', private: true }));
    // Side by side: the third party installs the packed SDK and test kit and TypeScript; the host (a copy of
    // the checkout, built, where npm may write) installs the plugin from its folder (a link).
    const thirdParty = (async () => {
      const tarballs = (await run(process.execPath, [join(ROOT, 'scripts/pack.mjs'), '--out', join(work, 'tarballs')], ROOT)).trim().split('\n');
      await run('npm', ['install', '-D', ...tarballs, 'typescript@5.9', '@types/node@^20.19.43', 'tsx@^4.23.15', ...NPM_FLAGS], work);
    })();
    host = checkoutCopy({ npmWritable: true, prefix: 'atendo-third-party-host-' });
    await Promise.all([thirdParty, run('npm', ['install', echo, ...NPM_FLAGS], host)]);
    db = await emptyDatabase('atendo_3p');
    port = await freePort();
    env = cleanEnv({
      NODE_ENV: 'production',
      PATH: '/usr/bin:/bin', // no node_modules/.bin: plain node, no TypeScript runtime
      DATABASE_URL: db.url,
      AMQP_URL: process.env.AMQP_URL,
      AMQP_EXCHANGE: `atendo.3p.${randomBytes(3).toString('hex')}`,
      DATA_DIR: join(host, '.data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: password,
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
      LOG_LEVEL: 'warn',
    });
  }, 600_000);

  afterAll(async () => {
    await api?.stop('SIGKILL');
    await db?.drop();
    if (host) rmSync(host, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  test('the packed SDK and test kit carry JavaScript and declarations; the example and the template type-check outside the repository', () => {
    const sdk = join(work, 'node_modules/@atendo/sdk');
    expect(JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'))).toMatchObject({ main: './dist/index.js', types: './dist/index.d.ts', exports: { './plugins/*': { types: './dist/plugins/*.d.ts' } } });
    // The conversation-handler extension point, reached from the SDK.
    expect(readFileSync(join(sdk, 'dist/plugins/tickets.d.ts'), 'utf8')).toContain('export declare const conversationHandlers');
    expect(readFileSync(join(sdk, 'dist/plugins/integrations.d.ts'), 'utf8')).toContain("from '@atendo/sdk/plugins/tickets'");
    expect(existsSync(join(work, 'node_modules/@atendo/testing/dist/remote.d.ts'))).toBe(true);
    expect(existsSync(join(work, 'node_modules/@atendo/core'))).toBe(false);
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({ extends: './echo-integration/tsconfig.json', include: ['echo-integration/src', 'echo-integration/migrations', 'echo-integration/test', 'my-feature/src', 'my-feature/migrations'] }),
    );
    expect(() => execFileSync(process.execPath, [join(work, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'], { cwd: work, encoding: 'utf8', stdio: 'pipe' })).not.toThrow();
  }, 120_000);

  test('installed from the folder (npm install <folder>): its TypeScript loads in development (tsx) with the host SDK', () => {
    expect(realpathSync(join(host, 'node_modules/atendo-plugin-echo-integration'))).toBe(realpathSync(echo));
    const script = join(work, 'load-dev.ts');
    writeFileSync(
      script,
      `import { discoverPlugins, loadDefinition } from ${JSON.stringify(join(host, 'kernel/core/src/plugins/loader'))};\n` +
        `const pkg = discoverPlugins(${JSON.stringify(host)}).find((p) => p.packageName === 'atendo-plugin-echo-integration')!;\n` +
        `loadDefinition(${JSON.stringify(host)}, pkg).then((d) => console.log(JSON.stringify({ id: d.id, migrationsDir: d.migrationsDir })));\n`,
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: host, env: cleanEnv({}) as NodeJS.ProcessEnv, encoding: 'utf8', stdio: 'pipe' });
    expect(JSON.parse(out.trim())).toEqual({ id: 'echo-integration', migrationsDir: join(echo, 'migrations') });
  }, 120_000);

  test('npm run build compiles it into its own dist/; NODE_ENV=production runs it; its own test passes against the kernel', async () => {
    expect(build()).toMatch(/external plugins: atendo-plugin-echo-integration@0\.1\.0 compiled/);
    expect(existsSync(join(echo, 'dist/src/index.js'))).toBe(true);
    expect(build()).not.toMatch(/external plugins/); // fresh: not compiled again
    api = startApi();
    await waitForUrl(`http://127.0.0.1:${port}/ready`, api, 180_000);
    // The example's own test, run by the third party from its folder against this kernel.
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--test', 'test/replies.test.ts'], {
      cwd: echo,
      env: cleanEnv({ ATENDO_URL: `http://127.0.0.1:${port}`, ATENDO_ADMIN_EMAIL: 'owner@example.com', ATENDO_ADMIN_PASSWORD: password }) as NodeJS.ProcessEnv,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect(out).toMatch(/# pass 3\n# fail 0/);
    expect(await api.stop('SIGTERM')).toBe(0);
    expect(api.output()).not.toMatch(/Unknown file extension|Cannot find module/);
  }, 300_000);

  test('upgraded to 0.2.0 from its tarball: refused until npm run build, then its second migration runs and the data stays', async () => {
    const v2 = join(work, 'v2');
    cpSync(echo, v2, { recursive: true, filter: (f) => !/[\\/](node_modules|dist)$/.test(f) });
    const manifest = JSON.parse(readFileSync(join(v2, 'package.json'), 'utf8'));
    writeFileSync(join(v2, 'package.json'), JSON.stringify({ ...manifest, version: '0.2.0' }, null, 2));
    writeFileSync(
      join(v2, 'migrations/20270201000000_echo_integration_reply_hits.ts'),
      "import type { Knex } from 'knex';\n" +
        "export async function up(knex: Knex): Promise<void> {\n  await knex.schema.alterTable('echo_integration_replies', (t) => t.integer('hits').notNullable().defaultTo(0));\n}\n" +
        "export async function down(knex: Knex): Promise<void> {\n  await knex.schema.alterTable('echo_integration_replies', (t) => t.dropColumn('hits'));\n}\n",
    );
    const tarball = join(work, JSON.parse(npm(v2, 'pack', '--json', '--pack-destination', work))[0].filename);
    npm(host, 'install', tarball);
    expect(JSON.parse(readFileSync(join(host, 'node_modules/atendo-plugin-echo-integration/package.json'), 'utf8')).version).toBe('0.2.0');

    // Not built yet: the API refuses to start and says what to do.
    const stale = startApi();
    expect(await stale.exited).toBe(1);
    expect(stale.output()).toMatch(/atendo-plugin-echo-integration.*(no compiled JavaScript|has no build).*run npm run build/);

    expect(build()).toMatch(/external plugins: atendo-plugin-echo-integration@0\.2\.0 compiled/);
    api = startApi();
    await waitForUrl(`http://127.0.0.1:${port}/ready`, api, 180_000);
    const knex = createKnex(db.url, 1);
    try {
      const names = (await knex('knex_migrations_echo_integration').orderBy('id').select('name')).map((r: { name: string }) => r.name);
      expect(names).toEqual(['20270115000000_echo_integration_replies.ts', '20270201000000_echo_integration_reply_hits.ts']);
      const rows = await knex('echo_integration_replies').select('keyword', 'hits');
      expect(rows).toEqual([{ keyword: 'horário', hits: 0 }]);
    } finally {
      await knex.destroy();
    }
    expect((await fetch(`http://127.0.0.1:${port}/echo-integration/replies`)).status).toBe(401);
    expect(await api.stop('SIGTERM')).toBe(0);
    // The checkout the copy came from is untouched.
    expect(rootFiles()).toEqual(before);
  }, 300_000);
});
