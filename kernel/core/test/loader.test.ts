import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppError, audienceResolvers, defineErrors, defineExtensionPoint, definePlugin, defineService, defineTopic, messageSend, Type, userExtensions, type PluginDefinition, type ServiceRef, type Topic } from '@atendo/sdk';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import { withDb } from '@atendo/testing/src/global-setup';
import { dropDatabase } from '@atendo/core/src/db';
import { discoverPlugins, loadDefinition, pluginEnv, Services, sortPlugins } from '@atendo/core/src/plugins/loader';
import { parsePluginConfig } from '@atendo/core/src/app';

const FIXTURE = resolve(__dirname, 'fixtures/hello-plugin');

/** A throw-away project root whose node_modules holds the fixture (symlinked, as npm links packages). */
function fakeRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'atendo-loader-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'fake-root', private: true }));
  mkdirSync(join(root, 'node_modules/@atendo'), { recursive: true });
  symlinkSync(FIXTURE, join(root, 'node_modules/@atendo/test-hello-plugin'), 'dir');
  // Noise the scan must ignore: a normal package, a scoped normal package, a broken manifest, a dot dir.
  const pkg = (dir: string, json: string) => {
    mkdirSync(join(root, 'node_modules', dir), { recursive: true });
    writeFileSync(join(root, 'node_modules', dir, 'package.json'), json);
  };
  pkg('left-pad', JSON.stringify({ name: 'left-pad', main: 'index.js' }));
  pkg('@atendo/not-a-plugin', JSON.stringify({ name: '@atendo/not-a-plugin', atendo: { role: 'adapter' } }));
  pkg('broken', '{ not json');
  mkdirSync(join(root, 'node_modules/.bin'), { recursive: true });
  return root;
}

const def = (id: string, dependsOn?: string[], extra: Partial<PluginDefinition> = {}): PluginDefinition => ({ id, dependsOn, register: () => undefined, ...extra });

describe('plugin discovery and loading', () => {
  let root: string;
  beforeAll(() => {
    root = fakeRoot();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('discoverPlugins finds exactly the package marked "atendo": {"role": "plugin"}', () => {
    expect(discoverPlugins(root)).toEqual([{ packageName: '@atendo/test-hello-plugin', dir: join(root, 'node_modules/@atendo/test-hello-plugin') }]);
  });

  test('discoverPlugins on a root without node_modules finds nothing', () => {
    const empty = mkdtempSync(join(tmpdir(), 'atendo-loader-empty-'));
    try {
      expect(discoverPlugins(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('loadDefinition loads the CommonJS package (module.exports = {default: definition})', async () => {
    const [pkg] = discoverPlugins(root);
    const loaded = await loadDefinition(root, pkg);
    expect(loaded.id).toBe('hello');
    expect(loaded.dependsOn).toEqual(['kernel']);
    expect(loaded.featureFlag).toBe('useKanban');
    expect(loaded.migrationsDir).toBe(join(FIXTURE, 'migrations'));
    expect(typeof loaded.register).toBe('function');
  });

  test('loadDefinition refuses a package marked as a plugin that exports no definition', async () => {
    const dir = join(root, 'node_modules/@atendo/empty-plugin');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@atendo/empty-plugin', main: 'index.js', atendo: { role: 'plugin' } }));
    writeFileSync(join(dir, 'index.js'), 'module.exports = { hello: 1 };');
    try {
      await expect(loadDefinition(root, { packageName: '@atendo/empty-plugin', dir })).rejects.toThrow(/exports no plugin definition/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sortPlugins', () => {
  const ids = (defs: PluginDefinition[]) => sortPlugins(defs).map((d) => d.id);

  test('orders every plugin after its dependsOn, whatever the input order; kernel is always satisfied', () => {
    expect(ids([def('c', ['b']), def('a', ['kernel']), def('b', ['a'])])).toEqual(['a', 'b', 'c']);
    expect(ids([def('tickets', ['contacts', 'queues']), def('queues'), def('contacts', ['kernel'])])).toEqual(['contacts', 'queues', 'tickets']);
    const sorted = ids([def('d', ['b', 'c']), def('c', ['a']), def('b', ['a']), def('a')]);
    expect(sorted[0]).toBe('a');
    expect(sorted[3]).toBe('d');
    expect(ids([])).toEqual([]);
  });

  test('optionalDependsOn ordering applies only when the other plugin is loaded', () => {
    expect(ids([def('a', [], { optionalDependsOn: ['z'] }), def('z')])).toEqual(['z', 'a']);
    expect(ids([def('a', [], { optionalDependsOn: ['absent'] })])).toEqual(['a']);
  });

  test('refuses duplicate ids', () => {
    expect(() => sortPlugins([def('a'), def('b'), def('a')])).toThrow('duplicate plugin id: a');
  });

  test('refuses missing dependencies', () => {
    expect(() => sortPlugins([def('a', ['ghost'])])).toThrow('plugin a depends on missing plugin ghost');
  });

  test('refuses cycles (two plugins, three plugins, a plugin on itself)', () => {
    expect(() => sortPlugins([def('a', ['b']), def('b', ['a'])])).toThrow(/plugin dependency cycle: a -> b -> a/);
    expect(() => sortPlugins([def('a', ['c']), def('b', ['a']), def('c', ['b'])])).toThrow(/plugin dependency cycle/);
    expect(() => sortPlugins([def('a', ['a'])])).toThrow(/plugin dependency cycle: a -> a/);
  });

  test('definePlugin refuses ids that are not kebab-case', () => {
    expect(() => definePlugin(def('Hello_World'))).toThrow(/kebab-case/);
    expect(definePlugin(def('hello-world')).id).toBe('hello-world');
  });
});

describe('services and config slices', () => {
  test('Services: provide once, get, has by ref; unknown and duplicate refs throw; string ids are refused', () => {
    const s = new Services();
    const x = defineService<{ n: number }>('x');
    const y = defineService<unknown>('y');
    s.provide(x, { n: 1 });
    expect(s.has(x)).toBe(true);
    expect(s.get(x).n).toBe(1);
    expect(s.has(y)).toBe(false);
    expect(() => s.get(y)).toThrow('service y is not provided');
    expect(() => s.provide(x, { n: 2 })).toThrow('service x is already provided');
    // What a plain JavaScript plugin builds without the SDK is a ref too.
    expect(s.get({ kind: 'service', id: 'x' } as ServiceRef<{ n: number }>).n).toBe(1);
    expect(() => s.get('x' as never)).toThrow("services are provided and looked up by a ref from defineService(id), not by the string 'x'");
  });

  test('configSchema: defaults from the schema; an `env` annotation names the fallback env var (blank counts as unset)', () => {
    const def = { id: 'x-y', configSchema: Type.Object({ secret: Type.Optional(Type.String({ env: 'PLAIN_SECRET' })), n: Type.Integer({ default: 3 }) }) };
    expect(parsePluginConfig(def, {})).toEqual({ n: 3 });
    expect(parsePluginConfig(def, { PLAIN_SECRET: 'plain', X_Y_N: '4' })).toEqual({ secret: 'plain', n: 4 });
    expect(parsePluginConfig(def, { X_Y_SECRET: 'own', PLAIN_SECRET: 'plain' })).toEqual({ secret: 'own', n: 3 });
    expect(parsePluginConfig(def, { X_Y_SECRET: ' ', PLAIN_SECRET: 'plain' })).toEqual({ secret: 'plain', n: 3 });
    expect(parsePluginConfig(def, { PLAIN_SECRET: '  ' })).toEqual({ n: 3 });
    expect(() => parsePluginConfig(def, { X_Y_N: 'many' })).toThrow('invalid config for plugin x-y');
  });

  test('pluginEnv reads <ID>_<KEY> (upper snake case) into camelCase keys, nothing else', () => {
    const env = { HELLO_WORLD_GREETING: 'olá', HELLO_WORLD_MAX_ITEMS: '5', HELLO_GREETING: 'other plugin', HELLOWORLD_X: 'no', PATH: '/bin', HELLO_WORLD_UNSET: undefined };
    expect(pluginEnv('hello-world', env)).toEqual({ greeting: 'olá', maxItems: '5' });
    expect(pluginEnv('hello', { HELLO_GREETING: 'x', HELLOGREETING: 'no' })).toEqual({ greeting: 'x' });
  });
});

describe('a discovered third-party plugin inside a kernel', () => {
  let k: TestKernel;
  let hello: PluginDefinition;
  let root: string;
  beforeAll(async () => {
    root = fakeRoot();
    const [pkg] = discoverPlugins(root);
    hello = await loadDefinition(root, pkg);
    k = await createTestKernel({ plugins: [hello], env: { HELLO_GREETING: 'olá' } });
  });
  afterAll(async () => {
    await k?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('its migration ran in its own table knex_migrations_hello', async () => {
    const done = await k.db('knex_migrations_hello').select('name');
    expect(done.map((r: { name: string }) => r.name)).toEqual(['20261121090000_hello_notes.js']);
    expect(await k.db.schema.hasTable('hello_notes')).toBe(true);
    // The kernel's own migrations are tracked apart.
    const kernel = await k.db('knex_migrations_kernel').select('name');
    expect(kernel.some((r: { name: string }) => r.name === '20261121090000_hello_notes.js')).toBe(false);
    expect(k.plugins.map((p) => p.id)).toEqual(['hello']);
  });

  test('its route is registered behind auth, reads its config slice, and is listed in the OpenAPI document', async () => {
    const res = await k.as(k.superAdmin, 'GET', '/hello');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ hello: 'world', companyId: 1, greeting: 'olá' });
    const anon = await k.as(null, 'GET', '/hello');
    expect(anon.statusCode).toBe(401);
    expect(anon.json().error).toBe('ERR_SESSION_EXPIRED');
    const doc = k.app.swagger() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/hello', '/hello/notes']));
    expect(k.services.get(defineService<{ greet(n: string): string }>('hello')).greet('Ana')).toBe('olá, Ana');
  });

  test('its featureFlag gates every one of its routes: plan without useKanban -> 403 ERR_FEATURE_NOT_IN_PLAN', async () => {
    const without = await k.createCompany({ without: ['useKanban'] });
    const withIt = await k.createCompany();
    for (const [method, url, payload] of [['GET', '/hello'], ['GET', '/hello/notes'], ['POST', '/hello/notes', { text: 'x' }]] as const) {
      const refused = await k.as(without.admin, method, url, payload);
      expect({ url, status: refused.statusCode, error: refused.json().error }).toEqual({ url, status: 403, error: 'ERR_FEATURE_NOT_IN_PLAN' });
    }
    const ok = await k.as(withIt.admin, 'GET', '/hello');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().companyId).toBe(withIt.companyId);
    expect(await k.db('helloNotes').where({ companyId: without.companyId }).first()).toBeUndefined();
    // Kernel routes of the company without the flag still work.
    expect((await k.as(without.admin, 'GET', '/settings')).statusCode).toBe(200);
  });

  test("its data is scoped per company and its body is validated (4xx with catalogue codes)", async () => {
    const a = await k.createCompany();
    const b = await k.createCompany();
    const created = await k.as(a.admin, 'POST', '/hello/notes', { text: 'from A' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ companyId: a.companyId, text: 'from A' });
    expect((await k.as(a.admin, 'GET', '/hello/notes')).json()).toEqual([created.json()]);
    expect((await k.as(b.admin, 'GET', '/hello/notes')).json()).toEqual([]);
    for (const body of [{}, { text: '' }, { text: 'x'.repeat(201) }, { text: { a: 1 } }, [1]]) {
      const res = await k.as(a.admin, 'POST', '/hello/notes', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
  });
});

describe('inline plugins: services across plugins and validated config', () => {
  let k: TestKernel;
  const greeterService = defineService<{ greet(n: string): string }>('greeter');
  const provider = definePlugin({
    id: 'greeter-provider',
    register(ctx) {
      ctx.services.provide(greeterService, { greet: (name: string) => `hello ${name}` });
    },
  });
  const consumer = definePlugin<{ punctuation: string; times: number }>({
    id: 'greeter-consumer',
    dependsOn: ['greeter-provider'],
    configSchema: Type.Object({ punctuation: Type.String({ default: '.' }), times: Type.Integer({ minimum: 1, maximum: 5, default: 1 }) }),
    register(ctx) {
      const greeter = ctx.services.get(greeterService);
      const config = ctx.config;
      ctx.app.get('/greet/:name', {
        schema: { params: Type.Object({ name: Type.String({ maxLength: 20 }) }), response: { 200: Type.Object({ text: Type.String(), config: Type.Object({ punctuation: Type.String(), times: Type.Integer() }) }) } },
      }, async (req) => {
        const { name } = req.params; // typed by the TypeBox provider of ctx.app
        return { text: Array.from({ length: config.times }, () => greeter.greet(name) + config.punctuation).join(' '), config };
      });
    },
  }) as PluginDefinition;

  beforeAll(async () => {
    // Given consumer first: the loader registers the provider first because of dependsOn.
    k = await createTestKernel({ plugins: [consumer, provider], env: { GREETER_CONSUMER_PUNCTUATION: '!', GREETER_CONSUMER_TIMES: '2' } });
  });
  afterAll(() => k?.close());

  test('a plugin uses a service another plugin provides; the registration order follows dependsOn', async () => {
    expect(k.plugins.map((p) => p.id)).toEqual(['greeter-provider', 'greeter-consumer']);
    const res = await k.as(k.superAdmin, 'GET', '/greet/Ana');
    expect(res.statusCode).toBe(200);
    expect(res.json().text).toBe('hello Ana! hello Ana!');
  });

  test('the config slice comes from <ID>_<KEY> env vars, coerced and defaulted by configSchema', async () => {
    expect((await k.as(k.superAdmin, 'GET', '/greet/Bo')).json().config).toEqual({ punctuation: '!', times: 2 });
    const other = await createTestKernel({ plugins: [provider, consumer] });
    try {
      expect((await other.as(other.superAdmin, 'GET', '/greet/Bo')).json()).toEqual({ text: 'hello Bo.', config: { punctuation: '.', times: 1 } });
    } finally {
      await other.close();
    }
  });

  test('an invalid config slice or a missing service stops the boot with a clear error', async () => {
    const dbName = `t_loader_${process.pid}_${Date.now().toString(36)}`;
    try {
      await expect(createTestKernel({ dbName, plugins: [provider, consumer], env: { GREETER_CONSUMER_TIMES: '9' } })).rejects.toThrow(/invalid config for plugin greeter-consumer/);
      const orphan = definePlugin({ id: 'orphan', register: (ctx) => void ctx.services.get(greeterService) });
      await expect(createTestKernel({ dbName, plugins: [orphan] })).rejects.toThrow('service greeter is not provided');
      await expect(createTestKernel({ dbName, plugins: [provider, consumer, provider] })).rejects.toThrow('duplicate plugin id: greeter-provider');
    } finally {
      await dropDatabase(withDb(process.env.ATENDO_TEST_PG_BASE!, dbName));
    }
  });
});

describe('typed contracts: service refs, topics, extension points and plugin error codes', () => {
  interface Greeter {
    greet(n: string): string;
  }
  const greeterRef = defineService<Greeter>('typed-greeter');
  const greetedTopic = defineTopic<{ name: string }>('greeter.greeted');
  const decorations = defineExtensionPoint<(s: string) => string>('typed-provider.decorations');
  const providerErrors = defineErrors({ ERR_TEST_NO_GREETING: { status: 404, message: 'No greeting' } });
  const provider = definePlugin({
    id: 'typed-provider',
    topics: [greetedTopic],
    errors: providerErrors,
    register(ctx) {
      const decos = ctx.extensions.declare(decorations);
      ctx.services.provide(greeterRef, { greet: (n) => decos.all().reduce((s, d) => d(s), `hi ${n}`) });
      ctx.app.get('/typed/missing', async () => {
        throw new AppError('ERR_TEST_NO_GREETING' as never);
      });
    },
  });
  const consumer = definePlugin({
    id: 'typed-consumer',
    dependsOn: ['typed-provider'],
    register(ctx) {
      ctx.extensions.contribute(decorations, (s) => `${s}!`);
      const greeter = ctx.services.get(greeterRef);
      ctx.app.get('/typed/greet', async () => ({ text: greeter.greet('Ana') }));
    },
  });
  const dbName = () => `t_contracts_${process.pid}_${Date.now().toString(36)}`;

  test('a declared dependency gets the service by ref and contributes to its extension point; plugin codes answer with their status', async () => {
    const k = await createTestKernel({ plugins: [consumer, provider] });
    try {
      expect((await k.as(k.superAdmin, 'GET', '/typed/greet')).json()).toEqual({ text: 'hi Ana!' });
      const missing = await k.as(k.superAdmin, 'GET', '/typed/missing');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: 'ERR_TEST_NO_GREETING', message: 'No greeting' });
      expect(k.services.get(greeterRef).greet('Bo')).toBe('hi Bo!');
    } finally {
      await k.close();
    }
  });

  test('a service or extension point of an undeclared plugin refuses the boot, naming both plugins', async () => {
    const name = dbName();
    try {
      const sneaky = definePlugin({ id: 'zz-sneaky', register: (ctx) => void ctx.services.get(greeterRef) });
      await expect(createTestKernel({ dbName: name, plugins: [provider, sneaky] })).rejects.toThrow(
        'plugin zz-sneaky uses service typed-greeter of plugin typed-provider without declaring typed-provider in dependsOn or optionalDependsOn',
      );
      const sneakyExt = definePlugin({ id: 'zz-sneaky-ext', register: (ctx) => ctx.extensions.contribute(decorations, (s) => s) });
      await expect(createTestKernel({ dbName: name, plugins: [provider, sneakyExt] })).rejects.toThrow(
        'plugin zz-sneaky-ext contributes to extension point typed-provider.decorations of plugin typed-provider without declaring',
      );
      // An optional dependency that is absent: has() is false and the boot goes on.
      const optional = definePlugin({ id: 'optional-user', optionalDependsOn: ['typed-provider'], register: (ctx) => void expect(ctx.services.has(greeterRef)).toBe(false) });
      const k = await createTestKernel({ dbName: name, plugins: [optional] });
      await k.close();
    } finally {
      await dropDatabase(withDb(process.env.ATENDO_TEST_PG_BASE!, name));
    }
  });

  test('kernel-owned extension points: any plugin contributes user extensions and audience resolvers; duplicates and re-declarations refuse the boot', async () => {
    const name = dbName();
    try {
      const extender = definePlugin({
        id: 'user-extender',
        register(ctx) {
          ctx.extensions.contribute(userExtensions, { name: 'greeting', decorate: async (_c, users) => users.forEach((u) => (u.greeting = `hi ${u.name}`)) });
          ctx.extensions.contribute(audienceResolvers, (user) => [`extender:${user.profile}`]);
          expect(ctx.extensions.has(userExtensions)).toBe(true);
        },
      });
      const k = await createTestKernel({ dbName: name, plugins: [extender] });
      try {
        const me = await k.as(k.superAdmin, 'GET', `/users/${k.superAdmin.id}`);
        expect(me.json().greeting).toMatch(/^hi /);
        // The contributed resolver put the admin's socket in `extender:admin`.
        const socket = await k.socket(k.superAdmin.token, await k.listen());
        try {
          let got: unknown;
          socket.on('company-1-probe', (p: unknown) => (got = p));
          // Audiences are resolved right after connecting: emit until the socket holds it (at most 5 s).
          for (let i = 0; i < 100 && got === undefined; i++) {
            k.realtime.emitToCompany(1, 'company-1-probe', { ok: true }, { audiences: ['extender:admin'] });
            await new Promise((r) => setTimeout(r, 50));
          }
          expect(got).toEqual({ ok: true });
        } finally {
          socket.disconnect();
        }
      } finally {
        await k.close();
      }
      const twice = definePlugin({ id: 'user-extender-2', register: (ctx) => ctx.extensions.contribute(userExtensions, { name: 'greeting', decorate: async () => undefined }) });
      await expect(createTestKernel({ dbName: name, plugins: [extender, twice] })).rejects.toThrow('user extension greeting already registered');
      const usurper = definePlugin({ id: 'usurper', register: (ctx) => void ctx.extensions.declare(audienceResolvers) });
      await expect(createTestKernel({ dbName: name, plugins: [usurper] })).rejects.toThrow('extension point kernel.audience-resolvers is already declared by kernel');
    } finally {
      await dropDatabase(withDb(process.env.ATENDO_TEST_PG_BASE!, name));
    }
  });

  test('a bus topic or an error code declared by two plugins refuses the boot', async () => {
    const name = dbName();
    try {
      const sameTopic = definePlugin({ id: 'same-topic', topics: [defineTopic<{ other: true }>('greeter.greeted')], register: () => undefined });
      await expect(createTestKernel({ dbName: name, plugins: [provider, sameTopic] })).rejects.toThrow(/bus topic greeter\.greeted is declared by both (typed-provider and same-topic|same-topic and typed-provider)/);
      // The channel command/result topics are the kernel's (declared in the SDK): a plugin cannot claim them.
      const claimsSend = definePlugin({ id: 'claims-send', topics: [messageSend as Topic<unknown>], register: () => undefined });
      await expect(createTestKernel({ dbName: name, plugins: [claimsSend] })).rejects.toThrow('bus topic message.send is declared by both kernel and claims-send');
      const sameCode = definePlugin({ id: 'same-code', errors: { ERR_TEST_NO_GREETING: { status: 400, message: 'x' } }, register: () => undefined });
      await expect(createTestKernel({ dbName: name, plugins: [provider, sameCode] })).rejects.toThrow('error code ERR_TEST_NO_GREETING is declared by both typed-provider and same-code');
      expect(() => defineErrors({ ERR_VALIDATION: { status: 400, message: 'x' } })).toThrow('ERR_VALIDATION is a kernel code');
    } finally {
      await dropDatabase(withDb(process.env.ATENDO_TEST_PG_BASE!, name));
    }
  });
});
