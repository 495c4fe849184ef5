/**
 * Confirmation: the recipient first gets the confirmation text; an explicit positive reply gets the campaign
 * message at once (and the automation bot, loaded here with a greeting menu, does not answer it); a negative
 * reply and a reply from a number not in the campaign change nothing on the campaign side (the bot answers
 * them as usual). The campaign ends (FINALIZADA) only when every recipient was delivered or failed: the
 * unanswered confirmations expire after CAMPAIGNS_CONFIRMATION_TTL_SECONDS (short here).
 */
import { waitFor, type TestKernel } from '@atendo/testing';
import { createAutomationPlugin } from '@atendo/plugin-automation/plugin';
import { bootKernel, Graph, noMore, phone, PLUGINS, Tenant } from './harness';

/** The confirmation window of this test's kernel: long enough for its replies, short enough to wait for. */
const TTL_SECONDS = 15;

describe('campaign confirmation', () => {
  const graph = new Graph();
  let k: TestKernel;
  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph, { plugins: [...PLUGINS(), createAutomationPlugin()], env: { CAMPAIGNS_CONFIRMATION_TTL_SECONDS: String(TTL_SECONDS) } });
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('positive, negative and foreign replies', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('330000000000001', { greetingMessage: 'Bem-vindo! Escolha:' });
    const q1 = await t.api('POST', '/queue', { name: 'Vendas', color: '#112233' });
    const q2 = await t.api('POST', '/queue', { name: 'Suporte', color: '#445566' });
    await t.api('PUT', `/whatsapp/${conn}`, { queueIds: [q1.id, q2.id] });
    await t.settings({ messageInterval: 0 });
    const yes = { name: 'Sim Silva', number: phone() };
    const no = { name: 'Nao Souza', number: phone() };
    const quiet = { name: 'Calado Lima', number: phone() };
    const stranger = phone();
    const listId = await t.list([yes, no, quiet]);
    const c = await t.campaign({
      contactListId: listId,
      whatsappId: conn,
      confirmation: 'true',
      message1: 'Seu cupom, {nome}: NATAL10',
      confirmationMessage1: 'Olá {nome}, quer receber o cupom? Responda 1 ou SIM.',
    });
    // Every recipient got the confirmation request; none the message yet. Awaiting a reply is not done: the
    // campaign goes on (EM_ANDAMENTO) until every recipient was delivered or failed.
    for (const p of [yes, no, quiet]) {
      const got = await waitFor(() => (graph.to(p.number).length ? graph.to(p.number) : undefined), 5000);
      expect(got!.map((s) => s.text)).toEqual([`Olá ${p.name}, quer receber o cupom? Responda 1 ou SIM.`]);
    }
    const asked = await waitFor(async () => {
      const r = await t.api('GET', `/campaigns/${c.id}`);
      return r.counts.confirmationRequested === 3 ? r : undefined;
    }, 5000);
    expect(asked).toMatchObject({ status: 'EM_ANDAMENTO', counts: { validContacts: 3, confirmationRequested: 3, confirmed: 0, delivered: 0, pending: 0 } });

    // A positive reply ("Sim!" counts: case, accents and punctuation ignored): the message, and no bot menu.
    await t.says(yes.number, ' Sim! ');
    await waitFor(() => (graph.to(yes.number).length >= 2 ? true : undefined), 10_000);
    expect(graph.to(yes.number).map((s) => s.text)[1]).toBe('Seu cupom, Sim Silva: NATAL10');
    await noMore(graph, yes.number, 2);

    // A negative reply: no campaign message; the bot answers it with its menu as with any customer.
    await t.says(no.number, 'não, obrigado');
    await waitFor(() => (graph.to(no.number).length >= 2 ? true : undefined), 10_000);
    expect(graph.to(no.number)[1].text).toContain('Bem-vindo! Escolha:');
    await noMore(graph, no.number, 2);

    // A number not in the campaign saying "1": only the bot's menu.
    await t.says(stranger, '1');
    await waitFor(() => (graph.to(stranger).length >= 1 ? true : undefined), 10_000);
    expect(graph.to(stranger)[0].text).toContain('Bem-vindo! Escolha:');
    await noMore(graph, stranger, 1);

    const shipping = (await t.api('GET', `/campaigns/${c.id}?shipping=true`)).shipping as { number: string; status: string; confirmationRequestedAt: string | null; confirmedAt: string | null; deliveredAt: string | null }[];
    const by = (n: string) => shipping.find((s) => s.number === n)!;
    expect(by(yes.number)).toMatchObject({ status: 'delivered' });
    expect(by(yes.number).confirmationRequestedAt && by(yes.number).confirmedAt && by(yes.number).deliveredAt).toBeTruthy();
    expect(by(no.number)).toMatchObject({ status: 'confirmation', confirmedAt: null, deliveredAt: null });
    expect(by(quiet.number)).toMatchObject({ status: 'confirmation', confirmedAt: null, deliveredAt: null });
    expect(shipping.some((s) => s.number === stranger)).toBe(false);
    const report = await t.api('GET', `/campaigns/${c.id}`);
    expect(report.counts).toMatchObject({ confirmationRequested: 3, confirmed: 1, delivered: 1 });
    expect(report.status).toBe('EM_ANDAMENTO');

    // The unanswered ones expire after the window: they fail, and only then the campaign is FINALIZADA.
    const finished = await t.until(c.id, 'FINALIZADA', (TTL_SECONDS + 75) * 1000);
    expect(finished.counts).toMatchObject({ confirmationRequested: 3, confirmed: 1, delivered: 1, failed: 2, pending: 0 });
    const after = (await t.api('GET', `/campaigns/${c.id}?shipping=true`)).shipping as { number: string; status: string; error: string | null }[];
    expect(after.find((s) => s.number === no.number)).toMatchObject({ status: 'failed', error: 'CONFIRMATION_EXPIRED' });
    expect(after.find((s) => s.number === quiet.number)).toMatchObject({ status: 'failed', error: 'CONFIRMATION_EXPIRED' });

    // A second positive reply from the confirmed recipient is an ordinary message now (the bot's turn).
    await t.says(yes.number, 'sim');
    await waitFor(() => (graph.to(yes.number).length >= 3 ? true : undefined), 10_000);
    expect(graph.to(yes.number)[2].text).not.toContain('NATAL10');
  }, 180_000);
});
