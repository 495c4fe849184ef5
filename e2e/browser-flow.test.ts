/**
 * The main job end to end in a real browser (issue "The main job end to end on real input"): the UI twin of
 * e2e/meta-pipeline.test.ts. The real API (createTestKernel with queues, tags, contacts, connections,
 * tickets and channels), a local Graph server standing in for Meta, and the built web UI (shell/serve.ts)
 * on random ports, driven by headless Chromium through playwright-core. Builds the web bundles first when
 * they are missing or stale (scripts/start.mjs --build-only, as shell/test/browser.test.ts does).
 *
 * An attendant of queue 'Suporte' (the only queue of the WhatsApp Cloud connection) signs in on the login
 * page; signed webhooks replayed from fixtures/channels/whatsapp-cloud become tickets that appear
 * live in the pending tab (no reload; a redelivery adds nothing); the attendant accepts one (open tab,
 * conversation), replies (clock ack while Graph has not answered), Graph receives the right recipient and
 * text (ack: check), a signed status webhook turns the ack to read live, the attendant transfers the ticket
 * to 'Vendas' (it leaves the attendant's lists), and an admin in a second browser closes it. No uncaught
 * page error and no console error but the browser's own "Failed to load resource ... 4xx" lines.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../shell/test/harness';
import { metaSerialize, rewriteAccount, sign } from '../scripts/replay';

const describeBrowser = browserDescribe('e2e/browser-flow.test.ts');

jest.setTimeout(180_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'channels');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const fixture = (file: string) => JSON.parse(readFileSync(join(FIXTURES, 'whatsapp-cloud', file), 'utf8')) as Json;

const SECRET = randomBytes(16).toString('hex');
const PHONE_ID = '300000000000001';
const TOKEN = 'EAAG-browser-' + randomBytes(6).toString('hex');
const PLUGINS = [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin];

/** The customer of text.json, and a second customer given to image-with-caption.json (another ticket). */
const ALEX = { name: 'Alex Example', number: '15555550123' };
const BRUNA = { name: 'Bruna Exemplo', number: '15555550124' };
const TEXT = 'Hi! Do you have this jacket in size M?';
const CAPTION = 'This is the damaged box 😕';
const REPLY = 'Temos sim! O tamanho M está disponível.';

interface GraphCall {
  method: string;
  path: string;
  auth: string | undefined;
  body: Json;
}

/**
 * A local Graph API: records every call and answers like Meta's send endpoint. While `hold` is on, sends
 * (POST .../messages) wait for `release()`, so the test can see a reply before the provider accepted it.
 */
interface Graph {
  server: Server;
  url: string;
  calls: GraphCall[];
  hold: boolean;
  release(): void;
  wamids: string[];
}

async function startGraph(): Promise<Graph> {
  let n = 0;
  const held: (() => void)[] = [];
  const graph = { calls: [] as GraphCall[], hold: false, wamids: [] as string[] } as Graph;
  graph.release = () => {
    graph.hold = false;
    for (const go of held.splice(0)) go();
  };
  graph.server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: Json = {};
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        /* multipart uploads are not used here */
      }
      graph.calls.push({ method: req.method ?? '', path: req.url ?? '', auth: req.headers.authorization, body });
      const answer = () => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && /\/messages$/.test(req.url ?? '')) {
          const wamid = `wamid.BROWSER${++n}${randomBytes(4).toString('hex')}`;
          graph.wamids.push(wamid);
          res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: wamid }] }));
        } else {
          res.end('{}');
        }
      };
      if (graph.hold && req.method === 'POST' && /\/messages$/.test(req.url ?? '')) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => graph.server.listen(0, '127.0.0.1', resolve));
  graph.url = `http://127.0.0.1:${(graph.server.address() as AddressInfo).port}`;
  return graph;
}

interface Session {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions of the page (must stay empty). */
  errors: string[];
  /** Console errors (must stay empty once the browser's own 4xx resource lines are removed). */
  consoleErrors: string[];
  /** Failed HTTP calls, printed when a step fails. */
  failures: string[];
  close(): Promise<void>;
}

/** The browser's own line for an HTTP error answer: expected for 4xx (e.g. the refresh probe before sign-in). */
const EXPECTED_4XX = /^Failed to load resource: the server responded with a status of 4\d\d/;

describeBrowser('the main job in Chromium: webhook -> live ticket -> accept -> reply -> Graph -> read ack -> transfer -> close', () => {
  let k: TestKernel;
  let graph: Graph;
  let web: FastifyInstance;
  let base: string;
  let apiUrl: string;
  const sessions: Session[] = [];

  beforeAll(async () => {
    // Build what is missing or older than its sources (the shell harness's way).
    buildWeb(300_000);
    expect(existsSync(join(ROOT_DIR, 'shell/dist/index.html'))).toBe(true);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/inbox/dist/remoteEntry.js'))).toBe(true);
    graph = await startGraph();
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({
      plugins: PLUGINS,
      env: {
        FRONTEND_URL: base,
        CHANNELS_META_APP_SECRET: SECRET,
        CHANNELS_META_VERIFY_TOKEN: 'verify-me',
        CHANNELS_META_GRAPH_URL: graph.url,
        CHANNELS_GRAPH_TIMEOUT_MS: '60000',
      },
    });
    apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 360_000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await web?.close();
    await k?.close();
    graph?.release();
    await new Promise((r) => graph?.server.close(r));
  });

  /** A fresh browser profile (its own --user-data-dir) with one page and its error collectors. */
  async function open(): Promise<Session> {
    const { context, page, close } = await launchProfile({ width: 1366, height: 860 });
    const s: Session = {
      context,
      page,
      errors: [],
      consoleErrors: [],
      failures: [],
      close,
    };
    page.on('pageerror', (err) => s.errors.push(String(err?.stack ?? err)));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !EXPECTED_4XX.test(msg.text())) s.consoleErrors.push(msg.text());
    });
    page.on('response', (res) => {
      if (res.status() >= 400) s.failures.push(`${res.request().method()} ${res.url()} ${res.status()}`);
    });
    sessions.push(s);
    return s;
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
    await page.getByTestId('tickets-manager').waitFor({ timeout: 20_000 });
  }

  /** POSTs a fixture to /webhook as Meta would: account rewritten, Meta's serialization, signed. */
  async function deliver(body: Json): Promise<number> {
    const bytes = metaSerialize(rewriteAccount(body, PHONE_ID)!.body);
    const res = await fetch(`${apiUrl}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) }, body: bytes });
    return res.status;
  }

  const api = async (user: TestUser, method: string, url: string, payload: unknown) => {
    const res = await k.as(user, method, url, payload);
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  const row = (page: Page, name: string) => page.locator('[data-testid="ticket-row"]', { hasText: name });
  const ticketOf = (name: string) =>
    k.db('tickets').join('contacts', 'contacts.id', 'tickets.contactId').where('contacts.name', name).first('tickets.*');

  test('the whole flow', async () => {
    // The company: queues Suporte and Vendas, the WhatsApp Cloud connection serving Suporte only, an
    // attendant of Suporte. Set up through the API as the company's admin would.
    const { companyId, admin } = await k.createCompany({ name: 'Loja Jaqueta' });
    const suporte = await api(admin, 'POST', '/queue', { name: 'Suporte', color: '#43A047' });
    const vendas = await api(admin, 'POST', '/queue', { name: 'Vendas', color: '#1E88E5' });
    await api(admin, 'POST', '/whatsapp', { name: 'WhatsApp Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: TOKEN, queueIds: [suporte.id] });
    const password = 'senha-' + randomBytes(4).toString('hex');
    const email = `ana.${randomBytes(3).toString('hex')}@example.com`;
    const ana = await api(admin, 'POST', '/users', { name: 'Ana Atendente', email, password, profile: 'user', queueIds: [suporte.id] });
    expect(ana).toMatchObject({ profile: 'user', companyId });

    const attendant = await open();
    const { page } = attendant;
    await signIn(page, email, password);
    await page.getByTestId('count-pending').filter({ hasText: /^0$/ }).waitFor();
    await page.getByTestId('subtab-pending').click();
    await page.getByTestId('tickets-empty').waitFor();
    // A marker that a reload would wipe out.
    await page.evaluate(() => ((globalThis as unknown as { __noReload: string }).__noReload = 'kept'));
    await page.waitForTimeout(500); // the socket joins its rooms

    // Signed webhooks: Alex's text, then an image with caption from a second customer.
    expect(await deliver(fixture('text.json'))).toBe(200);
    const alexRow = row(page, ALEX.name);
    await alexRow.waitFor({ timeout: 15_000 });
    expect(await alexRow.getByTestId('ticket-last-message').textContent()).toBe(TEXT);
    expect(await alexRow.getByTestId('queue-tag').textContent()).toBe('Suporte');
    expect(await alexRow.getByTestId('connection-tag').textContent()).toBe('WhatsApp Cloud');
    expect(await alexRow.getAttribute('data-status')).toBe('pending');

    const image = fixture('image-with-caption.json');
    const value = image.entry[0].changes[0].value;
    value.contacts[0].profile.name = BRUNA.name;
    value.contacts[0].wa_id = BRUNA.number;
    value.messages[0].from = BRUNA.number;
    expect(await deliver(image)).toBe(200);
    const brunaRow = row(page, BRUNA.name);
    await brunaRow.waitFor({ timeout: 15_000 });
    expect(await brunaRow.getByTestId('ticket-last-message').textContent()).toBe(CAPTION);
    await page.getByTestId('count-pending').filter({ hasText: /^2$/ }).waitFor({ timeout: 10_000 });
    // The newest first.
    expect(await page.getByTestId('ticket-row').first().textContent()).toContain(BRUNA.name);

    // A redelivery of the same webhook stores and shows nothing more.
    expect(await deliver(fixture('text.json'))).toBe(200);
    await page.waitForTimeout(1000);
    expect(await page.getByTestId('ticket-row').count()).toBe(2);
    expect(Number((await k.db('messages').where({ companyId }).count({ n: '*' }))[0].n)).toBe(2);
    expect(await page.evaluate(() => (globalThis as unknown as { __noReload?: string }).__noReload)).toBe('kept');

    // Accept Alex's ticket: it moves to the open tab and its conversation opens.
    const alexTicket = await ticketOf(ALEX.name);
    expect(alexTicket).toMatchObject({ companyId, status: 'pending', queueId: suporte.id, userId: null, channel: 'whatsappapi' });
    await alexRow.getByTestId('ticket-accept').click();
    await page.waitForURL(`${base}/tickets/${alexTicket.uuid}`, { timeout: 10_000 }).catch((err) => {
      console.log('accept did not open the conversation', page.url(), attendant.failures);
      throw err;
    });
    expect(await page.getByTestId('subtab-open').getAttribute('aria-selected')).toBe('true');
    const openRow = row(page, ALEX.name);
    await openRow.waitFor();
    expect(await openRow.getAttribute('data-status')).toBe('open');
    await page.getByTestId('count-pending').filter({ hasText: /^1$/ }).waitFor({ timeout: 10_000 });
    await page.getByTestId('count-open').filter({ hasText: /^1$/ }).waitFor({ timeout: 10_000 });
    const conversation = page.getByTestId('conversation');
    await conversation.waitFor({ timeout: 20_000 });
    await expectText(page.getByTestId('contact-name'), ALEX.name);
    await expectText(page.getByTestId('ticket-status'), 'Em atendimento');
    await expectText(conversation.getByTestId('message'), TEXT);
    const accepted = await k.db('tickets').where({ id: alexTicket.id }).first();
    expect({ status: accepted.status, userId: accepted.userId, queueId: accepted.queueId }).toEqual({ status: 'open', userId: ana.id, queueId: suporte.id });

    // The greeting on accept (company setting sendGreetingAccepted, on by default) goes out first.
    const greeting = conversation.getByTestId('message').filter({ hasText: `Olá ${ALEX.name.split(' ')[0]}, meu nome é Ana Atendente` });
    await greeting.locator('[data-testid="ack"][data-ack="sent"]').waitFor({ timeout: 15_000 });
    const sends = () => graph.calls.filter((c) => c.method === 'POST' && c.path.endsWith(`/${PHONE_ID}/messages`));
    expect(sends()).toHaveLength(1);

    // Reply: the bubble shows the clock while Graph has not answered, then a check.
    graph.hold = true;
    const box = page.getByTestId('message-text');
    await box.fill(REPLY);
    await page.getByTestId('send-button').click();
    const reply = conversation.getByTestId('message').filter({ hasText: REPLY });
    await reply.waitFor({ timeout: 10_000 });
    await reply.locator('[data-testid="ack"][data-ack="pending"]').waitFor({ timeout: 10_000 });
    expect(await box.inputValue()).toBe('');
    const send = (await waitFor(() => sends()[1], 15_000)) as GraphCall;
    expect(send.auth).toBe(`Bearer ${TOKEN}`);
    expect(send.body).toMatchObject({ messaging_product: 'whatsapp', to: ALEX.number, type: 'text' });
    // Signed with the attendant's name (the composer's signature toggle is on by default).
    expect(send.body.text).toEqual({ body: `*Ana Atendente:*\n${REPLY}`, preview_url: false });
    expect(await reply.locator('[data-testid="ack"][data-ack="pending"]').count()).toBe(1);
    graph.release();
    await reply.locator('[data-testid="ack"][data-ack="sent"]').waitFor({ timeout: 15_000 });
    const stored = await waitFor(async () => {
      const m = await k.db('messages').where({ ticketId: alexTicket.id, fromMe: true }).whereLike('body', `%${REPLY}%`).first();
      return m?.wid ? m : undefined;
    }, 10_000);
    expect(stored.wid).toBe(graph.wamids[1]);
    expect(stored.ack).toBe(1);
    expect(sends()).toHaveLength(2);

    // A signed status webhook (read) for that wamid: the ack icon turns to read, live.
    const status = fixture('status-read.json');
    status.entry[0].changes[0].value.statuses[0].id = stored.wid;
    expect(await deliver(status)).toBe(200);
    await reply.locator('[data-testid="ack"][data-ack="read"]').waitFor({ timeout: 15_000 });
    expect((await k.db('messages').where({ id: stored.id }).first()).ack).toBe(3);

    // Transfer to Vendas (no user): the ticket leaves the attendant's lists.
    await page.getByTestId('action-transfer').click();
    await page.getByTestId('transfer-queue').selectOption(String(vendas.id));
    await page.getByTestId('transfer-confirm').click();
    await page.waitForURL(`${base}/tickets`, { timeout: 10_000 });
    await row(page, ALEX.name).waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByTestId('count-open').filter({ hasText: /^0$/ }).waitFor({ timeout: 10_000 });
    await page.getByTestId('subtab-pending').click();
    await row(page, BRUNA.name).waitFor();
    expect(await row(page, ALEX.name).count()).toBe(0);
    const moved = await k.db('tickets').where({ id: alexTicket.id }).first();
    expect({ status: moved.status, userId: moved.userId, queueId: moved.queueId }).toEqual({ status: 'pending', userId: null, queueId: vendas.id });

    // The admin, in a second browser, closes it from the pending list ("ignore": closed, no farewell).
    const boss = await open();
    await signIn(boss.page, admin.email, admin.password);
    await boss.page.getByTestId('subtab-pending').click();
    const showAll = boss.page.getByTestId('show-all');
    await showAll.waitFor();
    if (!(await showAll.isChecked())) await showAll.check();
    const pendingAlex = row(boss.page, ALEX.name);
    await pendingAlex.waitFor({ timeout: 10_000 });
    expect(await pendingAlex.getByTestId('queue-tag').textContent()).toBe('Vendas');
    await pendingAlex.getByTestId('ticket-ignore').click();
    await pendingAlex.waitFor({ state: 'detached', timeout: 10_000 });
    const closed = await waitFor(async () => {
      const t = await k.db('tickets').where({ id: alexTicket.id }).first();
      return t.status === 'closed' ? t : undefined;
    }, 10_000);
    expect(closed.closedAt).not.toBeNull();
    await boss.page.getByTestId('tab-closed').click();
    await boss.page.locator('[data-testid="ticket-row"][data-status="closed"]', { hasText: ALEX.name }).waitFor({ timeout: 10_000 });

    // No farewell went out (ignore), and nothing leaked into the page's errors.
    expect(sends()).toHaveLength(2);
    for (const s of [attendant, boss]) {
      expect(s.errors).toEqual([]);
      expect(s.consoleErrors).toEqual([]);
    }
  });
});

async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 15_000 });
}
