/**
 * The /contacts page in a real browser (issue 13 item 1): the built web UI (shell/serve.ts, the agent area)
 * against the real API (createTestKernel with queues, tags, contacts, connections and tickets), driven by
 * headless Chromium (playwright-core, /usr/bin/chromium):
 * - an admin creates a contact with an extra info field and a tag through the dialog; it is stored and
 *   listed; another attendant's edit shows live (company-{id}-contact);
 * - a sheet imported from the page (one bad row) shows its progress to the end, the refused row, and the
 *   contacts it created;
 * - an attendant with lgpdHideNumber on sees the number masked.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import ExcelJS from 'exceljs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, CHROMIUM, CHROMIUM_ARGS, freePort } from '../shell/test/harness';

const describeBrowser = browserDescribe('e2e/browser-contacts.test.ts');
jest.setTimeout(240_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const EXPECTED_4XX = /^Failed to load resource: the server responded with a status of 4\d\d/;

describeBrowser('the contacts page in Chromium (issue 13 item 1)', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let admin: TestUser;
  let companyId: number;
  let dir: string;
  const people = {
    boss: { email: `boss.${randomBytes(3).toString('hex')}@example.com`, password: 'senha-' + randomBytes(4).toString('hex') },
    ana: { email: `ana.${randomBytes(3).toString('hex')}@example.com`, password: 'senha-' + randomBytes(4).toString('hex') },
  };
  let vip: Json;
  const contexts: { context: BrowserContext; errors: string[] }[] = [];

  async function api(user: TestUser, method: string, url: string, payload?: unknown) {
    const res = await k.as(user, method, url, payload);
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  beforeAll(async () => {
    buildWeb(300_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/agent/dist/remoteEntry.js'))).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'atendo-contacts-e2e-'));
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin], env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
    ({ companyId, admin } = await k.createCompany({ name: 'Loja dos Contatos' }));
    const queue = await api(admin, 'POST', '/queue', { name: 'Suporte', color: '#43A047' });
    await api(admin, 'POST', '/users', { name: 'Bia Chefe', email: people.boss.email, password: people.boss.password, profile: 'admin', queueIds: [queue.id] });
    await api(admin, 'POST', '/users', { name: 'Ana Atendente', email: people.ana.email, password: people.ana.password, profile: 'user', queueIds: [queue.id] });
    vip = await api(admin, 'POST', '/tags', { name: 'VIP', color: '#E91E63', kanban: 0 });
  }, 360_000);

  afterAll(async () => {
    for (const c of contexts) await c.context.close().catch(() => undefined);
    await web?.close();
    await k?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(who: { email: string; password: string }): Promise<{ page: Page; errors: string[] }> {
    const context = await chromium.launchPersistentContext(mkdtempSync(join(dir, 'profile-')), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 900 }, locale: 'pt-BR' });
    const errors: string[] = [];
    contexts.push({ context, errors });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !EXPECTED_4XX.test(msg.text())) errors.push(msg.text());
    });
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(who.email);
    await page.getByLabel('Senha', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
    await page.getByTestId('menu-contacts').click();
    await page.waitForURL(`${base}/contacts`);
    await page.getByTestId('contacts-page').waitFor({ timeout: 30_000 });
    return { page, errors };
  }

  test('an admin creates a contact with extra info and a tag; an edit elsewhere shows live; a sheet import runs to the end', async () => {
    const { page, errors } = await open(people.boss);
    await page.getByTestId('contacts-empty').waitFor();

    await page.getByTestId('contact-add').click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar contato' });
    await dialog.getByTestId('contact-name').fill('Carla Cliente');
    await dialog.getByTestId('contact-number').fill('(11) 98765-4321');
    await dialog.getByTestId('contact-email').fill('carla@example.com');
    await dialog.getByTestId('contact-extra-add').click();
    await dialog.getByTestId('contact-extra-0').getByLabel('Nome do campo').fill('CPF');
    await dialog.getByTestId('contact-extra-0').getByLabel('Valor').fill('123.456.789-00');
    await dialog.getByRole('button', { name: 'VIP' }).click();
    await dialog.getByTestId('contact-submit').click();
    await page.getByText('Contato salvo com sucesso!').waitFor();

    const stored = await waitFor(() => k.db('contacts').where({ companyId, name: 'Carla Cliente' }).first(), 10_000);
    expect(stored).toMatchObject({ number: '5511987654321', email: 'carla@example.com' });
    expect(await k.db('contact_extra_info').where({ contactId: stored.id }).select('name', 'value')).toEqual([{ name: 'CPF', value: '123.456.789-00' }]);
    expect((await k.db('contact_tags').where({ contactId: stored.id }).select('tagId')).map((r: { tagId: number }) => r.tagId)).toEqual([vip.id]);
    const row = page.getByTestId(`contact-row-${stored.id}`);
    await row.getByText('VIP').waitFor();
    expect(await row.getByTestId('contact-number-cell').textContent()).toBe('5511987654321');

    // Another attendant renames the contact: the row follows (company-{id}-contact).
    await api(admin, 'PUT', `/contacts/${stored.id}`, { name: 'Carla Cliente Silva', number: '5511987654321' });
    await row.getByText('Carla Cliente Silva').waitFor({ timeout: 10_000 });

    // A sheet of three rows, one bad: progress to the end, the refused row named, the list reloaded.
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Contatos');
    ws.addRow(['Nome', 'Telefone', 'Email']);
    ws.addRow(['Davi Planilha', 5511912340001, '']);
    ws.addRow(['Número ruim', 'abc', '']);
    ws.addRow(['Eva Planilha', '5511912340002', 'eva@example.com']);
    const file = join(dir, 'contatos.xlsx');
    writeFileSync(file, Buffer.from(await wb.xlsx.writeBuffer()));
    await page.getByTestId('contacts-import-file').setInputFiles(file);
    const status = page.getByTestId('contacts-import-status');
    await page.locator('[data-testid="contacts-import-status"][data-status="done"]').waitFor({ timeout: 20_000 });
    expect(await status.getByTestId('contacts-import-progress').textContent()).toBe('3 de 3');
    expect(await status.getByTestId('contacts-import-counts').textContent()).toBe('2 criados, 0 atualizados, 1 com erro');
    expect(await status.getByTestId('contacts-import-errors').textContent()).toContain('Linha 3');
    await page.getByTestId('contacts-rows').getByText('Eva Planilha').waitFor({ timeout: 10_000 });
    await page.getByTestId('contacts-rows').getByText('Davi Planilha').waitFor();
    expect(errors).toEqual([]);
  });

  test('an attendant sees numbers masked when lgpdHideNumber is on, and cannot delete', async () => {
    await api(admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'enabled' });
    const { page, errors } = await open(people.ana);
    const row = page.getByTestId('contacts-rows').locator('tr', { hasText: 'Carla Cliente Silva' });
    await row.waitFor();
    expect(await row.getByTestId('contact-number-cell').textContent()).toBe('55119******21');
    expect(await row.getByRole('button', { name: /^Excluir/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
