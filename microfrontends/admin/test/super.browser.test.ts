/**
 * Browser test of the super admin's screens and of an expired company: the real API (createTestKernel with
 * the helps plugin) and the shell's static server on random ports, driven by headless Chromium through
 * playwright-core. The super admin creates a plan (settings > plans) and a company on it due in three days
 * (companies), sees the row tinted yellow, renews it (the tint goes), and adds a help entry; a company past
 * its due date signs in and lands on /financeiro-aberto with its plan, amount and due date, the API refusing
 * its private routes, until the super admin renews it and "check again" lets it in. Skipped, with a message,
 * when /usr/bin/chromium is absent.
 */
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { createTestKernel, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, type TestKernel } from '@atendo/testing';
import helps from '../../../plugins/helps/src/index';
import { createWebServer } from '../../../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../../../shell/test/harness';

const describeBrowser = browserDescribe('microfrontends/admin/test/super.browser.test.ts');

jest.setTimeout(180_000);

/** `YYYY-MM-DD` `days` from today (UTC, as the API judges due dates). */
function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
const dmy = (iso: string) => iso.split('-').reverse().join('/');

describeBrowser('super admin and expired companies in Chromium', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    buildWeb(240_000);
    const webPort = await freePort();
    base = `http://127.0.0.1:${webPort}`;
    k = await createTestKernel({ plugins: [helps], env: { FRONTEND_URL: base } });
    const apiUrl = await k.listen();
    web = await createWebServer({ apiUrl });
    await web.listen({ port: webPort, host: '127.0.0.1' });
  }, 300_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await web?.close();
    await k?.close();
  });

  async function open() {
    const profile = await launchProfile({ width: 1366, height: 900 });
    closers.push(profile.close);
    const errors: string[] = [];
    profile.page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));
    return { page: profile.page, errors };
  }

  async function signIn(page: Page, email: string, password: string, lands = '/tickets'): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}${lands}`);
  }

  test('the super admin creates a plan and a company on it, sees the due-date tint, renews it, and adds a help entry', async () => {
    const { page, errors } = await open();
    await signIn(page, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);

    // Settings > plans: a new plan.
    await page.locator('[data-testid="side-menu"] [data-testid="menu-settings"]').click();
    await page.waitForURL(`${base}/settings`);
    await page.getByTestId('tab-plans').click();
    await page.getByTestId('plan-add').click();
    const planDialog = page.getByRole('dialog', { name: 'Adicionar plano' });
    await planDialog.getByTestId('plan-name').fill('Ouro Navegador');
    await planDialog.getByTestId('plan-amount').fill('149,90');
    await planDialog.getByTestId('plan-users').fill('5');
    await planDialog.getByTestId('plan-flag-useOpenAi').uncheck();
    await planDialog.getByTestId('plan-submit').click();
    await planDialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="plan-row-"]', { hasText: 'Ouro Navegador' }).waitFor();
    const plan = await k.db('plans').where({ name: 'Ouro Navegador' }).first();
    expect(plan).toMatchObject({ users: 5, useOpenAi: false, useKanban: true });

    // Companies: a company on that plan due in three days, tinted yellow; renewed, no tint.
    await page.locator('[data-testid="side-menu"] [data-testid="menu-companies"]').click();
    await page.waitForURL(`${base}/companies`);
    await page.getByTestId('company-add').click();
    const companyDialog = page.getByRole('dialog', { name: 'Adicionar empresa' });
    await companyDialog.getByTestId('company-name').fill('Loja Navegador');
    await companyDialog.getByTestId('company-email').fill('dono@loja-navegador.test');
    await companyDialog.getByTestId('company-password').fill('senha-123');
    await companyDialog.getByTestId('company-plan').selectOption(String(plan.id));
    await companyDialog.getByTestId('company-due').fill(day(3));
    await companyDialog.getByTestId('company-recurrence').selectOption('MONTHLY');
    await companyDialog.getByTestId('company-submit').click();
    await companyDialog.waitFor({ state: 'detached' });
    const company = await k.db('companies').where({ name: 'Loja Navegador' }).first();
    expect(company).toMatchObject({ planId: plan.id, dueDate: day(3) });
    const row = page.getByTestId(`company-row-${company.id}`);
    await row.waitFor();
    expect(await row.getAttribute('data-tint')).toBe('warning');
    expect(await row.textContent()).toContain('Ouro Navegador');
    expect(await row.textContent()).toMatch(/R\$\s149,90/);
    await page.getByTestId(`company-renew-${company.id}`).click();
    await page.waitForFunction((id) => document.querySelector(`[data-testid="company-row-${id}"]`)?.getAttribute('data-tint') === '', company.id);
    const renewed = (await k.db('companies').where({ id: company.id }).first()).dueDate as string;
    expect(renewed > day(27)).toBe(true);
    expect(await row.textContent()).toContain(dmy(renewed));
    await page.reload();
    await page.getByTestId(`company-row-${company.id}`).waitFor();
    expect(await page.getByTestId(`company-row-${company.id}`).getAttribute('data-tint')).toBe('');

    // Settings > helps: a help entry.
    await page.goto(`${base}/settings`);
    await page.getByTestId('tab-helps').click();
    await page.getByTestId('help-add').click();
    const helpDialog = page.getByRole('dialog', { name: 'Adicionar ajuda' });
    await helpDialog.getByTestId('help-title').fill('Primeiros passos');
    await helpDialog.getByTestId('help-video').fill('dQw4w9WgXcQ');
    await helpDialog.getByTestId('help-submit').click();
    await helpDialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid^="help-row-"]', { hasText: 'Primeiros passos' }).waitFor();
    expect(errors).toEqual([]);
  });

  test('an expired company lands on /financeiro-aberto (plan, amount, due date), is kept there, and gets in once renewed', async () => {
    const { companyId, planId, admin } = await k.createCompany({ name: 'Vencida Navegador' });
    await k.db('plans').where({ id: planId }).update({ name: 'Prata Navegador', amount: 89.9 });
    await k.db('companies').where({ id: companyId }).update({ dueDate: day(-2), recurrence: 'MONTHLY' });
    k.app.sessionGuard.changed({ companyId });
    const { page } = await open();
    await signIn(page, admin.email, admin.password, '/financeiro-aberto');
    const facts = page.getByTestId('expired-facts');
    await facts.waitFor();
    expect(await facts.textContent()).toContain('Prata Navegador');
    expect(await facts.textContent()).toMatch(/R\$\s89,90 \/ mês/);
    expect(await facts.textContent()).toContain(dmy(day(-2)));
    // Any other page sends it back; the API refuses it meanwhile.
    await page.goto(`${base}/users`);
    await page.waitForURL(`${base}/financeiro-aberto`);
    expect((await k.as(admin, 'GET', '/users/')).json().error).toBe('ERR_SUBSCRIPTION_EXPIRED');
    await page.getByTestId('expired-check').click();
    await page.getByTestId('still-expired').waitFor();

    // The super admin renews it: "check again" lets it in at once.
    expect((await k.as(k.superAdmin, 'POST', `/companies/${companyId}/renew`)).statusCode).toBe(200);
    await page.getByTestId('expired-check').click();
    await page.waitForURL(`${base}/tickets`);
    await page.goto(`${base}/users`);
    await page.getByTestId('users-page').waitFor();
    expect(page.url()).toBe(`${base}/users`);
  });
});
