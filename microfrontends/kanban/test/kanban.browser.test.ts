/**
 * Browser tests of the kanban area: the real API (createTestKernel with the tickets plugin and its
 * dependencies) and the shell's static server on random ports, driven by headless Chromium through
 * playwright-core (the shell's browser-test setup).
 * - /kanban: a company admin drags a card with the mouse from the default lane to a kanban tag's lane and
 *   then to another one (the spec's toasts, the links in the database, the lane counts), and the board
 *   shows the same after a reload; a move made elsewhere shows live; a card moved with the keyboard.
 * - /moments: a pending ticket sits on "Pendentes"; an attendant accepts it through the API and the panel
 *   moves it to the attendant's card without a reload.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Locator, Page } from 'playwright-core';
import { waitFor, type TestKernel } from '@atendo/testing';
import { createWebServer, ROOT_DIR } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';
import { createContact, createTag, createTenant, insertTicket, ticketsKernel, type Tenant } from '../../../plugins/tickets/test/helpers';

const describeBrowser = browserDescribe('microfrontends/kanban/test/kanban.browser.test.ts');

jest.setTimeout(120_000);

describeBrowser('the kanban area in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let t: Tenant;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    buildWeb(280_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/kanban/dist/remoteEntry.js'))).toBe(true);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await ticketsKernel({ env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
    t = await createTenant(k, { name: 'Quadro Ltda' });
  }, 330_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await web?.close();
    await k?.close();
  });

  async function open() {
    const profile = await launchProfile({ width: 1440, height: 900 });
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

  /** Drags `card` onto `lane` with the mouse, in small steps (the pointer sensor starts after 6 px). */
  async function drag(page: Page, card: Locator, lane: Locator): Promise<void> {
    const from = (await card.boundingBox())!;
    const to = (await lane.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + 12);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 10, from.y + 20, { steps: 3 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 3, { steps: 12 });
    await page.mouse.move(to.x + to.width / 2 + 2, to.y + to.height / 3 + 2, { steps: 2 });
    await page.mouse.up();
  }

  const tagIds = async (ticketId: number) => (await k.db('ticketTags').where({ ticketId }).orderBy('tagId').select('tagId')).map((r: { tagId: number }) => Number(r.tagId));
  const text = async (l: Locator) => (await l.textContent()) ?? '';
  /** Same ids, in any order. */
  const same = (a: number[], b: number[]) => JSON.stringify([...a].sort((x, y) => x - y)) === JSON.stringify([...b].sort((x, y) => x - y));

  test('dragging a card between lanes replaces its lane tag, with the toasts, and survives a reload', async () => {
    const lead = await createTag(k, t.companyId, { name: 'Qualificado', color: '#e53935', kanban: 1 });
    const won = await createTag(k, t.companyId, { name: 'Ganho', color: '#43a047', kanban: 1 });
    const plain = await createTag(k, t.companyId, { name: 'Comum', kanban: 0 });
    const maria = await createContact(k, t.companyId, { name: 'Maria Quadro', number: '5511988887777' });
    const joao = await createContact(k, t.companyId, { name: 'João Quadro' });
    const card1 = await insertTicket(k, t.companyId, { contactId: maria.id, whatsappId: t.conn.id, queueId: t.queueA.id, status: 'pending' });
    const card2 = await insertTicket(k, t.companyId, { contactId: joao.id, whatsappId: t.conn.id, queueId: t.queueA.id, userId: t.userA.id, status: 'open' });
    await k.db('tickets').where({ id: card1.id }).update({ lastMessage: 'Quero um orçamento' });
    await k.db('ticketTags').insert([
      { ticketId: card1.id, tagId: plain.id, companyId: t.companyId },
      { ticketId: card2.id, tagId: lead.id, companyId: t.companyId },
    ]);

    const { page, errors } = await open();
    await signIn(page, t.admin.email, t.admin.password);
    await page.locator('[data-testid="side-menu"] [data-testid="menu-kanban"]').click();
    await page.waitForURL(`${base}/kanban`);
    const lane = (id: number) => page.getByTestId(`lane-${id}`);
    const card = (laneId: number, ticketId: number) => lane(laneId).getByTestId(`card-${ticketId}`);
    await card(0, card1.id).waitFor();
    expect(await page.locator('[data-testid^="lane-"][data-lane-name]').evaluateAll((els) => els.map((e) => e.getAttribute('data-lane-name')))).toEqual(['Em aberto', 'Qualificado', 'Ganho']);
    expect(await lane(lead.id).locator('header').evaluate((h) => getComputedStyle(h).backgroundColor)).toBe('rgb(229, 57, 53)');
    const c1 = await text(card(0, card1.id));
    for (const part of [`#${card1.id}`, 'Maria Quadro', '5511988887777', 'Quero um orçamento']) expect(c1).toContain(part);
    expect(await text(page.getByTestId('lane-0-count'))).toBe('1');
    expect(await text(page.getByTestId(`lane-${lead.id}-count`))).toBe('1');

    // default lane -> Qualificado: one link added (the plain tag stays)
    await drag(page, card(0, card1.id), lane(lead.id));
    await page.getByText('Ticket Tag Adicionado com Sucesso!').first().waitFor();
    await card(lead.id, card1.id).waitFor();
    await waitFor(async () => same(await tagIds(card1.id), [lead.id, plain.id]));
    await waitFor(async () => (await text(page.getByTestId(`lane-${lead.id}-count`))) === '2');
    expect(await text(page.getByTestId('lane-0-count'))).toBe('0');

    // Qualificado -> Ganho: the lane's tag replaced (both toasts)
    await drag(page, card(lead.id, card1.id), lane(won.id));
    await page.getByText('Ticket Tag Removido!').first().waitFor();
    await card(won.id, card1.id).waitFor();
    await waitFor(async () => same(await tagIds(card1.id), [won.id, plain.id]));

    await page.reload();
    await card(won.id, card1.id).waitFor();
    expect(await card(lead.id, card1.id).count()).toBe(0);
    expect(await card(0, card1.id).count()).toBe(0);
    expect(await text(page.getByTestId(`lane-${won.id}-count`))).toBe('1');
    expect(await text(page.getByTestId(`lane-${lead.id}-count`))).toBe('1');

    // a move made elsewhere (another attendant's board) shows live
    expect((await k.as(t.userA, 'DELETE', `/ticket-tags/${card2.id}/${lead.id}`)).statusCode).toBe(200);
    await card(0, card2.id).waitFor();
    await waitFor(async () => (await text(page.getByTestId(`lane-${lead.id}-count`))) === '0', 10_000);

    // the keyboard: Space picks the card up, arrows move it (25 px a press), Space drops it
    const src = (await card(0, card2.id).boundingBox())!;
    const dst = (await lane(lead.id).boundingBox())!;
    await card(0, card2.id).focus();
    await page.keyboard.press('Space');
    const presses = Math.ceil((dst.x + dst.width / 2 - (src.x + src.width / 2)) / 25);
    for (let i = 0; i < presses; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Space');
    await card(lead.id, card2.id).waitFor();
    await waitFor(async () => same(await tagIds(card2.id), [lead.id]));

    // the open button goes to the conversation
    await card(won.id, card1.id).getByRole('button', { name: 'Ver ticket' }).click();
    await page.waitForURL(`${base}/tickets/${card1.uuid}`);
    expect(errors).toEqual([]);
  });

  test('/moments: a ticket accepted elsewhere moves from Pendentes to its attendant\'s card, live', async () => {
    const contact = await createContact(k, t.companyId, { name: 'Cliente Momento' });
    const pending = await insertTicket(k, t.companyId, { contactId: contact.id, whatsappId: t.conn2.id, queueId: t.queueB.id, status: 'pending' });
    const { page, errors } = await open();
    await signIn(page, t.admin.email, t.admin.password);
    await page.locator('[data-testid="side-menu"] [data-testid="menu-moments"]').click();
    await page.waitForURL(`${base}/moments`);
    const pendingCard = page.getByTestId('moments-card-pending');
    await pendingCard.getByTestId(`moments-ticket-${pending.id}`).waitFor();
    expect(await page.getByTestId(`moments-card-user-${t.userB.id}`).count()).toBe(0);

    const accepted = await k.as(t.userB, 'PUT', `/tickets/${pending.id}`, { status: 'open', userId: t.userB.id });
    expect(accepted.statusCode).toBe(200);
    const mine = page.getByTestId(`moments-card-user-${t.userB.id}`);
    await mine.getByTestId(`moments-ticket-${pending.id}`).waitFor({ timeout: 10_000 });
    expect(await mine.getAttribute('aria-label')).toBe(t.userB.name);
    await waitFor(async () => (await pendingCard.getByTestId(`moments-ticket-${pending.id}`).count()) === 0);
    expect(await text(page.getByTestId('moments-summary'))).toMatch(/Em atendimento: \d+ · Pendentes: \d+/);
    expect(errors).toEqual([]);
  });
});
