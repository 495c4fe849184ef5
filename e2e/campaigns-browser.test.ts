/**
 * Browser test of the campaigns area: the real API (a kernel with the campaigns plugin and the real outbound
 * path to a WhatsApp Cloud connection whose Graph API is a local HTTP server, plugins/campaigns/test/harness)
 * and the shell's static server on random ports, driven by headless Chromium. An admin sets the send
 * interval to 0 on /campaigns-config, creates a contact list on /contact-lists, imports two contacts from a
 * spreadsheet (progress, then the rows), adds a third by hand, creates a campaign on the Cloud connection
 * scheduled now from /campaigns, and watches its report reach Finalizada with every contact delivered; the
 * Graph server received exactly one message per contact, with its name filled in. No uncaught page errors.
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext } from 'playwright-core';
import * as XLSX from '@e965/xlsx';
import { waitFor, type TestKernel } from '@atendo/testing';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../shell/test/harness';
import { bootKernel, Graph, phone, Tenant } from '../plugins/campaigns/test/harness';

const describeBrowser = browserDescribe('e2e/campaigns-browser.test.ts');

jest.setTimeout(180_000);

/** `YYYY-MM-DDTHH:mm` of now minus a minute in the company's zone (America/Sao_Paulo, the default): a start now. */
function nowInSaoPaulo(): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(Date.now() - 60_000))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

describeBrowser('campaigns area in Chromium', () => {
  const graph = new Graph();
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let context: BrowserContext | undefined;
  let profileDir: string | undefined;

  beforeAll(async () => {
    buildWeb(240_000);
    expect(existsSync(join(ROOT_DIR, 'microfrontends/campaigns/dist/remoteEntry.js'))).toBe(true);
    await graph.start([]);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await bootKernel(graph, { env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 300_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await web?.close();
    await k?.close();
    await graph.stop();
  });

  test('settings, a list by import plus one contact, a campaign on a Cloud connection, its report reaching Finalizada', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection(`3100${String(Date.now() % 1e8).padStart(8, "0")}`);
    const [ana, bruno, carla] = [phone(), phone(), phone()];

    const profile = await launchProfile({ width: 1366, height: 900 });
    ({ context, dir: profileDir } = profile);
    const page = profile.page;
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));

    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(t.admin.email);
    await page.getByLabel('Senha', { exact: true }).fill(t.admin.password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);

    // Settings: no interval between messages.
    await page.getByTestId('menu-campaignsConfig').click();
    await page.waitForURL(`${base}/campaigns-config`);
    await page.getByTestId('config-messageInterval').selectOption('0');
    await page.getByTestId('config-save').click();
    await page.getByText('Configurações salvas.').waitFor();
    await waitFor(async () => (await k.db('campaigns_settings').where({ companyId: t.companyId, key: 'messageInterval' }).first())?.value === '0');

    // A contact list, two contacts imported from a spreadsheet, one added by hand.
    await page.getByTestId('menu-contactLists').click();
    await page.waitForURL(`${base}/contact-lists`);
    await page.getByTestId('contact-lists-empty').waitFor();
    await page.getByTestId('contact-list-add').click();
    await page.getByTestId('contact-list-name').fill('Clientes VIP');
    await page.getByTestId('contact-list-submit').click();
    const row = page.locator('[data-testid^="contact-list-row-"]', { hasText: 'Clientes VIP' });
    await row.waitFor();
    await row.locator('[data-testid^="contact-list-open-"]').click();
    await page.waitForURL(/\/contact-lists\/\d+\/contacts$/);
    await page.getByRole('heading', { name: 'Clientes VIP' }).waitFor();
    await page.getByTestId('items-empty').waitFor();
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['nome', 'numero', 'email'], ['Ana', ana, 'ana@example.com'], ['Bruno', bruno, ''], ['X', 'abc', '']]), 'Plan1');
    const buffer = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    await page.getByTestId('items-import').click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('confirm-button').click();
    await (await chooser).setFiles({ name: 'contatos.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer });
    await page.locator('[data-testid="import-status"][data-status="done"]').waitFor();
    expect(await page.getByTestId('import-counts').textContent()).toContain('2 novos');
    expect(await page.getByTestId('import-errors').textContent()).toContain('Linha 4');
    await page.locator('[data-testid^="item-row-"]', { hasText: 'Bruno' }).waitFor();
    await page.getByTestId('item-add').click();
    await page.getByTestId('item-name').fill('Carla');
    await page.getByTestId('item-number').fill(carla);
    await page.getByTestId('item-submit').click();
    await page.locator('[data-testid^="item-row-"]', { hasText: 'Carla' }).waitFor();
    expect(await page.getByTestId('items-count').textContent()).toBe('3 contatos');

    // The campaign: the list, the Cloud connection, scheduled now, a message with {nome}.
    await page.getByTestId('menu-campaigns').click();
    await page.waitForURL(`${base}/campaigns`);
    await page.getByTestId('campaigns-empty').waitFor();
    await page.getByTestId('campaign-add').click();
    const dialog = page.getByRole('dialog', { name: 'Nova campanha' });
    await dialog.getByTestId('campaign-name').fill('Black Friday');
    await dialog.locator('[data-testid="campaign-list"] option', { hasText: 'Clientes VIP' }).waitFor({ state: 'attached' });
    await dialog.getByTestId('campaign-list').selectOption({ label: 'Clientes VIP' });
    await dialog.getByTestId(`campaign-connection-${conn}`).check();
    await dialog.getByTestId('campaign-scheduled').fill(nowInSaoPaulo());
    await dialog.getByTestId('campaign-message1').fill('Olá {nome}, temos ofertas!');
    await dialog.getByTestId('campaign-submit').click();
    await page.getByText('Campanha salva com sucesso.').waitFor();
    // Saved: the dialog now edits the campaign (or shows it read-only once it started); close it.
    await page.getByRole('dialog').getByRole('button', { name: 'Fechar' }).first().click();
    const campaign = await waitFor(async () => k.db('campaigns').where({ companyId: t.companyId, name: 'Black Friday' }).first());
    await page.getByTestId(`campaign-row-${campaign.id}`).waitFor();

    // The report, live until Finalizada.
    await page.getByTestId(`campaign-report-${campaign.id}`).click();
    await page.waitForURL(`${base}/campaign/${campaign.id}/report`);
    await page.locator('[data-testid="report-status"][data-status="FINALIZADA"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('report-status').textContent()).toBe('Finalizada');
    await waitFor(async () => (await page.getByTestId('report-delivered-of').textContent()) === '3 de 3 entregues', 15_000);
    expect(await page.getByTestId('report-progress').getAttribute('aria-valuenow')).toBe('3');
    await page.getByTestId('report-show-recipients').click();
    await page.locator('[data-testid^="recipient-"]').nth(2).waitFor();
    expect(await page.locator('[data-testid^="recipient-"]').count()).toBe(3);

    // Exactly one message per contact reached the provider, with the name filled in.
    await waitFor(() => graph.to(ana).length > 0 && graph.to(bruno).length > 0 && graph.to(carla).length > 0, 15_000);
    expect([graph.to(ana), graph.to(bruno), graph.to(carla)].map((s) => s.map((m) => m.text))).toEqual([['Olá Ana, temos ofertas!'], ['Olá Bruno, temos ofertas!'], ['Olá Carla, temos ofertas!']]);

    // Back on the list (refreshed on opening: it missed the events meanwhile), the campaign shows Finalizada.
    await page.getByTestId('report-back').click();
    await page.waitForURL(`${base}/campaigns`);
    await page.locator(`[data-testid="campaign-status-${campaign.id}"][data-status="FINALIZADA"]`).waitFor();
    expect(await page.getByTestId(`campaign-status-${campaign.id}`).textContent()).toBe('Finalizada');
    expect(errors).toEqual([]);
  });
});
