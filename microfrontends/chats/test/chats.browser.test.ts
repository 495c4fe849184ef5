/**
 * Browser test of the chat area: the real API (createTestKernel with the chats plugin) and the shell's
 * static server on random ports, driven by headless Chromium (the shell's browser-test setup). Ana signs
 * in, opens the internal chat from the side menu, sees Bia's chat with its unread count, opens it (read),
 * sends a message with Enter, sees Bia's reply and a new chat arrive live, and the chat close when Bia
 * deletes it; no uncaught page errors. Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext } from 'playwright-core';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import chats from '../../../plugins/chats/src/index';
import { createWebServer, ROOT_DIR } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';

const describeBrowser = browserDescribe('microfrontends/chats/test/chats.browser.test.ts');

jest.setTimeout(120_000);

describeBrowser('internal chat in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let context: BrowserContext | undefined;
  let profileDir: string | undefined;

  beforeAll(async () => {
    buildWeb(240_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/chats/dist/remoteEntry.js'))).toBe(true);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [chats], env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 300_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await web?.close();
    await k?.close();
  });

  test('open a chat from the menu, read it, send with Enter, follow live messages, chats and a delete', async () => {
    const { companyId } = await k.createCompany({ name: 'Loja Chat' });
    const ana = await k.createUser(companyId, { profile: 'user', name: 'Ana' });
    const bia = await k.createUser(companyId, { profile: 'user', name: 'Bia' });
    const created = await k.as(bia, 'POST', '/chats', { title: 'Plantão', users: [{ id: ana.id }] });
    expect(created.statusCode).toBe(200);
    const plantao = created.json() as { id: number; uuid: string };
    expect((await k.as(bia, 'POST', `/chats/${plantao.id}/messages`, { message: 'Bom dia, Ana' })).statusCode).toBe(200);

    const profile = await launchProfile({ width: 1280, height: 800 });
    ({ context, dir: profileDir } = profile);
    const page = profile.page;
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));

    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(ana.email);
    await page.getByLabel('Senha', { exact: true }).fill(ana.password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
    await page.getByTestId('menu-chats').click();
    await page.waitForURL(`${base}/chats`);
    await page.getByTestId('chat-list').waitFor();
    expect(await page.getByTestId(`unread-${plantao.id}`).textContent()).toBe('1');
    expect(await page.getByTestId(`open-chat-${plantao.id}`).textContent()).toContain('Bom dia, Ana');

    // Open: the messages, and the chat is read (server and screen).
    await page.getByTestId(`open-chat-${plantao.id}`).click();
    await page.waitForURL(`${base}/chats/${plantao.uuid}`);
    await page.getByTestId('chat-message').filter({ hasText: 'Bom dia, Ana' }).waitFor();
    await page.getByTestId(`unread-${plantao.id}`).waitFor({ state: 'detached' });
    await waitFor(async () => Number((await k.db('chatUsers').where({ chatId: plantao.id, userId: ana.id }).first()).unreads) === 0);

    // Send with Enter: it shows on the right and is stored.
    await page.getByTestId('message-input').fill('Oi Bia, tudo certo');
    await page.getByTestId('message-input').press('Enter');
    await page.locator('[data-testid="chat-message"][data-own="true"]', { hasText: 'Oi Bia, tudo certo' }).waitFor();
    await waitFor(async () => Boolean(await k.db('chatMessages').where({ chatId: plantao.id, senderId: ana.id, message: 'Oi Bia, tudo certo' }).first()));
    expect(await page.getByTestId('message-input').inputValue()).toBe('');

    // Bia answers: live in the open chat.
    await k.as(bia, 'POST', `/chats/${plantao.id}/messages`, { message: 'Tudo, obrigada!' });
    await page.locator('[data-testid="chat-message"][data-own="false"]', { hasText: 'Tudo, obrigada!' }).waitFor();

    // A new chat with Ana comes first; Bia's chats show no edit/delete to Ana.
    const fin = (await k.as(bia, 'POST', '/chats', { title: 'Financeiro', users: [{ id: ana.id }] })).json() as { id: number };
    await page.getByTestId(`chat-row-${fin.id}`).waitFor();
    expect(await page.locator('[data-testid^="chat-row-"] strong').allTextContents()).toEqual(['Financeiro', 'Plantão']);
    expect(await page.getByTestId(`edit-chat-${plantao.id}`).count()).toBe(0);

    // Bia deletes the open chat: it closes.
    await k.as(bia, 'DELETE', `/chats/${plantao.id}`);
    await page.waitForURL(`${base}/chats`);
    await page.getByTestId('select-chat').waitFor();
    expect(await page.getByTestId(`chat-row-${plantao.id}`).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
