/**
 * The web UI on any host name (issue 19, item 3): the web server proxies the API under /backend (REST and
 * socket.io over websocket) at its own origin, so the browser never calls another origin. Headless Chromium
 * signs in through http://127.0.0.1:<port>, http://localhost:<port> and http://127.0.0.2:<port> (a second
 * loopback address standing in for a LAN address: another host name the API's FRONTEND_URL does not list),
 * survives a reload (the refresh cookie is first-party) and receives live events (a signed webhook becomes
 * a ticket that appears without reload). The API's CORS allowlist holds none of these origins and stays
 * strict: a foreign origin gets no CORS grant, directly or through the proxy.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { createWebServer } from '../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../shell/test/harness';
import { metaSerialize, rewriteAccount, sign } from '../scripts/replay';

const describeBrowser = browserDescribe('e2e/same-origin.test.ts');
jest.setTimeout(300_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'channels');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const SECRET = randomBytes(16).toString('hex');
const PHONE_ID = '300000000000077';
/** The API allows only this origin: none of the ones the browser uses. */
const ALLOWED_ORIGIN = 'http://allowed.invalid:1';

describeBrowser('same-origin web UI: sign in, reload, live events on 127.0.0.1, localhost and another host name', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let apiUrl: string;
  let port: number;
  let email: string;
  let password: string;

  beforeAll(async () => {
    buildWeb(400_000);
    k = await createTestKernel({
      plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin],
      env: { FRONTEND_URL: ALLOWED_ORIGIN, CHANNELS_META_APP_SECRET: SECRET, CHANNELS_META_VERIFY_TOKEN: 'verify-me' },
    });
    apiUrl = await k.listen();
    port = await freePort();
    web = await createWebServer({ apiProxyTarget: apiUrl });
    // On every address, as `npm start` does, so that another loopback address reaches it too (the test
    // sends traffic to loopback addresses only).
    await web.listen({ port, host: '0.0.0.0' });

    const { admin } = await k.createCompany({ name: 'Mesma Origem' });
    const queue = (await k.as(admin, 'POST', '/queue', { name: 'Suporte', color: '#43A047' })).json();
    expect((await k.as(admin, 'POST', '/whatsapp', { name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: 'EAAG-x', queueIds: [queue.id] })).statusCode).toBe(200);
    password = `senha-${randomBytes(4).toString('hex')}`;
    email = `ana.${randomBytes(3).toString('hex')}@example.com`;
    expect((await k.as(admin, 'POST', '/users', { name: 'Ana', email, password, profile: 'user', queueIds: [queue.id] })).statusCode).toBe(200);
  }, 420_000);

  afterAll(async () => {
    await web?.close();
    await k?.close();
  });

  /** A signed WhatsApp Cloud text from a new customer (its own number and name). */
  async function customerWrites(name: string, number: string): Promise<void> {
    const body = JSON.parse(readFileSync(join(FIXTURES, 'whatsapp-cloud', 'text.json'), 'utf8')) as Json;
    const value = body.entry[0].changes[0].value;
    value.contacts[0].profile.name = name;
    value.contacts[0].wa_id = number;
    value.messages[0].from = number;
    value.messages[0].id = `wamid.SAME${randomBytes(6).toString('hex')}`;
    const bytes = metaSerialize(rewriteAccount(body, PHONE_ID)!.body);
    const res = await fetch(`${apiUrl}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) }, body: bytes });
    expect(res.status).toBe(200);
  }

  async function signIn(page: Page, base: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`, { timeout: 20_000 });
    await page.getByTestId('tickets-manager').waitFor({ timeout: 20_000 });
  }

  test.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['localhost', false],
  ])('through http://%s:<port>', async (host, live) => {
    const base = `http://${host}:${port}`;
    const { page, close } = await launchProfile({ width: 1280, height: 800 });
    const requests: string[] = [];
    const sockets: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('websocket', (ws) => sockets.push(ws.url()));
    page.on('pageerror', (err) => errors.push(String(err)));
    try {
      await signIn(page, base);
      // The page is configured with its own origin, and every request stayed there.
      expect(await page.evaluate(() => (globalThis as unknown as { __ATENDO_ENV__: { API_URL: string } }).__ATENDO_ENV__.API_URL)).toBe(`${base}/backend`);
      expect(requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'))).toEqual([]);
      expect(requests.some((u) => u.startsWith(`${base}/backend/auth/login`))).toBe(true);

      // A reload keeps the session: the refresh cookie (first-party) gives a new access token.
      await page.reload();
      await page.getByTestId('tickets-manager').waitFor({ timeout: 20_000 });
      expect(new URL(page.url()).pathname).toBe('/tickets');
      expect(requests.some((u) => u.startsWith(`${base}/backend/auth/refresh_token`))).toBe(true);

      if (live) {
        // Live events through the proxied socket (websocket on /backend/socket.io/).
        await page.getByTestId('subtab-pending').click();
        await page.waitForTimeout(500); // the socket joins its rooms
        const name = `Cliente ${host}`;
        await customerWrites(name, `1555555${String(Math.floor(Math.random() * 9000) + 1000)}`);
        await page.locator('[data-testid="ticket-row"]', { hasText: name }).waitFor({ timeout: 15_000 });
        expect(sockets.some((u) => u.startsWith(`ws://${host}:${port}/backend/socket.io/`))).toBe(true);
      }
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test('CORS stays strict: a foreign origin gets no grant, directly or through the proxy', async () => {
    for (const url of [`${apiUrl}/auth/refresh_token`, `http://127.0.0.1:${port}/backend/auth/refresh_token`]) {
      const pre = await fetch(url, { method: 'OPTIONS', headers: { origin: 'http://evil.invalid', 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      const ok = await fetch(url, { method: 'OPTIONS', headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST' } });
      expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    }
  });
});
