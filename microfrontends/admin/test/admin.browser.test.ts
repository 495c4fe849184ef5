/**
 * Browser test of the admin area's company screens: the real API (createTestKernel with the queues and
 * connections plugins) and the shell's static server on random ports, driven by headless Chromium through
 * playwright-core (the shell's browser-test setup). A tenant admin starting from an empty company creates a
 * queue with a two-level chatbot tree, a user serving that queue, a WhatsApp Cloud API connection serving
 * it with a greeting, a tag and a kanban tag, changes two settings, and sees each of them after a reload; a Baileys connection's
 * pushed QR string renders as a QR image; a user profile cannot open these pages. Skipped, with a message,
 * when /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import { connectionsService } from '@atendo/plugin-connections/contract';
import connections from '../../../plugins/connections/src/index';
import queues from '../../../plugins/queues/src/index';
import tags from '../../../plugins/tags/src/index';
import { createWebServer, ROOT_DIR } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';

const describeBrowser = browserDescribe('microfrontends/admin/test/admin.browser.test.ts');

jest.setTimeout(180_000);

describeBrowser('company administration in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    buildWeb(240_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/admin/dist/remoteEntry.js'))).toBe(true);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [queues, connections, tags], env: { FRONTEND_URL: base } });
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
    const profile = await launchProfile({ width: 1366, height: 900 });
    closers.push(profile.close);
    const errors: string[] = [];
    profile.page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));
    return { page: profile.page, errors };
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
  }

  async function menu(page: Page, key: string, path: string): Promise<void> {
    await page.locator(`[data-testid="side-menu"] [data-testid="menu-${key}"]`).click();
    await page.waitForURL(`${base}${path}`);
  }

  test('a tenant admin sets up an empty company: queue with a two-level chatbot, user, WhatsApp Cloud connection, tag, kanban tag, two settings; all listed after a reload', async () => {
    const { companyId, admin } = await k.createCompany({ name: 'Padaria Central' });
    const { page, errors } = await open();
    await signIn(page, admin.email, admin.password);

    // Queue with a two-level chatbot tree.
    await menu(page, 'queues', '/queues');
    await page.getByTestId('queues-empty').waitFor();
    await page.getByTestId('queue-add').click();
    let dialog = page.getByRole('dialog', { name: 'Adicionar fila' });
    await dialog.getByTestId('queue-name').fill('Encomendas');
    await dialog.getByRole('button', { name: '#43a047' }).click();
    await dialog.getByTestId('queue-greeting').fill('Olá! Bem-vindo às encomendas.');
    await dialog.getByTestId('tab-chatbot').click();
    await dialog.getByTestId('chatbot-add-root').click();
    await dialog.getByTestId('option-1-name').fill('Bolos');
    expect(await dialog.getByTestId('option-1-add').isDisabled()).toBe(true);
    await dialog.getByTestId('option-1-message').fill('Escolha: 1 chocolate, 2 morango');
    await dialog.getByTestId('option-1-add').click();
    await dialog.getByTestId('option-1-add').click();
    await dialog.getByTestId('option-1.1-name').fill('Chocolate');
    await dialog.getByTestId('option-1.1-message').fill('Chocolate: R$ 50');
    await dialog.getByTestId('option-1.2-name').fill('Morango');
    await dialog.getByTestId('option-1.2-message').fill('Morango: R$ 55');
    await dialog.getByTestId('queue-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="queue-row-"]', { hasText: 'Encomendas' }).waitFor();
    const queue = await k.db('queues').where({ companyId, name: 'Encomendas' }).first();
    expect(queue).toMatchObject({ color: '#43a047' });
    const roots = await k.db('chatbots').where({ queueId: queue.id });
    expect(roots.map((r: { name: string }) => r.name)).toEqual(['Bolos']);
    const subs = await k.db('chatbots').where({ chatbotId: roots[0].id }).orderBy('order');
    expect(subs.map((r: { name: string }) => r.name)).toEqual(['Chocolate', 'Morango']);

    // A user serving that queue.
    await menu(page, 'users', '/users');
    await page.getByTestId('user-add').click();
    dialog = page.getByRole('dialog', { name: 'Adicionar usuário' });
    await dialog.getByTestId('user-name').fill('Carla Confeiteira');
    await dialog.getByTestId('user-email').fill('carla@padaria.test');
    await dialog.getByTestId('user-password').fill('segredo123');
    await dialog.getByRole('button', { name: 'Encomendas' }).click();
    await dialog.getByTestId('user-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="user-row-"]', { hasText: 'Carla Confeiteira' }).waitFor();

    // A WhatsApp Cloud API connection serving the queue, with a greeting.
    await menu(page, 'connections', '/connections');
    await page.getByTestId('connection-new').click();
    await page.getByTestId('new-whatsappapi').click();
    dialog = page.getByRole('dialog', { name: 'Nova conexão: WhatsApp Cloud API' });
    await dialog.getByTestId('connection-name').fill('Padaria Cloud');
    await dialog.getByTestId('connection-account').fill('100200300400');
    await dialog.getByTestId('connection-access-token').fill('EAAG-test-token');
    await dialog.getByRole('button', { name: 'Encomendas' }).click();
    await dialog.getByTestId('tab-messages').click();
    await dialog.getByTestId('connection-greeting').fill('Bom dia! Como podemos ajudar?');
    await dialog.getByTestId('connection-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="connection-row-"]', { hasText: 'Padaria Cloud' }).waitFor();

    // A tag and a kanban tag.
    await menu(page, 'tags', '/tags');
    await page.getByTestId('tag-add').click();
    dialog = page.getByRole('dialog', { name: 'Adicionar tag' });
    await dialog.getByTestId('tag-name').fill('Cliente fiel');
    await dialog.getByTestId('tag-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="tag-row-"]', { hasText: 'Cliente fiel' }).waitFor();
    await page.goto(`${base}/tagsKanban`);
    await page.getByTestId('tag-add').click();
    dialog = page.getByRole('dialog', { name: 'Adicionar tag do Kanban' });
    await dialog.getByTestId('tag-name').fill('Em produção');
    await dialog.getByTestId('tag-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="tag-row-"]', { hasText: 'Em produção' }).waitFor();

    // Two settings.
    await menu(page, 'settings', '/settings');
    await page.getByTestId('setting-userRating').selectOption('enabled');
    await page.getByText('Operação realizada com sucesso!').first().waitFor();
    await page.getByTestId('setting-requiredTag').selectOption('enabled');
    await waitFor(async () => (await k.db('companySettings').where({ companyId, key: 'requiredTag' }).first())?.value === 'enabled', 5000);

    // After a reload, everything is there.
    await page.reload();
    expect(await page.getByTestId('setting-userRating').inputValue()).toBe('enabled');
    expect(await page.getByTestId('setting-requiredTag').inputValue()).toBe('enabled');
    await menu(page, 'queues', '/queues');
    await page.reload();
    await page.locator('[data-testid^="queue-row-"]', { hasText: 'Encomendas' }).waitFor();
    await page.getByRole('button', { name: 'Editar Encomendas' }).click();
    dialog = page.getByRole('dialog', { name: 'Editar fila' });
    await dialog.getByTestId('tab-chatbot').click();
    expect(await dialog.getByTestId('option-1.2-name').inputValue()).toBe('Morango');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await menu(page, 'users', '/users');
    const carla = page.locator('[data-testid^="user-row-"]', { hasText: 'Carla Confeiteira' });
    await carla.waitFor();
    expect(await carla.textContent()).toContain('Encomendas');
    await menu(page, 'connections', '/connections');
    const cloud = page.locator('[data-testid^="connection-row-"]', { hasText: 'Padaria Cloud' });
    await cloud.waitFor();
    expect(await cloud.textContent()).toContain('WhatsApp Cloud API');
    const stored = await k.db('whatsapps').where({ companyId, name: 'Padaria Cloud' }).first();
    expect(stored).toMatchObject({ channel: 'whatsappapi', greetingMessage: 'Bom dia! Como podemos ajudar?' });
    await menu(page, 'tags', '/tags');
    await page.locator('[data-testid^="tag-row-"]', { hasText: 'Cliente fiel' }).waitFor();
    expect(await page.locator('[data-testid^="tag-row-"]', { hasText: 'Em produção' }).count()).toBe(0);
    await page.goto(`${base}/tagsKanban`);
    await page.locator('[data-testid^="tag-row-"]', { hasText: 'Em produção' }).waitFor();
    expect(errors).toEqual([]);
  });

  test("a Baileys connection's pushed QR string renders as a QR image, which goes when the session connects", async () => {
    const { companyId, admin } = await k.createCompany({ name: 'Loja QR' });
    const created = await k.as(admin, 'POST', '/whatsapp', { name: 'Celular da loja', channel: 'whatsapp' });
    expect(created.statusCode).toBe(200);
    const id = created.json().id as number;
    const { page, errors } = await open();
    await signIn(page, admin.email, admin.password);
    await menu(page, 'connections', '/connections');
    await page.getByTestId(`connection-row-${id}`).waitFor();
    const svc = k.services.get(connectionsService);
    await svc.updateStatus(companyId, id, { status: 'qrcode', qrcode: '2@Zm9vYmFy,cXJjb2Rl,dGVzdA==', retries: 1 });
    await page.getByTestId(`qr-${id}`).click();
    const qr = page.getByRole('dialog', { name: 'QR code de Celular da loja' }).getByTestId('qr-code');
    await qr.waitFor();
    expect(await qr.getAttribute('data-value')).toBe('2@Zm9vYmFy,cXJjb2Rl,dGVzdA==');
    const box = await qr.boundingBox();
    expect(box && box.width).toBeGreaterThan(200);
    expect(await qr.locator('path').count()).toBeGreaterThan(0);
    await svc.updateStatus(companyId, id, { status: 'CONNECTED', qrcode: '' });
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByTestId(`status-${id}`).getByText('Conectado').waitFor();
    expect(errors).toEqual([]);
  });

  test('a user profile cannot open the admin pages: error toast, then back to /tickets', async () => {
    const { companyId } = await k.createCompany({ name: 'Sem Acesso' });
    const user = await k.createUser(companyId, { profile: 'user' });
    const { page } = await open();
    await signIn(page, user.email, user.password);
    expect(await page.locator('[data-testid="side-menu"] [data-testid="menu-users"]').count()).toBe(0);
    for (const path of ['/users', '/queues', '/connections', '/settings']) {
      await page.goto(`${base}${path}`);
      await page.getByText('Você não tem permissão para acessar esta página! Estamos lhe redirecionando.').first().waitFor();
      await page.waitForURL(`${base}/tickets`);
    }
  });
});
