/**
 * The attendant's day in a real browser (issue 20): the built web UI (shell/serve.ts) against the real API
 * (createTestKernel with the plugins the inbox uses) and a local Graph server standing in for Meta, driven
 * by headless Chromium (playwright-core; fake camera and microphone, notifications granted). Customers write
 * through signed WhatsApp Cloud webhooks (fixtures/channels/whatsapp-cloud).
 *
 * - the bell and the sound on /chats when a customer writes (badge, list, desktop notification, tab title);
 * - tagging a ticket in the header, and closing from the row under requiredTag (the contact's tag selector);
 * - a voice note recorded in the browser reaching Graph as OGG/Opus, sent as `audio`;
 * - each list filter narrowing the list (departments, unread, period);
 * - a new number from the new-ticket modal;
 * - emoji (emoji-mart) and a pasted image;
 * - the contact drawer's edits (number, extra info, toggles, tags);
 * - lgpdDeleteMessage off and on for a message the customer deleted; an unsupported type's placeholder.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import chatsPlugin from '@atendo/plugin-chats';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, CHROMIUM, CHROMIUM_ARGS, freePort } from '../shell/test/harness';
import { metaSerialize, rewriteAccount, sign } from '../scripts/replay';

const describeBrowser = browserDescribe('e2e/browser-inbox.test.ts');

jest.setTimeout(240_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const FIXTURES = join(__dirname, '..', 'fixtures', 'channels');
const fixture = (file: string) => JSON.parse(readFileSync(join(FIXTURES, 'whatsapp-cloud', file), 'utf8')) as Json;

const SECRET = randomBytes(16).toString('hex');
const PHONE_ID = '300000000000077';
const TOKEN = 'EAAG-inbox-' + randomBytes(6).toString('hex');
const PLUGINS = [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, chatsPlugin];
const EXPECTED_4XX = /^Failed to load resource: the server responded with a status of 4\d\d/;

interface GraphCall {
  method: string;
  path: string;
  contentType: string;
  raw: Buffer;
  body: Json;
}

/** A local Graph API: records every call (with its raw bytes) and answers like Meta's endpoints. */
async function startGraph(): Promise<{ server: Server; url: string; calls: GraphCall[] }> {
  let n = 0;
  const calls: GraphCall[] = [];
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Json = {};
      try {
        body = JSON.parse(raw.toString('utf8') || '{}');
      } catch {
        /* multipart media upload */
      }
      calls.push({ method: req.method ?? '', path: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), raw, body });
      res.setHeader('content-type', 'application/json');
      if ((req.url ?? '').endsWith('/media')) return res.end(JSON.stringify({ id: `MEDIA${++n}` }));
      if (req.method === 'POST' && /\/messages$/.test(req.url ?? '')) return res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.INBOX${++n}` }] }));
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

interface Browser {
  context: BrowserContext;
  page: Page;
  errors: string[];
  consoleErrors: string[];
  close(): Promise<void>;
}

/**
 * Records, in the page, the notification tones (oscillators started) and the desktop notifications shown
 * (`__tones`, `__notifications`; `__clickLast()` clicks the last one). Plain JavaScript: it runs in the page.
 */
const PAGE_PROBES = `
  window.__tones = 0;
  window.__notifications = [];
  const create = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.__tones++; return create.call(this); };
  const Native = window.Notification;
  let last;
  class Recorded extends Native {
    constructor(title, options) { super(title, options); window.__notifications.push({ title, body: options && options.body }); last = this; }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Native.permission });
  window.Notification = Recorded;
  window.__clickLast = () => last && last.onclick && last.onclick(new Event('click'));
`;

/** Reads a value the page probes keep (`__tones`, `__notifications`). */
const probe = <T>(page: Page, name: string): Promise<T> => page.evaluate(`window.${name}`) as Promise<T>;

describeBrowser('the attendant’s day in Chromium (issue 20)', () => {
  let k: TestKernel;
  let graph: Awaited<ReturnType<typeof startGraph>>;
  let web: FastifyInstance;
  let base: string;
  let apiUrl: string;
  let admin: TestUser;
  let companyId: number;
  let suporte: Json;
  let vendas: Json;
  let cloud: Json;
  const ana = { email: `ana.${randomBytes(3).toString('hex')}@example.com`, password: 'senha-' + randomBytes(4).toString('hex'), id: 0 };
  const browsers: Browser[] = [];

  beforeAll(async () => {
    buildWeb(300_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/inbox/dist/remoteEntry.js'))).toBe(true);
    graph = await startGraph();
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: PLUGINS, env: { FRONTEND_URL: base, CHANNELS_META_APP_SECRET: SECRET, CHANNELS_META_VERIFY_TOKEN: 'verify-me', CHANNELS_META_GRAPH_URL: graph.url } });
    apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
    ({ companyId, admin } = await k.createCompany({ name: 'Loja do Dia' }));
    suporte = await api(admin, 'POST', '/queue', { name: 'Suporte', color: '#43A047' });
    vendas = await api(admin, 'POST', '/queue', { name: 'Vendas', color: '#1E88E5' });
    cloud = await api(admin, 'POST', '/whatsapp', { name: 'WhatsApp Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: TOKEN, queueIds: [suporte.id] });
    const user = await api(admin, 'POST', '/users', { name: 'Ana Atendente', email: ana.email, password: ana.password, profile: 'user', queueIds: [suporte.id] });
    ana.id = user.id;
    await api(admin, 'POST', '/tags', { name: 'VIP', color: '#E91E63', kanban: 0 });
  }, 360_000);

  afterAll(async () => {
    for (const b of browsers) await b.close().catch(() => undefined);
    await web?.close();
    await k?.close();
    await new Promise((r) => graph?.server.close(r));
  });

  async function api(user: TestUser, method: string, url: string, payload?: unknown) {
    const res = await k.as(user, method, url, payload);
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  /** Chromium with a fake camera and microphone, notifications granted, the page probes installed. */
  async function launch(): Promise<Browser> {
    const dir = mkdtempSync(join(tmpdir(), 'atendo-chromium-'));
    const context = await chromium.launchPersistentContext(dir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required'],
      viewport: { width: 1440, height: 900 },
      locale: 'pt-BR',
    });
    await context.grantPermissions(['notifications', 'microphone', 'camera', 'clipboard-read', 'clipboard-write'], { origin: base });
    await context.addInitScript({ content: PAGE_PROBES });
    const page = context.pages()[0] ?? (await context.newPage());
    const b: Browser = {
      context,
      page,
      errors: [],
      consoleErrors: [],
      close: async () => {
        await context.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    page.on('pageerror', (err) => b.errors.push(String(err?.stack ?? err)));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !EXPECTED_4XX.test(msg.text())) b.consoleErrors.push(msg.text());
    });
    browsers.push(b);
    return b;
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
    await page.getByTestId('tickets-manager').waitFor({ timeout: 20_000 });
  }

  /** A customer writes: a text webhook (as Meta signs it) from `number` named `name`; returns the message id. */
  async function customerWrites(name: string, number: string, text: string): Promise<string> {
    const body = fixture('text.json');
    const value = body.entry[0].changes[0].value;
    const wamid = `wamid.IN${randomBytes(8).toString('hex')}`;
    value.contacts[0].profile.name = name;
    value.contacts[0].wa_id = number;
    value.messages[0].from = number;
    value.messages[0].id = wamid;
    value.messages[0].timestamp = String(Math.floor(Date.now() / 1000));
    value.messages[0].text.body = text;
    expect(await deliver(body)).toBe(200);
    return wamid;
  }

  async function deliver(body: Json): Promise<number> {
    const bytes = metaSerialize(rewriteAccount(body, PHONE_ID)!.body);
    const res = await fetch(`${apiUrl}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) }, body: bytes });
    return res.status;
  }

  const ticketOf = async (name: string) => waitFor(() => k.db('tickets').join('contacts', 'contacts.id', 'tickets.contactId').where({ 'contacts.name': name, 'tickets.companyId': companyId }).orderBy('tickets.id', 'desc').first('tickets.*'), 15_000);
  const row = (page: Page, name: string) => page.locator('[data-testid="ticket-row"]', { hasText: name });
  const setting = (column: string, data: string) => api(admin, 'PUT', '/companySettings', { column, data });

  /** Accepts the pending ticket of `name` from the pending tab and waits for its conversation. */
  async function accept(page: Page, name: string): Promise<Json> {
    await page.getByTestId('tab-open').click();
    await page.getByTestId('subtab-pending').click();
    await row(page, name).getByTestId('ticket-accept').click();
    const t = await ticketOf(name);
    await page.waitForURL(`${base}/tickets/${t.uuid}`, { timeout: 15_000 });
    await page.getByTestId('conversation').waitFor({ timeout: 20_000 });
    return t;
  }

  test('the bell, the sound, a desktop notification and the tab title on /chats when a customer writes', async () => {
    const b = await launch();
    const { page } = b;
    await signIn(page, ana.email, ana.password);
    await page.goto(`${base}/chats`);
    await page.getByTestId('notifications-button').waitFor();
    await page.waitForTimeout(800); // the socket joins its audiences
    expect(await page.getByTestId('notifications-badge').count()).toBe(0);

    await customerWrites('Carla Cliente', '5511911110001', 'Olá, preciso de ajuda com meu pedido');
    await page.getByTestId('notifications-badge').filter({ hasText: /^1$/ }).waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${base}/chats`);
    await waitFor(async () => (await probe<number>(page, '__tones')) > 0, 10_000);
    const shown = await probe<{ title: string; body?: string }[]>(page, '__notifications');
    expect(shown).toEqual([{ title: 'Carla Cliente', body: 'Olá, preciso de ajuda com meu pedido' }]);
    await waitFor(async () => (await page.title()).startsWith('(1) '), 10_000);

    await page.getByTestId('notifications-button').click();
    const item = page.getByTestId('notification-item').filter({ hasText: 'Carla Cliente' });
    expect(await item.textContent()).toContain('Aguardando');
    // A click on the desktop notification opens the ticket.
    await page.keyboard.press('Escape');
    await page.evaluate('window.__clickLast()');
    const t = await ticketOf('Carla Cliente');
    await page.waitForURL(`${base}/tickets/${t.uuid}`, { timeout: 15_000 });
    await page.getByTestId('conversation').waitFor({ timeout: 20_000 });
    expect(b.errors).toEqual([]);
  });

  test('tagging a ticket in the header; closing from the row under requiredTag opens the contact’s tag selector, then closes', async () => {
    const b = await launch();
    const { page } = b;
    await customerWrites('Davi Etiqueta', '5511911110002', 'Quero trocar um produto');
    await customerWrites('Elis Obrigatória', '5511911110003', 'Bom dia');
    await signIn(page, ana.email, ana.password);
    const davi = await accept(page, 'Davi Etiqueta');
    await page.getByTestId('action-tags').click();
    await page.getByTestId('ticket-tag-picker').getByTestId('tag-option').filter({ hasText: 'VIP' }).click();
    await page.getByTestId('ticket-tags').getByTestId('ticket-tag').filter({ hasText: 'VIP' }).waitFor({ timeout: 10_000 });
    // The ticket's row shows it too (the ticket update event).
    await row(page, 'Davi Etiqueta').getByTestId('ticket-tag').filter({ hasText: 'VIP' }).waitFor({ timeout: 10_000 });
    const links = await k.db('ticketTags').where({ ticketId: davi.id });
    expect(links).toHaveLength(1);
    await page.keyboard.press('Escape');

    await setting('requiredTag', 'enabled');
    const elis = await accept(page, 'Elis Obrigatória');
    await page.getByTestId('tab-open').click();
    await page.getByTestId('subtab-open').click();
    await row(page, 'Elis Obrigatória').getByTestId('ticket-close').click();
    await page.getByTestId('resolve-normal').click();
    const warning = page.getByTestId('required-tag-message');
    await warning.waitFor({ timeout: 10_000 });
    expect(await warning.textContent()).toBe('Adicione uma tag ao contato antes de finalizar o ticket.');
    expect((await k.db('tickets').where({ id: elis.id }).first()).status).toBe('open');
    // The header's close shows the same text (the row's and the header's close are one flow).
    await page.getByTestId('required-tag-picker').getByTestId('tag-option').filter({ hasText: 'VIP' }).click();
    await waitFor(() => page.getByTestId('required-tag-close').isEnabled(), 10_000);
    await page.getByTestId('required-tag-close').click();
    await waitFor(async () => (await k.db('tickets').where({ id: elis.id }).first()).status === 'closed', 15_000);
    expect(await k.db('contactTags').where({ contactId: elis.contactId })).toHaveLength(1);
    await setting('requiredTag', 'disabled');
    expect(b.errors).toEqual([]);
  });

  test('a voice note recorded in the browser reaches Graph as OGG/Opus, sent as type audio', async () => {
    const b = await launch();
    const { page } = b;
    await customerWrites('Fábio Áudio', '5511911110004', 'Pode mandar um áudio?');
    await signIn(page, ana.email, ana.password);
    await accept(page, 'Fábio Áudio');
    const before = graph.calls.length;
    await page.getByTestId('record-button').click();
    await page.getByTestId('recording').waitFor({ timeout: 10_000 });
    await page.waitForTimeout(3000);
    await page.getByRole('button', { name: 'Enviar áudio' }).click();
    const upload = (await waitFor(() => graph.calls.slice(before).find((c) => c.path.endsWith(`/${PHONE_ID}/media`)), 20_000)) as GraphCall;
    const text = upload.raw.toString('latin1');
    expect(text).toMatch(/name="type"\r\n\r\naudio\/ogg/);
    expect(text).toContain('OggS');
    expect(text).toContain('OpusHead');
    const sent = (await waitFor(() => graph.calls.slice(before).find((c) => c.path.endsWith(`/${PHONE_ID}/messages`) && c.body.type === 'audio'), 20_000)) as GraphCall;
    expect(sent.body).toMatchObject({ type: 'audio', audio: { id: expect.stringMatching(/^MEDIA/) }, to: '5511911110004' });
    await page.locator('[data-testid="message"] audio').first().waitFor({ timeout: 15_000 });
    expect(b.errors).toEqual([]);
  });

  test('each filter narrows the list: departments, unread only, period', async () => {
    const b = await launch();
    const { page } = b;
    await customerWrites('Gil Suporte', '5511911110005', 'Filtro um');
    await customerWrites('Helena Vendas', '5511911110006', 'Filtro dois');
    const helena = await ticketOf('Helena Vendas');
    await api(admin, 'PUT', `/tickets/${helena.id}`, { queueId: vendas.id, userId: null, status: 'pending' });
    await signIn(page, admin.email, admin.password);
    await page.getByTestId('subtab-pending').click();
    await row(page, 'Gil Suporte').waitFor({ timeout: 15_000 });
    await row(page, 'Helena Vendas').waitFor({ timeout: 15_000 });

    // Departments: Vendas only.
    await page.getByTestId('filter-queues').click();
    await page.getByRole('dialog', { name: 'Filas' }).getByLabel('Vendas').check();
    await page.keyboard.press('Escape');
    await row(page, 'Gil Suporte').waitFor({ state: 'detached', timeout: 10_000 });
    // The filtered answer: Helena in it (the list may re-render in between), Gil not.
    await row(page, 'Helena Vendas').waitFor({ timeout: 10_000 });
    expect(await row(page, 'Gil Suporte').count()).toBe(0);
    await page.getByTestId('filter-queues').click();
    await page.getByRole('dialog', { name: 'Filas' }).getByLabel('Vendas').uncheck();
    await page.keyboard.press('Escape');
    await row(page, 'Gil Suporte').waitFor({ timeout: 10_000 });

    // Unread only: Gil's messages read (the admin opens the conversation after accepting... here: marked read on the server).
    await k.as(admin, 'GET', `/messages/${(await ticketOf('Gil Suporte')).id}`);
    await page.getByTestId('filter-unread').check();
    await row(page, 'Gil Suporte').waitFor({ state: 'detached', timeout: 10_000 });
    // The filtered answer: Helena in it (Gil's row also leaves while the list reloads), Gil not.
    await row(page, 'Helena Vendas').waitFor({ timeout: 10_000 });
    expect(await row(page, 'Helena Vendas').count()).toBe(1);
    expect(await row(page, 'Gil Suporte').count()).toBe(0);
    await page.getByTestId('filter-unread').uncheck();
    await row(page, 'Gil Suporte').waitFor({ timeout: 10_000 });

    // Period: last year only -> nothing; cleared -> both again.
    await page.getByTestId('filter-period').click();
    const year = new Date().getFullYear() - 1;
    await page.getByTestId('filter-date-from').fill(`${year}-01-01`);
    await page.getByTestId('filter-date-to').fill(`${year}-12-31`);
    await page.getByTestId('tickets-empty').waitFor({ timeout: 10_000 });
    await page.getByTestId('filter-period-clear').click();
    await row(page, 'Helena Vendas').waitFor({ timeout: 10_000 });
    expect(b.errors).toEqual([]);
  });

  test('a new number from the new-ticket modal: the contact is created and its conversation opens', async () => {
    const b = await launch();
    const { page } = b;
    await signIn(page, ana.email, ana.password);
    await page.getByTestId('speed-dial').click();
    await page.getByTestId('speed-dial-new').click();
    await page.getByTestId('new-ticket-mode-new').click();
    await page.getByTestId('new-number').fill('(11) 98888-7777');
    await page.getByText('+55 11 98888 7777').waitFor({ timeout: 10_000 });
    await page.getByTestId('new-ticket-queue').selectOption(String(suporte.id));
    await page.getByTestId('new-ticket-connection').selectOption(String(cloud.id));
    await page.getByTestId('new-ticket-submit').click();
    const contact = (await waitFor(() => k.db('contacts').where({ companyId, number: '5511988887777' }).first(), 15_000)) as Json;
    expect(contact).toMatchObject({ name: '+55 11 98888 7777', channel: 'whatsappapi' });
    const t = await waitFor(() => k.db('tickets').where({ contactId: contact.id }).first(), 15_000);
    expect(t).toMatchObject({ status: 'open', userId: ana.id, queueId: suporte.id, whatsappId: cloud.id });
    await page.waitForURL(`${base}/tickets/${t.uuid}`, { timeout: 15_000 });
    await page.getByTestId('contact-name').filter({ hasText: '+55 11 98888 7777' }).waitFor({ timeout: 20_000 });
    expect(b.errors).toEqual([]);
  });

  test('emoji from the picker and a pasted image go out', async () => {
    const b = await launch();
    const { page } = b;
    await customerWrites('Iara Emoji', '5511911110007', 'Manda a foto?');
    await signIn(page, ana.email, ana.password);
    await accept(page, 'Iara Emoji');
    const box = page.getByTestId('message-text');
    await box.fill('Claro ');
    await page.getByTestId('emoji-button').click();
    await page.locator('em-emoji-picker button[aria-label="😀"]').first().click({ timeout: 20_000 });
    expect(await box.inputValue()).toBe('Claro 😀');
    await page.keyboard.press('Escape');
    // Paste an image (as a copied screenshot arrives).
    await page.evaluate(`(() => {
      const el = document.querySelector('[data-testid="message-text"]');
      const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([png], 'print.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    })()`);
    await page.getByTestId('attachment-preview').waitFor({ timeout: 10_000 });
    const before = graph.calls.length;
    await page.getByTestId('send-button').click();
    const image = (await waitFor(() => graph.calls.slice(before).find((c) => c.body.type === 'image'), 20_000)) as GraphCall;
    expect(image.body.image).toMatchObject({ id: expect.stringMatching(/^MEDIA/) });
    // The text with the emoji is the image's caption.
    expect(image.body.image.caption).toBe('Claro 😀');
    expect(b.errors).toEqual([]);
  });

  test('the contact drawer edits the number, extra info, toggles and tags', async () => {
    const b = await launch();
    const { page } = b;
    await customerWrites('João Gaveta', '5511911110008', 'Atualiza meu cadastro');
    await signIn(page, ana.email, ana.password);
    const t = await accept(page, 'João Gaveta');
    await page.getByRole('button', { name: 'Dados do contato' }).click();
    const drawer = page.getByTestId('contact-drawer');
    await drawer.waitFor();
    await drawer.getByTestId('contact-disable-bot').click({ force: true });
    await waitFor(async () => (await k.db('contacts').where({ id: t.contactId }).first()).disableBot === true, 10_000);
    await drawer.getByTestId('contact-accept-audio').click({ force: true });
    await waitFor(async () => (await k.db('contacts').where({ id: t.contactId }).first()).acceptAudioMessage === false, 10_000);
    await drawer.getByTestId('contact-tag-picker').getByTestId('tag-option').filter({ hasText: 'VIP' }).click();
    await waitFor(async () => (await k.db('contactTags').where({ contactId: t.contactId })).length === 1, 10_000);
    await drawer.getByTestId('contact-edit').click();
    await drawer.getByTestId('contact-edit-number').fill('5511911119999');
    await drawer.getByTestId('extra-add').click();
    await drawer.getByTestId('extra-name').fill('Pedido');
    await drawer.getByTestId('extra-value').fill('A-1234');
    await drawer.getByTestId('contact-edit-save').click();
    await drawer.getByTestId('drawer-number').filter({ hasText: '5511911119999' }).waitFor({ timeout: 10_000 });
    const c = await k.db('contacts').where({ id: t.contactId }).first();
    expect(c).toMatchObject({ number: '5511911119999', disableBot: true, acceptAudioMessage: false });
    expect(await k.db('contactExtraInfo').where({ contactId: t.contactId }).select('name', 'value')).toEqual([{ name: 'Pedido', value: 'A-1234' }]);
    expect(b.errors).toEqual([]);
  });

  test('lgpdDeleteMessage off: a message the customer deleted stays readable; on: it is erased; an unsupported type is labelled', async () => {
    const b = await launch();
    const { page } = b;
    const wamid = await customerWrites('Kátia LGPD', '5511911110009', 'Meu CPF é 123.456.789-00');
    await signIn(page, ana.email, ana.password);
    await accept(page, 'Kátia LGPD');
    const conversation = page.getByTestId('conversation');
    const bubble = conversation.getByTestId('message').filter({ hasText: 'Meu CPF é 123.456.789-00' });
    await bubble.waitFor({ timeout: 15_000 });
    // The customer deletes it (revoke webhook): off -> marked deleted, still readable, live.
    const revoke = fixture('revoke.json');
    const rv = revoke.entry[0].changes[0].value;
    rv.contacts[0].wa_id = '5511911110009';
    rv.messages[0].from = '5511911110009';
    rv.messages[0].id = `wamid.RV${randomBytes(6).toString('hex')}`;
    rv.messages[0].revoke.original_message_id = wamid;
    expect(await deliver(revoke)).toBe(200);
    await bubble.getByTestId('deleted-marker').waitFor({ timeout: 15_000 });
    expect(await bubble.textContent()).toContain('Meu CPF é 123.456.789-00');

    // On (enableLGPD and lgpdDeleteMessage): the content is gone for agents.
    await setting('enableLGPD', 'enabled');
    await setting('lgpdDeleteMessage', 'enabled');
    await page.reload();
    await conversation.waitFor({ timeout: 20_000 });
    await conversation.getByTestId('erased-message').waitFor({ timeout: 15_000 });
    expect(await conversation.textContent()).not.toContain('123.456.789-00');
    await setting('lgpdDeleteMessage', 'disabled');
    await page.reload();
    await conversation.getByTestId('message').filter({ hasText: 'Meu CPF é 123.456.789-00' }).waitFor({ timeout: 20_000 });
    await setting('enableLGPD', 'disabled');

    // An unsupported message type: a labelled placeholder, not an empty bubble.
    const unsupported = fixture('unsupported-131051.json');
    const uv = unsupported.entry[0].changes[0].value;
    uv.contacts[0].wa_id = '5511911110009';
    uv.messages[0].from = '5511911110009';
    uv.messages[0].id = `wamid.UN${randomBytes(6).toString('hex')}`;
    uv.messages[0].timestamp = String(Math.floor(Date.now() / 1000));
    expect(await deliver(unsupported)).toBe(200);
    const placeholder = conversation.getByTestId('unsupported-message');
    await placeholder.waitFor({ timeout: 15_000 });
    expect(await placeholder.textContent()).toBe('Tipo de mensagem não suportado: edit');
    expect(b.errors).toEqual([]);
  });
});
