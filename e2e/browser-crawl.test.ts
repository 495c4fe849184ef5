/**
 * The browser crawl (issue 31, "Tests must show"): every route of every area, as each role, in headless
 * Chromium against the built web UI and the real API with every plugin (createTestKernel 'discover'),
 * reached as on the default `npm start`: the web server proxies `/backend` to the API on its own port, and
 * BACKEND_URL (media URLs) is that API port.
 *
 * Routes are not listed here: they are read from the area manifests (microfrontends/*\/area.json, optional
 * segments expanded, route parameters filled with records seeded for the crawl) and every entry of the
 * shell's side menu (shell/src/menu.ts) must be among them. Roles: the super admin of company 1, an admin
 * and an attendant (user) of a company with every plan feature, and the admin of a company on a restricted
 * plan (no campaigns, kanban, schedules, internal chat, external API, OpenAI or integrations). Each role
 * signs in through the login form and then visits every route (client-side navigation, as the menu does;
 * routes its role or plan does not open must refuse cleanly too); on the reports page, every report's tab.
 *
 * On each page, once the network is quiet, the crawl fails on:
 * - any refused call of the app's own API (a 4xx/5xx answer under /backend, or a request that failed);
 * - any image that does not load (an <img> without pixels, or an image request refused or blocked);
 * - any raw i18n key visible in the page (text, placeholder, title or aria-label matching `word.word...`
 *   that is a key of the i18n resources, or starts with one of their top-level groups);
 * - any console error or uncaught page error.
 *
 * KNOWN_FINDINGS lists defects found by this crawl that other items of issue 31 fix; each entry names its
 * item, and the lead removes it once that fix is merged. Anything else fails the test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestKernel, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, type TestKernel, type TestUser } from '@atendo/testing';
import { loadAreaManifests, expandPath } from '../shell/area-manifests.cjs';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, CHROMIUM, CHROMIUM_ARGS, freePort } from '../shell/test/harness';

// The shell's side menu (its own entries and every area's), as the shell builds it. Required, not imported:
// its types live in the shell's TypeScript project (shell/tsconfig.json), not this one.
const { MENU } = require('../shell/src/menu') as { MENU: { entries: { to: string }[] }[] }; // eslint-disable-line @typescript-eslint/no-require-imports

const describeBrowser = browserDescribe('e2e/browser-crawl.test.ts');
jest.setTimeout(600_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The plan features the restricted company lacks. */
const RESTRICTED = ['useCampaigns', 'useKanban', 'useSchedules', 'useInternalChat', 'useExternalApi', 'useOpenAi', 'useIntegration'] as const;

/**
 * Findings of this crawl that other items of issue 31 fix (each matched against the finding's text). The
 * lead removes an entry when the item's fix is merged; until then the crawl stays strict for everything else.
 */
const KNOWN_FINDINGS: { item: string; pattern: RegExp }[] = [];

// ---------------------------------------------------------------- what the i18n resources define
const LANGS = new Set(['pt-BR', 'en', 'es', 'tr']);

/**
 * Every key of the web UI's i18n resources (the shell's locales and each area's and page's i18n modules,
 * found by file name), plural suffixes stripped, and their top-level groups.
 */
async function i18nKeys(): Promise<{ keys: Set<string>; groups: Set<string> }> {
  const files = execFileSync('find', ['shell/src', ...['microfrontends', 'web'].flatMap((d) => [d]), '(', '-name', 'i18n*.ts', '-o', '-path', '*/i18n/locales/*.ts', ')', '-not', '-path', '*/node_modules/*', '-not', '-path', '*/dist/*', '-not', '-path', '*/test/*'], { cwd: ROOT_DIR })
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  const keys = new Set<string>();
  const flat = (o: Json, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      const p = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object') flat(v as Json, p);
      else if (typeof v === 'string') keys.add(p.replace(/_(zero|one|two|few|many|other)$/, ''));
    }
  };
  for (const f of files) {
    const mod = (await import(join(ROOT_DIR, f))) as Json;
    for (const value of Object.values(mod)) {
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      const langs = Object.keys(value).filter((k) => LANGS.has(k));
      if (langs.length) for (const l of langs) flat((value as Json)[l], '');
      else if (f.includes('/locales/')) flat(value as Json, '');
    }
  }
  if (keys.size < 500) throw new Error(`only ${keys.size} i18n keys found in ${files.length} files: ${files.map((f) => relative(ROOT_DIR, f)).join(', ')}`);
  return { keys, groups: new Set([...keys].map((k) => k.split('.')[0])) };
}

// ---------------------------------------------------------------- the routes
interface CrawlRoute {
  area: string;
  /** The manifest's path, e.g. /tickets/:ticketId? */
  pattern: string;
  /** One concrete path of it (optional segments expanded), parameters still named. */
  path: string;
}

function manifestRoutes(): CrawlRoute[] {
  const out: CrawlRoute[] = [];
  for (const area of loadAreaManifests(ROOT_DIR)) {
    for (const r of area.routes) for (const p of expandPath(r.path)) out.push({ area: area.name, pattern: r.path, path: p });
  }
  return out;
}

/** `path` with each `:param` replaced from `seeds`; throws naming a parameter the crawl has no record for. */
function fill(path: string, seeds: Record<string, number | string>): string {
  return path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    if (seeds[name] === undefined) throw new Error(`the crawl seeds no record for :${name} of ${path}: add one in seedCompany()`);
    return String(seeds[name]);
  });
}

// ---------------------------------------------------------------- findings on one page
interface Finding {
  role: string;
  path: string;
  kind: 'api' | 'image' | 'i18n' | 'console';
  detail: string;
}

const show = (f: Finding) => `${f.role} ${f.path} [${f.kind}] ${f.detail}`;

describeBrowser('browser crawl: every route of every area, as each role', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let browser: Browser;
  let base = '';
  let apiOrigin = '';
  let profiles = '';
  let i18n: { keys: Set<string>; groups: Set<string> };
  const people: { role: string; email: string; password: string; seeds: Record<string, number | string> }[] = [];

  async function api(user: { token: string }, method: string, url: string, payload?: unknown): Promise<Json> {
    const res = await k.as(user, method, url, payload);
    if (res.statusCode !== 200) throw new Error(`seeding: ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Json;
  }

  /**
   * What a working company has: a queue, a connection, a contact with a ticket in that queue and, with the
   * plan's features, a contact list, a campaign and an internal chat; `attendant` (when given) is created in
   * the queue through the API.
   */
  async function seedCompany(admin: TestUser, features: boolean, attendant?: { name: string; email: string; password: string }): Promise<Record<string, number | string>> {
    const tag = Math.random().toString(36).slice(2, 8);
    const queue = await api(admin, 'POST', '/queue', { name: `Suporte ${tag}`, color: '#43A047' });
    const other = attendant
      ? await api(admin, 'POST', '/users', { ...attendant, profile: 'user', queueIds: [queue.id] })
      : await api(admin, 'POST', '/users', { name: 'Bia Suporte', email: `bia.${tag}@example.com`, password: `senha-${tag}-crawl`, profile: 'user', queueIds: [queue.id] });
    const conn = await api(admin, 'POST', '/whatsapp', { name: `Cloud ${tag}`, channel: 'whatsappapi', facebookPageUserId: `10${Date.now()}${tag.length}`, facebookUserToken: 'crawl-token', queueIds: [queue.id] });
    const contact = await api(admin, 'POST', '/contacts', { name: 'Cliente da Varredura', number: `55119${String(Date.now()).slice(-8)}` });
    const ticket = await api(admin, 'POST', '/tickets', { contactId: contact.id, whatsappId: conn.id, queueId: queue.id, status: 'pending' });
    // The inbox's ticket URLs carry the ticket's uuid (GET /tickets/u/:uuid).
    const seeds: Record<string, number | string> = { ticketId: ticket.uuid };
    if (features) {
      const list = await api(admin, 'POST', '/contact-lists', { name: `Lista ${tag}` });
      const campaign = await api(admin, 'POST', '/campaigns', { name: `Campanha ${tag}`, message1: 'Olá {nome}', scheduledAt: '', contactListId: list.id, whatsappId: conn.id });
      const chat = await api(admin, 'POST', '/chats', { title: `Conversa ${tag}`, users: [{ id: other.id }] });
      Object.assign(seeds, { contactListId: list.id, campaignId: campaign.id, id: chat.id });
    } else {
      // The plan refuses these screens: the gate answers before any record is read.
      Object.assign(seeds, { contactListId: 1, campaignId: 1, id: 1 });
    }
    return seeds;
  }

  beforeAll(async () => {
    buildWeb(400_000);
    i18n = await i18nKeys();
    const [webPort, apiPort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${webPort}`;
    apiOrigin = `http://127.0.0.1:${apiPort}`;
    // As `npm start`: the browser's origin is the web server, media URLs name the API's own port.
    k = await createTestKernel({ plugins: 'discover', env: { FRONTEND_URL: base, BACKEND_URL: apiOrigin, WHATSAPP_SESSIONS_AUTOSTART: 'false', CHANNELS_META_GRAPH_URL: 'http://127.0.0.1:9' } });
    await k.app.listen({ port: apiPort, host: '127.0.0.1' });
    web = await createWebServer({ apiProxyTarget: apiOrigin });
    await web.listen({ port: webPort, host: '127.0.0.1' });

    const full = await k.createCompany({ name: 'Empresa Completa' });
    const restricted = await k.createCompany({ name: 'Empresa Plano Básico', without: [...RESTRICTED] });
    const attendant = { name: 'Ana Atendente', email: `ana.${Date.now().toString(36)}@example.com`, password: `senha-${Date.now().toString(36)}` };
    const fullSeeds = await seedCompany(full.admin, true, attendant);
    // Media: an announcement with an image (its URL is the API's, as every media URL: BACKEND_URL).
    const announcement = await api(k.superAdmin, 'POST', '/announcements', { title: 'Manutenção programada', text: 'Sábado às 22h.', priority: 1, status: true });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const form = new FormData();
    form.append('typeArch', 'announcements');
    form.append('file', new Blob([png], { type: 'image/png' }), 'aviso.png');
    const uploaded = await fetch(`${apiOrigin}/announcements/${announcement.id}/media-upload`, { method: 'POST', headers: { authorization: `Bearer ${k.superAdmin.token}` }, body: form });
    if (uploaded.status !== 200) throw new Error(`seeding: announcement image: ${uploaded.status} ${await uploaded.text()}`);
    people.push(
      { role: 'super admin', email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD, seeds: await seedCompany(k.superAdmin, true) },
      { role: 'admin', email: full.admin.email, password: full.admin.password, seeds: fullSeeds },
      // The attendant works in the full company's queue: its records.
      { role: 'user', email: attendant.email, password: attendant.password, seeds: fullSeeds },
      { role: 'restricted-plan admin', email: restricted.admin.email, password: restricted.admin.password, seeds: await seedCompany(restricted.admin, false) },
    );
    profiles = mkdtempSync(join(tmpdir(), 'atendo-crawl-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 600_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await web?.close();
    await k?.close();
    if (profiles) rmSync(profiles, { recursive: true, force: true });
  });

  test('the side menu opens only routes of the area manifests', () => {
    const paths = new Set(manifestRoutes().map((r) => r.path.toLowerCase()));
    const entries = MENU.flatMap((s) => s.entries.map((e) => e.to));
    expect(entries.length).toBeGreaterThan(20);
    expect(entries.filter((to) => !paths.has(to.toLowerCase()))).toEqual([]);
  });

  /** Signs in through the form and visits every route; returns what went wrong, page by page. */
  async function crawl(person: (typeof people)[number]): Promise<{ findings: Finding[]; visited: string[]; tabs: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'pt-BR' });
    const page = await context.newPage();
    const findings: Finding[] = [];
    let where = '/login';
    const add = (kind: Finding['kind'], detail: string) => findings.push({ role: person.role, path: where, kind, detail });
    let inflight = 0;
    let lastActivity = Date.now();
    const own = (url: string) => url.startsWith(`${base}/backend/`) || url.startsWith(`${apiOrigin}/`);
    page.on('request', () => {
      inflight += 1;
      lastActivity = Date.now();
    });
    const done = () => {
      inflight = Math.max(0, inflight - 1);
      lastActivity = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', (req) => {
      done();
      const failure = req.failure()?.errorText ?? 'failed';
      // A request the page itself dropped on navigation is not a defect.
      if (failure === 'net::ERR_ABORTED') return;
      if (own(req.url())) add('api', `${req.method()} ${req.url().replace(base, '')}: ${failure}`);
      else if (req.resourceType() === 'image') add('image', `${req.url()}: ${failure}`);
    });
    page.on('response', (res) => {
      if (res.status() < 400) return;
      const req = res.request();
      if (own(res.url())) add('api', `${req.method()} ${res.url().replace(base, '')} -> ${res.status()}`);
      else if (req.resourceType() === 'image') add('image', `${res.url()} -> ${res.status()}`);
    });
    page.on('pageerror', (err) => add('console', `page error: ${String(err?.message ?? err)}`));
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      // A refused call is reported once, with its method and URL, by the response handler above.
      if (/^Failed to load resource: the server responded with a status of [45]\d\d/.test(msg.text()) && own(msg.location().url ?? '')) return;
      add('console', msg.text().slice(0, 300));
    });

    /** Waits until no request has been in flight for 400 ms (at most 15 s), and the loading texts are gone. */
    const settle = async () => {
      const end = Date.now() + 15_000;
      while (Date.now() < end && (inflight > 0 || Date.now() - lastActivity < 400)) await page.waitForTimeout(50);
      // Polled from here: page.waitForFunction with a string polls inside the page through eval, which the
      // UI's CSP (script-src 'self') refuses.
      const loadingUntil = Date.now() + 5000;
      while ((await page.evaluate('/Carregando…/.test(document.body.innerText)')) as boolean) {
        if (Date.now() > loadingUntil) {
          add('console', 'still "Carregando…" after 5 s');
          break;
        }
        await page.waitForTimeout(100);
      }
      await page.waitForTimeout(150);
    };

    const inspect = async () => {
      // (A string: this file is type-checked without the DOM library.)
      const seen = (await page.evaluate(`(() => {
        const texts = [document.body.innerText];
        for (const el of document.querySelectorAll('[placeholder],[title],[aria-label],[alt]')) {
          for (const a of ['placeholder', 'title', 'aria-label', 'alt']) {
            const v = el.getAttribute(a);
            if (v) texts.push(v);
          }
        }
        const broken = Array.from(document.images)
          .filter((img) => img.complete && img.naturalWidth === 0 && img.getAttribute('src'))
          .map((img) => img.currentSrc || img.src);
        return { text: texts.join('\\n'), broken };
      })()`)) as { text: string; broken: string[] };
      for (const src of seen.broken) add('image', `<img> without pixels: ${src}`);
      const raw = new Set<string>();
      for (const m of seen.text.matchAll(/(?<![\w@/.:-])([a-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+)(?![\w@/-]|\.\w)/g)) {
        const token = m[1].replace(/:.*/, '');
        if (i18n.keys.has(token) || i18n.groups.has(token.split('.')[0])) raw.add(token);
      }
      for (const key of raw) add('i18n', `raw key "${key}" visible`);
    };

    const visited: string[] = [];
    const tabs: string[] = [];
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(person.email);
    await page.getByLabel('Senha', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL((u) => u.pathname !== '/login', { timeout: 30_000 });
    where = new URL(page.url()).pathname;
    await settle();
    await inspect();

    for (const route of manifestRoutes()) {
      where = fill(route.path, person.seeds);
      visited.push(where);
      // Client-side navigation, as the menu and links do (single-spa and react-router follow popstate).
      await page.evaluate(`(() => {
        window.history.pushState(null, '', ${JSON.stringify(where)});
        window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
      })()`);
      await settle();
      await inspect();
      // The reports page shows one report at a time: each report (its own API call and texts) is a page too.
      const reportTabs = (await page.evaluate(`Array.from(document.querySelectorAll('[data-testid^="report-tab-"]')).map((el) => el.getAttribute('data-testid'))`)) as string[];
      for (const tab of reportTabs) {
        where = `${fill(route.path, person.seeds)} (${tab})`;
        tabs.push(where);
        await page.click(`[data-testid="${tab}"]`);
        await settle();
        await inspect();
      }
    }
    await context.close();
    return { findings, visited, tabs };
  }

  test('no refused API call, broken image, raw i18n key or console error on any page, for any role', async () => {
    const t0 = Date.now();
    // Two roles at a time (the machine's two cores).
    const results: { findings: Finding[]; visited: string[]; tabs: string[] }[] = [];
    for (let i = 0; i < people.length; i += 2) results.push(...(await Promise.all(people.slice(i, i + 2).map((p) => crawl(p)))));
    const all = results.flatMap((r) => r.findings);
    const known = all.filter((f) => KNOWN_FINDINGS.some((k) => k.pattern.test(show(f))));
    const unknown = all.filter((f) => !known.includes(f));
    for (const k of KNOWN_FINDINGS) if (!known.some((f) => k.pattern.test(show(f)))) console.warn(`KNOWN_FINDINGS: "${k.item}" no longer found: remove its entry`);
    const visits = results.reduce((n, r) => n + r.visited.length, 0);
    console.log(`crawl: ${visits} page visits by ${people.length} roles in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${all.length} findings, ${known.length} of them known (KNOWN_FINDINGS)\n${all.map(show).join('\n')}`);
    expect(results.every((r) => r.visited.length === manifestRoutes().length)).toBe(true);
    // The admins saw each of the four reports (attendance, groups, duration, research).
    expect(Math.max(...results.map((r) => r.tabs.length))).toBe(4);
    expect(unknown.map(show)).toEqual([]);
  });
});
