/**
 * Browser test of the admin area's announcements screen: the real API (createTestKernel with the
 * announcements plugin) and the shell's static server on random ports, driven by headless Chromium through
 * playwright-core (the shell's browser-test setup). The super admin opens /announcements from the side
 * menu, sees an existing announcement, adds one with an image (stored and listed with its file name), sees
 * one created elsewhere appear live, deletes one after confirming; an admin without the super flag is refused
 * by the shell and never downloads the area. Also reports the gzipped size of the area's JavaScript.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createTestKernel, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, waitFor, type TestKernel } from '@atendo/testing';
import announcements from '../../../plugins/announcements/src/index';
import { createWebServer, ROOT_DIR } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';

const describeBrowser = browserDescribe('microfrontends/admin/test/announcements.browser.test.ts');

jest.setTimeout(120_000);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

describeBrowser('announcements admin in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    buildWeb(240_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/admin/dist/remoteEntry.js'))).toBe(true);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [announcements], env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 300_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await web?.close();
    await k?.close();
  });

  async function open() {
    const profile = await launchProfile({ width: 1280, height: 800 });
    closers.push(profile.close);
    const errors: string[] = [];
    const areaScripts: { url: string; body: Buffer }[] = [];
    profile.page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));
    profile.page.on('response', async (res) => {
      if (!res.url().includes('/areas/admin/')) return;
      areaScripts.push({ url: res.url(), body: await res.body().catch(() => Buffer.alloc(0)) });
    });
    return { page: profile.page, errors, areaScripts };
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
  }

  const rowOf = (page: Page, title: string) => page.locator('[data-testid^="announcement-row-"]', { hasText: title });

  test('the super admin lists, adds with an image, sees live changes and deletes announcements', async () => {
    const existing = await k.as(k.superAdmin, 'POST', '/announcements/', { title: 'Manutenção programada', text: 'Sábado às 22h.', priority: 2 });
    expect(existing.statusCode).toBe(200);
    const { page, errors, areaScripts } = await open();
    await signIn(page, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    await page.locator('[data-testid="side-menu"] [data-testid="menu-announcements"]').click();
    await page.waitForURL(`${base}/announcements`);
    await rowOf(page, 'Manutenção programada').waitFor();
    expect(await rowOf(page, 'Manutenção programada').textContent()).toContain('Média');

    // Add, with an image: saved, then uploaded; listed at the top with its file name.
    await page.getByTestId('announcement-add').click();
    const dialog = page.getByRole('dialog', { name: 'Novo anúncio' });
    await dialog.getByRole('button', { name: 'Adicionar' }).click();
    expect(await dialog.getByText('Obrigatório').count()).toBe(2);
    await dialog.getByLabel('Título').fill('Nova versão');
    await dialog.getByLabel('Texto').fill('Confira as novidades.');
    await dialog.getByLabel('Prioridade').selectOption('1');
    await page.getByTestId('announcement-file').setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByRole('button', { name: 'Adicionar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rowOf(page, 'Nova versão').getByRole('link', { name: 'banner.png' }).waitFor();
    const stored = await k.db('announcements').where({ title: 'Nova versão' }).first();
    expect(stored).toMatchObject({ priority: 1, text: 'Confira as novidades.', mediaName: 'banner.png', status: true });
    const rows = await page.locator('[data-testid^="announcement-row-"] td.title').allTextContents();
    expect(rows.slice(0, 2)).toEqual(['Nova versão', 'Manutenção programada']);

    // Created elsewhere: appears live.
    const live = await k.as(k.superAdmin, 'POST', '/announcements/', { title: 'Aviso ao vivo', text: 'Oi' });
    expect(live.statusCode).toBe(200);
    await rowOf(page, 'Aviso ao vivo').waitFor();

    // Delete after confirming.
    await rowOf(page, 'Manutenção programada').getByRole('button', { name: 'Excluir Manutenção programada' }).click();
    await page.getByRole('dialog', { name: 'Excluir Manutenção programada?' }).getByTestId('confirm-button').click();
    await rowOf(page, 'Manutenção programada').waitFor({ state: 'detached' });
    await waitFor(async () => (await k.db('announcements').where({ id: existing.json().id }).first()) === undefined);
    expect(errors).toEqual([]);

    const gz = areaScripts.reduce((sum, s) => sum + gzipSync(s.body, { level: 9 }).length, 0);
    console.log(`admin area JavaScript loaded for /announcements: ${areaScripts.length} files, ${(gz / 1024).toFixed(1)} KB gzipped`);
  });

  test('an admin without the super flag is refused and never downloads the area', async () => {
    const { admin } = await k.createCompany({ name: 'Sem Super Ltda' });
    const { page, errors, areaScripts } = await open();
    await signIn(page, admin.email, admin.password);
    expect(await page.locator('[data-testid="side-menu"] [data-testid="menu-announcements"]').count()).toBe(0);
    await page.goto(`${base}/announcements`);
    await page.getByText('Você não tem permissão para acessar esta página! Estamos lhe redirecionando.').waitFor();
    await page.waitForURL(`${base}/`);
    expect(areaScripts).toEqual([]);
    expect(errors).toEqual([]);
  });
});
