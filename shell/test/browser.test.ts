/**
 * Browser test of the built web UI: the real API (createTestKernel, no plugins) and the shell's static
 * server on random ports, driven by headless Chromium through playwright-core. Builds the bundles first
 * when they are missing or stale (scripts/start.mjs --build-only). Skipped, with a message, when
 * /usr/bin/chromium is absent (CI installs Debian's chromium).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestKernel, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, type TestKernel } from '@atendo/testing';
import { createWebServer, ROOT_DIR } from '../serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from './harness';

const describeBrowser = browserDescribe('shell/test/browser.test.ts');

jest.setTimeout(90_000);


interface Session {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions of the page (must stay empty). */
  errors: string[];
  /** Content-Security-Policy violations reported on the console (must stay empty). */
  cspViolations: string[];
  close(): Promise<void>;
}

describeBrowser('web UI in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  const sessions: Session[] = [];

  beforeAll(async () => {
    // Build what is missing or older than its sources (the shell must build; areas may lag behind).
    buildWeb(240_000);
    expect(existsSync(join(ROOT_DIR, 'shell/dist/index.html'))).toBe(true);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/dashboard/dist/remoteEntry.js'))).toBe(true);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [], env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 300_000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await web?.close();
    await k?.close();
  });

  /** A fresh browser profile (its own --user-data-dir) with one page. */
  async function open(): Promise<Session> {
    const { context, page, close } = await launchProfile({ width: 1280, height: 800 });
    const s: Session = {
      context,
      page,
      errors: [],
      cspViolations: [],
      close,
    };
    page.on('pageerror', (err) => s.errors.push(String(err?.stack ?? err)));
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) s.cspViolations.push(msg.text());
    });
    sessions.push(s);
    return s;
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
  }

  const menu = (page: Page, key: string) => page.locator(`[data-testid="side-menu"] [data-testid="menu-${key}"]`);

  test('the admin signs in, lands on /tickets, sees the dashboard area and switches to English', async () => {
    const { name } = await k.db('users').where({ email: TEST_ADMIN_EMAIL }).first('name');
    const s = await open();
    const { page } = s;
    await signIn(page, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    await page.waitForURL(`${base}/tickets`);
    await page.locator('[data-testid="coming-soon"], [data-area="inbox"]').first().waitFor();
    await expectText(page.getByTestId('greeting'), `Olá ${name}, bem-vindo a Atendo`);
    expect(await page.evaluate(() => window.localStorage.getItem('token'))).toMatch(/^"ey[^"]+"$/);

    // The menu: admin and super sections, plan features of company 1's full plan.
    await menu(page, 'kanban').waitFor();
    for (const key of ['dashboard', 'tickets', 'contacts', 'users', 'queues', 'connections', 'settings', 'companies', 'announcements']) expect(await menu(page, key).count()).toBe(1);
    expect(await page.getByText('Administração', { exact: true }).count()).toBe(1);

    // /contacts is the agent area's page (every page of the spec's menu has its area now).
    await menu(page, 'contacts').click();
    await page.waitForURL(`${base}/contacts`);
    await expectText(page.getByTestId('contacts-page').getByRole('heading', { level: 1 }), 'Contatos');

    // The dashboard is a module-federation remote mounted by single-spa.
    await menu(page, 'dashboard').click();
    await page.waitForURL(`${base}/`);
    const card = page.getByTestId('dashboard-greeting');
    await expectText(card, `Olá, ${name}!`);
    await expectText(card, 'Plataforma');
    expect(await card.locator('[data-feature="useKanban"][data-enabled="true"]').count()).toBe(1);

    // Language: English everywhere (shell and area), remembered across a reload (session restored by refresh).
    await page.getByTestId('language-button').click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await expectText(page.getByTestId('greeting'), `Hello ${name}, welcome to Atendo`);
    await expectText(card, `Hello, ${name}!`);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.reload();
    await expectText(page.getByTestId('greeting'), `Hello ${name}, welcome to Atendo`);
    expect(page.url()).toBe(`${base}/`);
    await expectText(page.getByTestId('dashboard-greeting'), `Hello, ${name}!`);
    await menu(page, 'contacts').click();
    await expectText(page.getByTestId('contacts-page').getByRole('heading', { level: 1 }), 'Contacts');

    // Logout goes back to the sign-in page and forgets the token.
    await page.getByTestId('user-menu-button').click();
    await page.getByTestId('logout').click();
    await page.waitForURL(`${base}/login`);
    expect(await page.evaluate(() => window.localStorage.getItem('token'))).toBeNull();
    await expectText(page.getByRole('button', { name: 'Sign in' }), 'Sign in');

    // A private address opened while signed out is remembered through the sign-in.
    await page.goto(`${base}/quick-messages`);
    await page.waitForURL(`${base}/login`);
    await page.getByLabel('Email').fill(TEST_ADMIN_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/quick-messages`);
    await expectText(page.getByTestId('quick-messages-page').getByRole('heading', { level: 1 }), 'Quick replies');
    expect(s.errors).toEqual([]);
    expect(s.cspViolations).toEqual([]);
  });

  test('an attendant (profile user) has no admin section and no dashboard; a second login forces a sign-out', async () => {
    const attendant = await k.createUser(1, { profile: 'user', name: 'Ana Atendente' });
    const s = await open();
    const { page } = s;
    await signIn(page, attendant.email, attendant.password);
    await page.waitForURL(`${base}/tickets`);
    await expectText(page.getByTestId('greeting'), 'Olá Ana Atendente, bem-vindo a Atendo');
    await menu(page, 'kanban').waitFor();
    expect(await menu(page, 'tickets').count()).toBe(1);
    for (const key of ['dashboard', 'users', 'queues', 'connections', 'settings', 'companies', 'announcements']) expect(await menu(page, key).count()).toBe(0);
    expect(await page.getByText('Administração', { exact: true }).count()).toBe(0);
    expect(await page.getByTestId('due-date').count()).toBe(0);
    // The dashboard route sends attendants to /tickets; an admin page is refused and redirected.
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/tickets`);
    await page.goto(`${base}/users`);
    await page.getByText('Você não tem permissão para acessar esta página! Estamos lhe redirecionando.').waitFor();
    await page.waitForURL(`${base}/tickets`);

    // Signing in elsewhere with the same account: toast, then local storage cleared and reload to /login.
    await page.waitForFunction(() => true);
    await new Promise((r) => setTimeout(r, 500)); // let the socket join its rooms
    const other = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: attendant.email, password: attendant.password } });
    expect(other.statusCode).toBe(200);
    await page.getByText('Sua conta foi acessada em outro computador.').waitFor();
    await page.waitForURL(`${base}/login`, { timeout: 10_000 });
    expect(await page.evaluate(() => window.localStorage.getItem('token'))).toBeNull();
    expect(s.errors).toEqual([]);
  });

  test('a company whose plan lacks useKanban has no Kanban entry and cannot open /kanban', async () => {
    const { admin } = await k.createCompany({ name: 'Sem Kanban Ltda', without: ['useKanban'] });
    const s = await open();
    const { page } = s;
    await signIn(page, admin.email, admin.password);
    await page.waitForURL(`${base}/tickets`);
    await menu(page, 'schedules').waitFor(); // the plan is loaded: gated entries are shown
    expect(await menu(page, 'kanban').count()).toBe(0);
    expect(await menu(page, 'users').count()).toBe(1);
    expect(await menu(page, 'companies').count()).toBe(0);
    await expectText(page.getByTestId('greeting'), 'bem-vindo a Sem Kanban Ltda');
    await page.goto(`${base}/kanban`);
    await page.getByText('Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.').waitFor();
    await page.waitForURL(`${base}/`);
    await expectText(page.getByTestId('dashboard-greeting'), 'Sem Kanban Ltda');
    expect(await page.getByTestId('dashboard-greeting').locator('[data-feature="useKanban"][data-enabled="false"]').count()).toBe(1);
    expect(s.errors).toEqual([]);
    expect(s.cspViolations).toEqual([]);
  });
});

async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 10_000 });
}
