/**
 * Browser test of the agent area's everyday screens: the real API (createTestKernel with the tickets
 * pipeline, the schedules and quick-messages plugins, a WhatsApp Cloud connection whose Graph API is a local
 * server: plugins/schedules/test/harness.ts) and the shell's static server on random ports, driven by
 * headless Chromium through playwright-core (the shell's browser-test setup). An admin
 * - creates a quick message with a variable on /quick-messages, then types "/" in a conversation, picks it
 *   and sends it: the customer receives it with the variable filled;
 * - schedules a message a few seconds ahead on /schedules (contact search), and sees the row turn "Enviada"
 *   live when the server sends it; the customer receives it;
 * - adds a to-do task on /todolist, kept in the browser across a reload.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Locator, Page } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import quickMessages from '../../../plugins/quick-messages/src/index';
import { createWebServer, ROOT_DIR } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';
import { Graph, PLUGINS, sharedEnv, Tenant } from '../../../plugins/schedules/test/harness';

const describeBrowser = browserDescribe('microfrontends/agent/test/agent.browser.test.ts');

jest.setTimeout(90_000);

async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 15_000 });
}

describeBrowser('agent screens in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let t: Tenant;
  let customer: { id: number; number: string };
  let ticket: { id: number; uuid: string };
  const graph = new Graph();
  const closers: (() => Promise<void>)[] = [];
  const PHONE = '247000000000777';

  beforeAll(async () => {
    buildWeb(300_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/agent/dist/remoteEntry.js'))).toBe(true);
    await graph.start();
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [...PLUGINS(), quickMessages], env: sharedEnv(graph.url, { FRONTEND_URL: base }) });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
    t = await Tenant.create(k, [PHONE]);
    await k.db('users').where({ id: t.admin.id }).update({ name: 'Ana Atendente' });
    customer = await t.writesIn(PHONE, 'Bruno Costa');
    ticket = await k.db('tickets').where({ companyId: t.companyId, contactId: customer.id }).first();
    const queue = await t.api('POST', '/queue', { name: 'Vendas', color: '#1E88E5', greetingMessage: '' });
    await t.api('PUT', `/tickets/${ticket.id}`, { status: 'open', userId: t.admin.id, queueId: queue.id });
  }, 360_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await web?.close();
    await k?.close();
    await graph.stop();
  });

  async function open(): Promise<{ page: Page; errors: string[] }> {
    const profile = await launchProfile({ width: 1366, height: 860 });
    closers.push(profile.close);
    const errors: string[] = [];
    profile.page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));
    const page = profile.page;
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(t.admin.email);
    await page.getByLabel('Senha', { exact: true }).fill(t.admin.password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
    return { page, errors };
  }
  const menu = (page: Page, key: string) => page.locator(`[data-testid="side-menu"] [data-testid="menu-${key}"]`);

  test('a quick message created on /quick-messages, then used with "/" in a conversation', async () => {
    const { page, errors } = await open();
    await menu(page, 'quickMessages').click();
    await page.waitForURL(`${base}/quick-messages`);
    await page.getByTestId('quick-messages-empty').waitFor();
    await page.getByTestId('quick-message-add').click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar resposta rápida' });
    await dialog.getByTestId('quick-message-shortcode').fill('saudacao');
    await dialog.getByTestId('quick-message-message').fill('Olá ');
    await dialog.getByTestId('variable-picker').selectOption('firstName');
    await dialog.getByTestId('quick-message-message').press('End');
    await dialog.getByTestId('quick-message-message').pressSequentially(', tudo bem?');
    expect(await dialog.getByTestId('quick-message-message').inputValue()).toBe('Olá {{firstName}}, tudo bem?');
    await dialog.getByTestId('quick-message-submit').click();
    await expectText(page.locator('[data-testid^="quick-message-row-"]'), 'saudacao');
    expect(await k.db('quickMessages').where({ companyId: t.companyId, shortcode: 'saudacao' }).first('message')).toEqual({ message: 'Olá {{firstName}}, tudo bem?' });

    await page.goto(`${base}/tickets/${ticket.uuid}`);
    const box = page.getByTestId('message-text');
    await box.waitFor({ timeout: 20_000 });
    await box.fill('/sauda');
    const reply = page.getByTestId('quick-replies').getByTestId('quick-reply').filter({ hasText: 'saudacao' });
    await reply.click();
    expect(await box.inputValue()).toBe('Olá {{firstName}}, tudo bem?');
    await box.press('Enter');
    // The customer receives it with the variable filled (after the greeting sent when the ticket was accepted).
    const sent = await waitFor(() => graph.to(customer.number).find((s) => s.text.includes('Olá Bruno, tudo bem?')), 15_000);
    expect(sent?.text).not.toContain('{{');
    expect(errors).toEqual([]);
  });

  test('a schedule created on /schedules a few seconds ahead is sent and shown as sent', async () => {
    const { page, errors } = await open();
    await menu(page, 'schedules').click();
    await page.waitForURL(`${base}/schedules`);
    await page.getByTestId('schedules-empty').waitFor();
    await page.getByTestId('schedule-add').click();
    const dialog = page.getByRole('dialog', { name: 'Novo agendamento' });
    // Default: one hour from now (the browser's time, to the minute).
    const shown = await dialog.getByTestId('schedule-send-at').inputValue();
    const ahead = await page.evaluate((v) => new Date(v).getTime() - Date.now(), shown);
    expect(ahead).toBeGreaterThan(58 * 60_000);
    expect(ahead).toBeLessThanOrEqual(60 * 60_000);
    await dialog.getByTestId('schedule-contact').fill('Bruno');
    await dialog.getByTestId(`schedule-contact-${customer.id}`).click();
    await dialog.getByTestId('schedule-body').fill('Lembrete: sua consulta é amanhã, {{firstName}}.');
    // A near send time (with seconds): six seconds from now, in the browser's time.
    const soon = await page.evaluate(() => {
      const d = new Date(Date.now() + 6000);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    });
    await dialog.getByTestId('schedule-send-at').fill(soon);
    await dialog.getByTestId('schedule-submit').click();
    const row = page.locator('[data-testid^="schedule-row-"]').filter({ hasText: 'Bruno Costa' });
    await expectText(row, 'Lembrete: sua consulta é ...');
    await expectText(row, 'Pendente');
    await expectText(row.locator('[data-testid^="schedule-status-"]'), 'Enviada');
    const sent = graph.to(customer.number).find((s) => s.text === 'Lembrete: sua consulta é amanhã, Bruno.');
    expect(sent).toBeTruthy();
    const stored = await k.db('schedules').where({ companyId: t.companyId }).first();
    expect(stored).toMatchObject({ status: 'ENVIADA', ticketId: ticket.id });
    expect(Math.abs(new Date(stored.sendAt).getTime() - new Date(soon).getTime())).toBeLessThan(1000);
    // A sent schedule opens read-only, without the submit button.
    await row.getByRole('button', { name: 'Editar agendamento de Bruno Costa' }).click();
    await page.getByRole('dialog', { name: 'Agendamento enviado' }).waitFor();
    expect(await page.getByTestId('schedule-submit').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  test('a to-do task is added and kept across a reload', async () => {
    const { page, errors } = await open();
    await menu(page, 'todolist').click();
    await page.waitForURL(`${base}/todolist`);
    await page.getByTestId('todo-input').fill('Ligar para o Bruno');
    await page.getByTestId('todo-submit').click();
    await expectText(page.getByTestId('todo-item-0'), 'Ligar para o Bruno');
    await page.reload();
    await expectText(page.getByTestId('todo-item-0'), 'Ligar para o Bruno');
    const stored = JSON.parse((await page.evaluate(() => window.localStorage.getItem('tasks'))) ?? '[]');
    expect(stored).toEqual([expect.objectContaining({ text: 'Ligar para o Bruno', createdAt: expect.any(String) })]);
    expect(errors).toEqual([]);
  });
});
