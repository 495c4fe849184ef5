/**
 * Browser test of the on-duty roster (/plantao) and the external messages API page (/messages-api): the real
 * API (createTestKernel with the tickets pipeline, plantao and messages-api plugins, a local WhatsApp Cloud
 * Graph server) and the shell's static server on random ports, driven by headless Chromium through
 * playwright-core. An admin adds an on-duty person with weekday hours, edits and removes it; an attendant
 * sends a text and an image through the API tester with a connection's token (both reach the Graph server,
 * into a ticket), a wrong token shows the translated error, and a company without useExternalApi is refused
 * the page. Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import channels from '../../../plugins/channels/src/index';
import connections from '../../../plugins/connections/src/index';
import contacts from '../../../plugins/contacts/src/index';
import messagesApi from '../../../plugins/messages-api/src/index';
import plantao from '../../../plugins/plantao/src/index';
import queues from '../../../plugins/queues/src/index';
import tags from '../../../plugins/tags/src/index';
import tickets from '../../../plugins/tickets/src/index';
import { createWebServer } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';

const describeBrowser = browserDescribe('microfrontends/admin/test/tools.browser.test.ts');

jest.setTimeout(180_000);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A local WhatsApp Cloud Graph API: accepts media uploads and message sends, and records the sends. */
async function startGraph(): Promise<{ url: string; sent: Record<string, unknown>[]; close(): Promise<void> }> {
  const sent: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && /^\/[^/]+\/media/.test(req.url ?? '')) return void res.end(JSON.stringify({ id: `media-${randomBytes(4).toString('hex')}` }));
      if (req.method === 'POST' && /^\/[^/]+\/messages/.test(req.url ?? '')) {
        try {
          sent.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        } catch {
          /* not JSON */
        }
        return void res.end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.OUT${randomBytes(6).toString('hex')}` }] }));
      }
      res.end(JSON.stringify({ id: 'x' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent, close: () => new Promise((r) => server.close(() => r())) };
}

describeBrowser('on-duty roster and messages API pages in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let graph: Awaited<ReturnType<typeof startGraph>>;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    buildWeb(240_000);
    graph = await startGraph();
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({
      plugins: [queues, tags, contacts, connections, tickets, channels, plantao, messagesApi],
      env: { FRONTEND_URL: base, CHANNELS_META_APP_SECRET: randomBytes(8).toString('hex'), CHANNELS_META_VERIFY_TOKEN: 'v', CHANNELS_META_GRAPH_URL: graph.url },
    });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 300_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await web?.close();
    await k?.close();
    await graph?.close();
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

  test('/plantao: add an on-duty person with weekday hours (the spec messages first), edit, remove; kept after a reload', async () => {
    const { companyId, admin } = await k.createCompany({ name: 'Plantão Ltda' });
    const ana = await k.createUser(companyId, { profile: 'user', name: 'Ana Plantonista' });
    const { page, errors } = await open();
    await signIn(page, admin.email, admin.password);
    await menu(page, 'plantao', '/plantao');
    await page.getByTestId('plantao-empty').waitFor();

    await page.getByTestId('plantao-add').click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar plantonista' });
    await dialog.getByTestId('plantao-save').click();
    await dialog.getByText('Informe o usuário').waitFor();
    await dialog.getByText('Informe o telefone').waitFor();
    await dialog.getByTestId('plantao-user').selectOption(String(ana.id));
    await dialog.getByTestId('plantao-phone').fill('5511988887777');
    await dialog.getByTestId('plantao-interval').fill('5');
    await dialog.getByTestId('plantao-start-monday').pressSequentially('0800');
    await dialog.getByTestId('plantao-save').click();
    await dialog.getByText('Informe o fim do plantão').waitFor();
    await dialog.getByTestId('plantao-end-monday').pressSequentially('1800');
    await dialog.getByTestId('plantao-save').click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('[data-testid^="plantao-row-"]', { hasText: 'Ana Plantonista' });
    await row.waitFor();
    expect(await row.textContent()).toContain('08:00–18:00');
    expect(await k.db('plantao_entries').where({ companyId }).first()).toMatchObject({ userId: ana.id, interval: 5 });

    await page.reload();
    await row.waitFor();
    await row.getByRole('button', { name: 'Editar Ana Plantonista' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar plantonista' });
    await edit.getByTestId('plantao-start-saturday').pressSequentially('0900');
    await edit.getByTestId('plantao-end-saturday').pressSequentially('1200');
    await edit.getByTestId('plantao-save').click();
    await edit.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="plantao-row-"]', { hasText: '09:00–12:00' }).waitFor();

    await row.getByRole('button', { name: 'Remover Ana Plantonista' }).click();
    await page.getByTestId('confirm-button').click();
    await page.getByText('Plantão removido com sucesso.').waitFor();
    await page.getByTestId('plantao-empty').waitFor();
    await page.reload();
    await page.getByTestId('plantao-empty').waitFor();
    expect(errors).toEqual([]);
  });

  test('/messages-api: an attendant tests a text and an image with a connection token; a wrong token is refused; a plan without useExternalApi is refused the page', async () => {
    const { companyId, admin } = await k.createCompany({ name: 'API Ltda' });
    const token = randomBytes(15).toString('hex').toUpperCase();
    const phoneId = String(3000000 + Math.floor(Math.random() * 1e6));
    const conn = await k.as(admin, 'POST', '/whatsapp', { name: 'Cloud API', channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: 'tok', token });
    expect(conn.statusCode).toBe(200);
    const agent = await k.createUser(companyId, { profile: 'user', name: 'Bruno Atendente' });
    const { page, errors } = await open();
    await signIn(page, agent.email, agent.password);
    await menu(page, 'messagesApi', '/messages-api');
    await page.getByTestId('messages-api-endpoint').waitFor();
    expect(await page.getByTestId('messages-api-endpoint').textContent()).toMatch(/\/api\/messages\/send$/);
    await page.getByTestId('messages-api-results-empty').waitFor();

    // A wrong token: the API's 401, translated.
    const text = page.getByTestId('messages-api-text-form');
    await text.getByTestId('text-token').fill('WRONGTOKEN');
    await text.getByTestId('text-number').fill('+55 11 97777-6666');
    await text.getByTestId('text-body').fill('Olá pelo testador');
    await text.getByTestId('text-send').click();
    await text.getByTestId('text-error').getByText('Token de conexão ausente ou inválido.').waitFor();

    // The right one, signed by the attendant.
    await text.getByTestId('text-token').fill(token);
    await text.getByTestId('text-user').selectOption(String(agent.id));
    await text.getByTestId('text-signature').check();
    await text.getByTestId('text-send').click();
    await page.getByText('Mensagem enviada com sucesso').first().waitFor();
    const result = page.locator('[data-testid^="messages-api-result-"]').first();
    await result.waitFor();
    await waitFor(() => (graph.sent.some((s) => s.to === '5511977776666' && (s.text as { body?: string } | undefined)?.body === '*Bruno Atendente:*\nOlá pelo testador') ? true : undefined), 10_000);
    const messageId = Number((await result.getAttribute('data-testid'))!.replace('messages-api-result-', ''));
    const message = await k.db('messages').where({ id: messageId }).first();
    expect(message).toMatchObject({ fromMe: true, companyId });
    expect(await k.db('tickets').where({ id: message.ticketId }).first()).toMatchObject({ companyId, userId: agent.id });

    // An image with a caption.
    const media = page.getByTestId('messages-api-media-form');
    await media.getByTestId('media-token').fill(token);
    await media.getByTestId('media-number').fill('5511977776666');
    await media.getByTestId('media-body').fill('Nosso cardápio');
    await media.getByTestId('media-file').setInputFiles({ name: 'cardapio.png', mimeType: 'image/png', buffer: PNG });
    await media.getByTestId('media-send').click();
    await page.locator('[data-testid^="messages-api-result-"]').nth(1).waitFor();
    await waitFor(() => (graph.sent.some((s) => s.to === '5511977776666' && s.type === 'image') ? true : undefined), 10_000);
    expect(await k.db('messages').where({ ticketId: message.ticketId, mediaType: 'image' }).first()).toMatchObject({ body: 'Nosso cardápio' });
    expect(errors).toEqual([]);

    // A company whose plan lacks useExternalApi: no menu entry, and the page refuses (toast, then home).
    const other = await k.createCompany({ name: 'Sem API', without: ['useExternalApi'] });
    const second = await open();
    await signIn(second.page, other.admin.email, other.admin.password);
    expect(await second.page.locator('[data-testid="side-menu"] [data-testid="menu-messagesApi"]').count()).toBe(0);
    await second.page.goto(`${base}/messages-api`);
    await second.page.waitForURL((url) => url.pathname !== '/messages-api', { timeout: 10_000 });
    expect(await second.page.getByTestId('messages-api-page').count()).toBe(0);
  });
});
