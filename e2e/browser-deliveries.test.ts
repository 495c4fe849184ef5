/**
 * Delivery state, resend and redrive in a real browser (issue 30): the built web UI (shell/serve.ts) against the
 * real API (createTestKernel with the tickets and channels plugins) and a local Graph server standing in for Meta,
 * driven by headless Chromium (playwright-core).
 *
 * - an attendant's reply that the Cloud API refuses permanently (400, #131047) shows failed on its bubble with the
 *   provider's reason; "Reenviar" sends the same message again (the Graph stand-in accepts it now), the bubble moves
 *   to sent, then delivered when the status arrives;
 * - a dead letter of the company (a `message.status` the tickets consumer gave up on) is redriven from the admin
 *   screen "Entregas": it reaches its consumer again and the bubble shows read.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../shell/test/harness';

const describeBrowser = browserDescribe('e2e/browser-deliveries.test.ts');

jest.setTimeout(240_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const PHONE_ID = '300000000000088';
const TOKEN = 'EAAG-deliveries-' + randomBytes(6).toString('hex');
const PLUGINS = [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin];

/** A local Graph API: refuses sends permanently while `refuse` is set (as Meta does outside the 24 h window), else accepts them. */
async function startGraph(): Promise<{ server: Server; url: string; sends: Json[]; mode: { refuse: boolean } }> {
  let n = 0;
  const sends: Json[] = [];
  const mode = { refuse: true };
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && /\/messages$/.test(req.url ?? '')) {
        const body = JSON.parse(raw || '{}') as Json;
        sends.push({ ...body, refused: mode.refuse });
        if (mode.refuse) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ error: { message: '(#131047) Re-engagement message', type: 'OAuthException', code: 131047, error_data: { details: 'More than 24 hours have passed' }, fbtrace_id: 'T1' } }));
        }
        return res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.DELIV${++n}${randomBytes(3).toString('hex')}` }] }));
      }
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sends, mode };
}

describeBrowser('delivery state, resend and redrive in Chromium (issue 30)', () => {
  let k: TestKernel;
  let graph: Awaited<ReturnType<typeof startGraph>>;
  let web: FastifyInstance;
  let base: string;
  let admin: TestUser;
  let companyId: number;
  let ticket: Json;
  const ana = { email: `ana.${randomBytes(3).toString('hex')}@example.com`, password: 'senha-' + randomBytes(4).toString('hex'), id: 0 };
  const closers: (() => Promise<void>)[] = [];

  async function api(user: TestUser, method: string, url: string, payload?: unknown) {
    const res = await k.as(user, method, url, payload);
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  beforeAll(async () => {
    buildWeb(300_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/admin/dist/remoteEntry.js'))).toBe(true);
    graph = await startGraph();
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: PLUGINS, env: { FRONTEND_URL: base, CHANNELS_META_APP_SECRET: randomBytes(8).toString('hex'), CHANNELS_META_VERIFY_TOKEN: 'verify-me', CHANNELS_META_GRAPH_URL: graph.url } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
    ({ companyId, admin } = await k.createCompany({ name: 'Loja das Entregas' }));
    const queue = await api(admin, 'POST', '/queue', { name: 'Suporte', color: '#43A047' });
    const cloud = await api(admin, 'POST', '/whatsapp', { name: 'WhatsApp Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: TOKEN, queueIds: [queue.id] });
    // An admin who serves the queue: the attendant of the ticket and the operator of the deliveries screen.
    const user = await api(admin, 'POST', '/users', { name: 'Ana Admin', email: ana.email, password: ana.password, profile: 'admin', queueIds: [queue.id] });
    ana.id = user.id;
    const [contact] = await k.db('contacts').insert({ companyId, name: 'Rita Cliente', number: '5511977770001', isGroup: false, channel: 'whatsappapi' }).returning('*');
    [ticket] = await k.db('tickets')
      .insert({ uuid: randomUUID(), companyId, contactId: contact.id, whatsappId: cloud.id, queueId: queue.id, userId: ana.id, status: 'open', isGroup: false, channel: 'whatsappapi' })
      .returning('*');
  }, 360_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await web?.close();
    await k?.close();
    await new Promise((r) => graph?.server.close(r));
  });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(ana.email);
    await page.getByLabel('Senha', { exact: true }).fill(ana.password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
  }

  const bubble = (page: Page, id: number) => page.locator(`[data-testid="message"][data-message-id="${id}"]`);
  const deliveryOf = (page: Page, id: number) => bubble(page, id).getAttribute('data-delivery');

  test('a permanently refused reply shows failed with its reason, is resent from the bubble and delivered; a dead letter is redriven from Entregas', async () => {
    const b = await launchProfile({ width: 1440, height: 900 });
    closers.push(b.close);
    const { page } = b;
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await signIn(page);
    await page.goto(`${base}/tickets/${ticket.uuid}`);
    await page.getByTestId('conversation').waitFor({ timeout: 20_000 });
    await page.waitForTimeout(800); // the socket joins its audiences

    // The reply: the Cloud API refuses it permanently.
    const text = `Seu pedido saiu para entrega ${randomBytes(2).toString('hex')}`;
    await page.getByTestId('message-text').fill(text);
    await page.getByTestId('send-button').click();
    const stored = await waitFor(() => k.db('messages').where({ companyId, ticketId: ticket.id }).whereLike('body', `%${text}`).first(), 15_000);
    const id = Number(stored.id);
    await waitFor(async () => (await deliveryOf(page, id)) === 'failed', 20_000);
    expect(graph.sends.filter((s) => String(s.text?.body ?? '').endsWith(text)).map((s) => s.refused)).toEqual([true]);
    const alert = bubble(page, id).getByTestId('send-error');
    expect(await alert.getAttribute('title')).toBe('Motivo: (#131047) Re-engagement message: More than 24 hours have passed (131047)');
    await alert.getByTestId('send-error-toggle').click();
    expect(await bubble(page, id).getByTestId('send-error-reason').textContent()).toContain('131047');
    expect(await k.db('messages').where({ id }).first()).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG', ack: 0 });

    // The provider takes it now: "Reenviar" sends the same message (no copy), the bubble goes to sent.
    graph.mode.refuse = false;
    await alert.getByRole('button', { name: 'Reenviar' }).click();
    await waitFor(async () => (await deliveryOf(page, id)) === 'sent', 20_000);
    expect(graph.sends.filter((s) => String(s.text?.body ?? '').endsWith(text)).map((s) => s.refused)).toEqual([true, false]);
    expect(await k.db('messages').where({ companyId, ticketId: ticket.id }).whereLike('body', `%${text}`).count({ n: '*' }).then((r) => Number(r[0].n))).toBe(1);
    const sent = await k.db('messages').where({ id }).first();
    expect(sent).toMatchObject({ sendError: null, sendErrorDetail: null, ack: 1 });
    expect(await bubble(page, id).getByTestId('send-error').count()).toBe(0);
    // Meta's delivered status: the bubble shows delivered.
    await k.bus.publish('message.status', { companyId, wid: sent.wid, ack: 2 });
    await waitFor(async () => (await deliveryOf(page, id)) === 'delivered', 15_000);

    // A read status the tickets consumer gave up on: a real dead letter of the company (a malformed one, then
    // made the status it should have been), listed on Entregas and redriven from there.
    await k.bus.publish('message.status', { companyId, wid: sent.wid, ack: 9 });
    const letter = await waitFor(() => k.db('bus_dead_letters').where({ companyId, topic: 'message.status' }).first(), 20_000);
    await k.db('bus_dead_letters').where({ id: letter.id }).update({ payload: JSON.stringify({ companyId, wid: sent.wid, ack: 3 }), error: 'consumer gave up: read status' });

    await page.goto(`${base}/deliveries`);
    await page.getByTestId('deliveries-page').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('failed-row').count()).toBe(0);
    await page.getByTestId('tab-dead').click();
    const row = page.locator(`[data-testid="dead-row"][data-dead-id="bus:${letter.id}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('message.status');
    expect(await row.textContent()).toContain('consumer gave up: read status');
    await row.getByTestId('redrive-one').click();
    await page.getByText('1 evento(s) reprocessado(s).').waitFor({ timeout: 10_000 });
    // The kernel puts it back into its queue within seconds; the consumer applies it.
    await waitFor(async () => Number((await k.db('messages').where({ id }).first()).ack) === 3, 30_000);
    expect(await k.db('bus_dead_letters').where({ id: letter.id }).first()).toBeUndefined();

    await page.goto(`${base}/tickets/${ticket.uuid}`);
    await waitFor(async () => (await deliveryOf(page, id)) === 'read', 20_000);
    expect(errors).toEqual([]);
  });
});
