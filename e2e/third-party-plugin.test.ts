/**
 * A third-party plugin installed as a package and loaded by the kernel's discovery, with no kernel or
 * plugin edit: examples/echo-integration (built only on `@atendo/sdk` and the integrations plugin's
 * contract) adds the queue-integration type `echo`. The test installs it as `npm install
 * ./examples/echo-integration` would, a `node_modules` link beside links to the product's own plugins, in
 * a scratch root inside the repository's git-ignored .data/; then discovers and loads every plugin there,
 * boots a kernel with them, and talks to it as a customer over the WhatsApp Cloud webhook.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import type { PluginDefinition } from '@atendo/sdk';
import { discoverPlugins, loadDefinition } from '@atendo/core/src/plugins/loader';
import { Graph, sharedEnv, Tenant } from '../plugins/integrations/test/harness';

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
