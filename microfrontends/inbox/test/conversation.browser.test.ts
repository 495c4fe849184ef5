/**
 * Browser test of the conversation view: the real API (createTestKernel with the queues, tags, contacts,
 * connections and tickets plugins) and the shell's static server (shell/serve.ts) on random ports, driven
 * by headless Chromium through playwright-core. Builds the bundles first when they are missing or stale
 * (scripts/start.mjs --build-only). Skipped, with a message, when /usr/bin/chromium is absent.
 *
 * An attendant opens a ticket, sends a reply (ack clock), the provider's `message.sent` result turns the
 * clock into a check live, an inbound message and a typing presence appear live, two messages are
 * forwarded to another contact, then the ticket is transferred to another department and a second ticket
 * is closed — with no uncaught page error. A second test scrolls a long history upwards.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import { createWebServer, ROOT_DIR } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';
import { TICKETS_PLUGINS, createAgent, createConnection, createContact, createQueue, insertMessage, insertTicket, ticketsDeps } from '../../../plugins/tickets/test/helpers';
import { serializeMessages } from '../../../plugins/tickets/src/services/messages';
import { ticketAudiences } from '../../../plugins/tickets/src/visibility';

const describeBrowser = browserDescribe('microfrontends/inbox/test/conversation.browser.test.ts');

jest.setTimeout(120_000);


async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 15_000 });
}

/** Polls `check` until it returns a truthy value (or fails after `ms`). */
async function until<T>(check: () => Promise<T>, ms = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeBrowser('conversation view in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  const contexts: { context: BrowserContext; dir: string }[] = [];

  beforeAll(async () => {
    buildWeb(300_000);
    expect(existsSync(join(ROOT_DIR, 'shell/dist/index.html'))).toBe(true);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/inbox/dist/remoteEntry.js'))).toBe(true);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: TICKETS_PLUGINS, env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 360_000);

  afterAll(async () => {
    for (const c of contexts) {
      await c.context.close().catch(() => undefined);
      rmSync(c.dir, { recursive: true, force: true });
    }
    await web?.close();
    await k?.close();
  });

  async function open(): Promise<{ page: Page; errors: string[] }> {
    const { context, dir, page } = await launchProfile({ width: 1366, height: 860 });
    contexts.push({ context, dir });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));
    return { page, errors };
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
  }

  test('reply with live ack, live inbound message and presence, forward, transfer and close', async () => {
    const companyId = 1;
    const sales = await createQueue(k, companyId, { name: 'Vendas', color: '#1E88E5' });
    const support = await createQueue(k, companyId, { name: 'Suporte', color: '#43A047' });
    const agent = await createAgent(k, companyId, { queueIds: [sales.id], name: 'Ana Atendente' });
    const conn = await createConnection(k, companyId, { name: 'WhatsApp Loja', isDefault: true });
    const maria = await createContact(k, companyId, { name: 'Maria Cliente', number: '5511987654321' });
    const joao = await createContact(k, companyId, { name: 'João Comprador', number: '5511912341234' });
    const ticket = await insertTicket(k, companyId, { contactId: maria.id, whatsappId: conn.id, queueId: sales.id, userId: agent.id, status: 'open' });
    const second = await insertTicket(k, companyId, { contactId: joao.id, whatsappId: conn.id, queueId: sales.id, userId: agent.id, status: 'open' });
    await insertMessage(k, companyId, { ticketId: ticket.id, contactId: maria.id, body: 'Oi, preciso de ajuda com meu pedido', createdAt: new Date(Date.now() - 60_000) });
    await insertMessage(k, companyId, { ticketId: second.id, contactId: joao.id, body: 'Quero comprar', createdAt: new Date(Date.now() - 60_000) });

    const { page, errors } = await open();
    await signIn(page, agent.email, agent.password);

    // Open the ticket: header, history, read marking.
    await page.goto(`${base}/tickets/${ticket.uuid}`);
    const conversation = page.getByTestId('conversation');
    await conversation.waitFor({ timeout: 20_000 });
    await expectText(page.getByTestId('contact-name'), 'Maria Cliente');
    await expectText(page.getByTestId('contact-number'), '5511987654321');
    await expectText(page.getByTestId('ticket-status'), 'Em atendimento');
    await expectText(page.getByTestId('queue-tag'), 'Vendas');
    await expectText(page.getByTestId('assigned-user'), 'Ana Atendente');
    await expectText(conversation.getByTestId('message'), 'Oi, preciso de ajuda com meu pedido');
    await expectText(conversation.getByTestId('day-separator'), 'HOJE');
    await until(async () => Number((await k.db('messages').where({ ticketId: ticket.id, fromMe: false, read: false }).count<{ count: string }[]>({ count: '*' }))[0].count) === 0);

    // Send a reply: it appears with the clock (ack 0, no channel adapter runs here).
    const box = page.getByTestId('message-text');
    await box.fill('Claro! Qual o número do pedido?');
    await box.press('Enter');
    const reply = conversation.getByTestId('message').filter({ hasText: 'Claro! Qual o número do pedido?' });
    await reply.waitFor();
    await reply.locator('[data-testid="ack"][data-ack="pending"]').waitFor();
    expect(await box.inputValue()).toBe('');
    const stored = await until(() => k.db('messages').where({ ticketId: ticket.id, fromMe: true }).orderBy('id', 'desc').first());
    expect(stored.body).toContain('Claro! Qual o número do pedido?');
    expect(stored.ack).toBe(0);

    // The provider accepted it: the ack changes live.
    await k.bus.publish('message.sent', { companyId, messageId: Number(stored.id), wid: `BROWSER${Date.now()}` });
    await reply.locator('[data-testid="ack"][data-ack="sent"]').waitFor({ timeout: 15_000 });
    expect(await reply.locator('[data-ack="pending"]').count()).toBe(0);

    // An inbound message arrives live (stored, then pushed as the tickets plugin pushes it).
    const inbound = await insertMessage(k, companyId, { ticketId: ticket.id, contactId: maria.id, body: 'É o pedido 4521' });
    const [wire] = await serializeMessages(ticketsDeps(k), companyId, [inbound]);
    k.realtime.emitToCompany(
      companyId,
      `company-${companyId}-appMessage`,
      { action: 'create', message: wire, ticket: { id: ticket.id, contactId: maria.id, whatsappId: conn.id, isGroup: false }, contact: { id: maria.id, name: maria.name } },
      { audiences: ticketAudiences(ticket) },
    );
    await expectText(conversation.getByTestId('message'), 'É o pedido 4521');
    expect(await conversation.locator('[data-message-id]').count()).toBe(3);

    // A message of another conversation is not appended.
    const other = await insertMessage(k, companyId, { ticketId: second.id, contactId: joao.id, body: 'Mensagem de outra conversa' });
    const [otherWire] = await serializeMessages(ticketsDeps(k), companyId, [other]);
    k.realtime.emitToCompany(companyId, `company-${companyId}-appMessage`, { action: 'create', message: otherWire, ticket: { id: second.id, contactId: joao.id, whatsappId: conn.id, isGroup: false } }, { audiences: ticketAudiences(second) });

    // Presence: the contact is typing.
    k.realtime.emitToCompany(companyId, `company-${companyId}-presence`, { action: 'update-presence', ticketId: ticket.id, presence: 'composing' }, { audiences: ticketAudiences(ticket) });
    await expectText(page.getByTestId('presence'), 'Digitando...');
    k.realtime.emitToCompany(companyId, `company-${companyId}-presence`, { action: 'update-presence', ticketId: ticket.id, presence: 'paused' }, { audiences: ticketAudiences(ticket) });
    await page.getByTestId('presence').waitFor({ state: 'detached' });
    expect(await conversation.getByText('Mensagem de outra conversa').count()).toBe(0);

    // Forward two messages (select mode from the reply's menu) to João: one POST /message/forward each.
    await reply.hover();
    await reply.getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Encaminhar' }).click();
    await page.getByTestId('forward-bar').waitFor();
    await conversation.getByTestId('message').filter({ hasText: 'É o pedido 4521' }).getByTestId('message-select').check();
    await expectText(page.getByTestId('forward-bar'), '2 mensagens selecionadas');
    await page.getByTestId('forward-open').click();
    await page.getByTestId('contact-search').fill('João');
    await page.getByTestId('contact-option').filter({ hasText: 'João Comprador' }).click();
    await page.getByTestId('forward-confirm').click();
    await page.waitForURL(`${base}/tickets`, { timeout: 15_000 });
    const forwarded = await until(async () => {
      const rows = await k.db('messages').where({ ticketId: second.id, isForwarded: true }).orderBy('id');
      return rows.length === 2 ? rows : undefined;
    });
    expect(forwarded.map((r) => r.body)).toEqual([expect.stringContaining('Claro! Qual o número do pedido?'), expect.stringContaining('É o pedido 4521')]);

    // Transfer to another department (no user): the ticket goes pending in Suporte; back to /tickets.
    await page.goto(`${base}/tickets/${ticket.uuid}`);
    await expectText(page.getByTestId('contact-name'), 'Maria Cliente');
    await page.getByTestId('action-transfer').click();
    await page.getByTestId('transfer-queue').selectOption(String(support.id));
    await page.getByTestId('transfer-confirm').click();
    await page.waitForURL(`${base}/tickets`);
    const transferred = await until(async () => {
      const row = await k.db('tickets').where({ id: ticket.id }).first();
      return row.status === 'pending' ? row : undefined;
    });
    expect(transferred).toMatchObject({ status: 'pending', queueId: support.id, userId: null });

    // Close the second ticket from its conversation (resolve, normal close).
    await page.goto(`${base}/tickets/${second.uuid}`);
    await expectText(page.getByTestId('contact-name'), 'João Comprador');
    await expectText(page.getByTestId('conversation').getByTestId('message'), 'Quero comprar');
    await page.getByTestId('action-resolve').click();
    await page.getByTestId('resolve-normal').click();
    await page.waitForURL(`${base}/tickets`);
    const closed = await until(async () => {
      const row = await k.db('tickets').where({ id: second.id }).first();
      return row.status === 'closed' ? row : undefined;
    });
    expect(closed.status).toBe('closed');

    expect(errors).toEqual([]);
  });
  test('older messages load when scrolled near the top, keeping the visible ones in place', async () => {
    const companyId = 1;
    const queue = await createQueue(k, companyId, { name: 'Histórico' });
    const agent = await createAgent(k, companyId, { queueIds: [queue.id], name: 'Bia Atendente' });
    const conn = await createConnection(k, companyId, { name: 'WhatsApp Histórico' });
    const carlos = await createContact(k, companyId, { name: 'Carlos Antigo' });
    const t = await insertTicket(k, companyId, { contactId: carlos.id, whatsappId: conn.id, queueId: queue.id, userId: agent.id, status: 'open' });
    const start = Date.now() - 50 * 60_000;
    for (let i = 1; i <= 45; i++) {
      await insertMessage(k, companyId, { ticketId: t.id, contactId: carlos.id, body: `Mensagem número ${i}`, read: true, createdAt: new Date(start + i * 60_000) });
    }
    const { page, errors } = await open();
    await signIn(page, agent.email, agent.password);
    const pages: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/messages/${t.id}`)) pages.push(new URL(r.url()).searchParams.get('pageNumber') ?? '');
    });
    await page.goto(`${base}/tickets/${t.uuid}`);
    const list = page.getByTestId('message-list');
    const bubble = (n: number) => list.locator('[data-message-id]').filter({ hasText: new RegExp(`^Mensagem número ${n}\\d{2}:\\d{2}$`) });
    await bubble(45).waitFor();
    expect(await list.locator('[data-message-id]').count()).toBe(20);
    // The newest message is in view (the list opened at the bottom).
    expect(await list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(5);

    const offset = (n: number) => bubble(n).evaluate((el) => el.getBoundingClientRect().top - el.closest('[data-testid="message-list"]')!.getBoundingClientRect().top);
    await list.evaluate((el) => {
      el.scrollTop = 0;
    });
    await until(async () => (await list.locator('[data-message-id]').count()) === 40);
    await page.waitForTimeout(200);
    // Message 26 (the oldest of page 1) did not jump: it is still near the top of the pane, older ones above it.
    const after = await offset(26);
    expect(after).toBeGreaterThanOrEqual(0);
    expect(after).toBeLessThan(120);
    expect(await list.evaluate((el) => el.scrollTop)).toBeGreaterThan(200);

    await list.evaluate((el) => {
      el.scrollTop = 0;
    });
    await until(async () => (await list.locator('[data-message-id]').count()) === 45);
    await bubble(1).waitFor();
    await list.evaluate((el) => {
      el.scrollTop = 0;
    });
    await page.waitForTimeout(500);
    expect(pages).toEqual(['1', '2', '3']);
    expect(errors).toEqual([]);
  });
});
