/**
 * The bot end to end on a WhatsApp Cloud connection against a local Graph server: what the customer
 * receives, in order, for each rule of the automation issue (menus, trees, hours with a fixed clock, LGPD,
 * NPS, router, idle timers), and that one company's settings never change another's conversations.
 */
import { randomBytes } from 'node:crypto';
import { ENVELOPE_SCHEMA_VERSION, envelopeId, idempotencyKey, inboundTopic, type Envelope } from '@atendo/sdk';
import { waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { queuePositionText, renderLgpd, renderNpsPrompt } from '../src/rules/answers';
import { TEXTS } from '../src/rules/texts';
import { AUTOMATION } from '../src/contract';
import { bootKernel, clock, fireNow, Graph, pendingJob, Tenant } from './harness';

const MENU = (greeting: string, names: string[]) => [greeting, names.map((n, i) => `*${i + 1}* - ${n}`).join('\n')].filter(Boolean).join('\n\n');
const NAV = `*#* - ${TEXTS.back}\n*0* - ${TEXTS.start}`;

describe('automation: what the customer receives', () => {
  let k: TestKernel;
  const graph = new Graph();

  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  const logsOf = async (ticketId: number) => k.db('ticketLogs').where({ ticketId }).orderBy('id');

  /**
   * Fires job `jobName` `key` now until `customer` receives something more than the `seen` messages they
   * had: the storing of the last outbound message (which may touch the ticket and reschedule the job) can
   * still be under way and undo a first try. `idle` also moves the ticket's updatedAt back 31 minutes
   * before each try (idle past `expiresTicket`).
   */
  const fireUntilReceived = async (jobName: string, key: string, customer: { number: string }, seen: number, idle?: number) => {
    await waitFor(async () => {
      if (idle) await k.db('tickets').where({ id: idle }).update({ updatedAt: new Date(Date.now() - 31 * 60_000) });
      await fireNow(k, jobName, key);
      return waitFor(() => graph.to(customer.number).length > seen, 1000).catch(() => false);
    }, 10_000, 0);
  };
  const expireNow = (ticketId: number, customer: { number: string }, seen: number) => fireUntilReceived('automation.expire', `expire:${ticketId}`, customer, seen, ticketId);

  describe('greeting, queue menu and option trees', () => {
    let a: Tenant;
    let ana: TestUser;
    let suporte: { id: number };
    let comercial: { id: number };

    beforeAll(async () => {
      clock.now = new Date();
      a = await Tenant.create(k, graph, '210000000000001');
      ana = await k.createUser(a.companyId, { profile: 'user', name: 'Ana' });
      comercial = await a.queue({ name: 'Comercial', orderQueue: 2, greetingMessage: 'Bem-vindo ao Comercial' });
      suporte = await a.queue({
        name: 'Suporte',
        orderQueue: 1,
        greetingMessage: 'Suporte aqui, {{firstName}}',
        chatbots: [
          {
            name: 'Segunda via',
            greetingMessage: 'Qual boleto?',
            options: [
              { name: 'Boleto de março', greetingMessage: 'Enviado!', closeTicket: true },
              { name: 'Falar com a Ana', queueType: 'attendent', optUserId: ana.id, greetingMessage: 'Chamando a Ana' },
            ],
          },
          { name: 'Ir para o Comercial', queueType: 'queue', optQueueId: comercial.id, greetingMessage: 'Transferindo' },
        ],
      });
      await a.setConnection({ greetingMessage: 'Olá {{firstName}}! Escolha:', complationMessage: 'Obrigado pelo contato!', queueIds: [comercial.id, suporte.id], maxUseBotQueues: 2 });
    });

    test('menu by orderQueue, an invalid answer, selection by number, # back, 0 start, an attendant option', async () => {
      const maria = a.customer('Maria Souza');
      expect(await maria.ask('oi')).toBe(MENU('Olá Maria! Escolha:', ['Suporte', 'Comercial']));
      const t0 = await maria.ticketBecomes({ status: 'pending', queueId: null, isBot: true });

      expect(await maria.ask('quero ajuda')).toBe(`${TEXTS.invalidOption}\n\n${MENU('Olá Maria! Escolha:', ['Suporte', 'Comercial'])}`);
      const root = MENU('Suporte aqui, Maria', ['Segunda via', 'Ir para o Comercial']);
      expect(await maria.ask('1')).toBe(root);
      await maria.ticketBecomes({ status: 'pending', queueId: suporte.id, isBot: true });

      const level1 = `${MENU('Qual boleto?', ['Boleto de março', 'Falar com a Ana'])}\n\n${NAV}`;
      expect(await maria.ask('1')).toBe(level1);
      expect(await maria.ask('#')).toBe(root);
      expect(await maria.ask('1')).toBe(level1);
      expect(await maria.ask('7')).toBe(`${TEXTS.invalidOption}\n\n${level1}`);
      expect(await maria.ask('0')).toBe(root);
      expect(await maria.ask('1')).toBe(level1);
      expect(await maria.ask('2')).toBe('Chamando a Ana');
      const t = await maria.ticketBecomes({ id: t0.id, status: 'open', userId: ana.id, queueId: suporte.id, isBot: false });
      // The attendant owns it now: the bot is silent.
      await maria.says('obrigada');
      await maria.receivesNothing();

      const logs = await logsOf(t.id);
      expect(logs.filter((l) => l.type === 'chatBot').length).toBeGreaterThanOrEqual(8);
      expect(logs.some((l) => l.type === 'queue' && l.queueId === suporte.id)).toBe(true);
      // Bot messages are in the conversation, ours (fromMe), in order.
      const ours = await k.db('messages').where({ ticketId: t.id, fromMe: true }).orderBy('id').pluck('body');
      expect(ours[0]).toBe(MENU('Olá Maria! Escolha:', ['Suporte', 'Comercial']));
      expect(ours[ours.length - 1]).toBe('Chamando a Ana');
    });

    test('an option that closes sends its text and the completion, then the ticket is closed', async () => {
      const joao = a.customer('João');
      await joao.ask('bom dia');
      await joao.ask('1');
      await joao.ask('1');
      expect(await joao.ask('1')).toBe('Enviado!\n\nObrigado pelo contato!');
      await waitFor(async () => (await joao.ticket()).status === 'closed', 10_000);
    });

    test('an option of type queue moves the ticket and the new queue greets; then humans take over', async () => {
      const lia = a.customer('Lia');
      await lia.ask('olá');
      await lia.ask('1');
      expect(await lia.ask('2')).toBe('Transferindo\n\nBem-vindo ao Comercial');
      await lia.ticketBecomes({ status: 'pending', queueId: comercial.id, userId: null, isBot: false });
      await lia.says('alguém aí?');
      await lia.receivesNothing();
    });

    test('after maxUseBotQueues menus the ticket waits without a queue for a human', async () => {
      const rui = a.customer('Rui');
      await rui.ask('oi');
      await rui.ask('x');
      await rui.says('y');
      await rui.receivesNothing();
      await rui.ticketBecomes({ status: 'pending', queueId: null, isBot: false });
      // Handed to humans: the next message is not a turn (the bot's pre-check reads its stage and says no).
      await rui.says('alguém aí?');
      await rui.receivesNothing();
      const ticket = await rui.ticket();
      const last = (await k.db('messages').where({ ticketId: ticket.id, fromMe: false }).orderBy('id', 'desc').first('id')) as { id: number };
      await waitFor(async () => Boolean(await k.db('conversationTurns').where({ messageId: last.id }).first()));
      expect(await k.db('conversationTurns').where({ messageId: last.id }).first()).toMatchObject({ state: 'done', attempts: 0, handledBy: null });
    });

    test('a redelivered webhook gets one reply', async () => {
      const eva = a.customer('Eva');
      await eva.says('oi', 'wamid.REDELIVERED-1');
      await eva.receives(1);
      await eva.says('oi', 'wamid.REDELIVERED-1');
      await eva.receivesNothing();
      expect(await k.db('messages').where({ ticketId: (await eva.ticket()).id, fromMe: false }).count({ n: '*' }).first()).toEqual({ n: 1 });
    });
  });

  describe('opening hours by scheduleType (fixed clock, America/Sao_Paulo)', () => {
    let c: Tenant;
    let q: { id: number };
    // 2026-11-28 is a Saturday; 2026-11-30 a Monday.
    const SATURDAY_10 = new Date('2026-11-28T10:00:00-03:00');
    const MONDAY_09 = new Date('2026-11-30T09:00:00-03:00');
    const MONDAY_20 = new Date('2026-11-30T20:00:00-03:00');
    const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

    beforeAll(async () => {
      c = await Tenant.create(k, graph, '210000000000003', { greetingMessage: 'Menu:', outOfHoursMessage: 'Estamos fechados, {{firstName}}.' });
      q = await c.queue({ name: 'Plantão', greetingMessage: 'Plantão aqui', outOfHoursMessage: 'O plantão está fechado.', schedules: weekdays.map((d) => ({ weekday: d, weekdayEn: d, startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' })) });
      const q2 = await c.queue({ name: 'Outra' });
      await c.setConnection({ queueIds: [q.id, q2.id] });
      await c.api('PUT', `/companies/${c.companyId}/schedules`, { schedules: weekdays.map((d) => ({ weekday: d, weekdayEn: d, startTime: '08:00', endTime: '18:00' })) });
    });
    afterAll(() => {
      clock.now = new Date();
    });

    test('company: outside hours the connection text once per closed window, the ticket flagged; inside hours the menu', async () => {
      await c.api('PUT', '/settings/scheduleType', { key: 'scheduleType', value: 'company' });
      clock.now = SATURDAY_10;
      const bia = c.customer('Bia Lima');
      expect(await bia.ask('oi')).toBe('Estamos fechados, Bia.');
      await bia.ticketBecomes({ isOutOfHour: true, status: 'pending' });
      await bia.says('tem alguém?');
      await bia.receivesNothing();
      clock.now = MONDAY_09;
      expect(await bia.ask('bom dia')).toBe(MENU('Menu:', ['Plantão', 'Outra']));
      await bia.ticketBecomes({ isOutOfHour: false });
      // A new closed window (Monday night): the message again.
      clock.now = MONDAY_20;
      expect(await bia.ask('2')).toBe('Estamos fechados, Bia.');
    });

    test('connection: the connection schedules decide', async () => {
      await c.setting('scheduleType', 'connection');
      await c.setConnection({ schedules: [{ weekday: 'Sábado', weekdayEn: 'saturday', startTimeA: '09:00', endTimeA: '12:00', startTimeB: '', endTimeB: '' }] });
      clock.now = SATURDAY_10;
      const leo = c.customer('Leo');
      expect(await leo.ask('oi')).toBe(MENU('Menu:', ['Plantão', 'Outra']));
      clock.now = MONDAY_09;
      const ivo = c.customer('Ivo');
      expect(await ivo.ask('oi')).toBe('Estamos fechados, Ivo.');
    });

    test('queue: the queue schedules and text, once the ticket has a queue', async () => {
      await c.setting('scheduleType', 'queue');
      clock.now = SATURDAY_10;
      const ana = c.customer('Ana');
      expect(await ana.ask('oi')).toBe(MENU('Menu:', ['Plantão', 'Outra']));
      expect(await ana.ask('1')).toBe('O plantão está fechado.');
      await ana.ticketBecomes({ queueId: q.id, isOutOfHour: true, status: 'pending' });
      await c.setting('scheduleType', 'disabled');
    });
  });

  describe('LGPD consent', () => {
    let d: Tenant;
    beforeAll(async () => {
      clock.now = new Date();
      d = await Tenant.create(k, graph, '210000000000004', { greetingMessage: 'Bem-vindo!' });
      await d.setting('enableLGPD', 'enabled');
      await d.setting('lgpdConsent', 'enabled');
      await d.setting('lgpdMessage', 'Tratamos seus dados conforme a LGPD.');
      await d.setting('lgpdLink', 'https://example.com/privacidade');
    });

    test('accept: consent stored on the contact, then the conversation goes on', async () => {
      const gil = d.customer('Gil');
      expect(await gil.ask('oi')).toBe(renderLgpd('Tratamos seus dados conforme a LGPD.', 'https://example.com/privacidade', true));
      await gil.ticketBecomes({ status: 'lgpd' });
      expect(await gil.ask('talvez')).toBe(renderLgpd('Tratamos seus dados conforme a LGPD.', 'https://example.com/privacidade', true, { invalid: true }));
      expect(await gil.ask('1')).toBe('Bem-vindo!');
      expect((await gil.contact()).lgpdAcceptedAt).not.toBeNull();
      await gil.ticketBecomes({ status: 'pending' });
    });

    test('without lgpdConsent the text is shown once, before the greeting, and the contact counts as informed', async () => {
      const info = await Tenant.create(k, graph, '210000000000011', { greetingMessage: 'Oi!' });
      await info.setting('enableLGPD', 'enabled');
      await info.setting('lgpdMessage', 'Seus dados são tratados conforme a LGPD.');
      const ivo = info.customer('Ivo');
      expect(await ivo.ask('oi')).toBe('Seus dados são tratados conforme a LGPD.\n\nOi!');
      expect((await ivo.contact()).lgpdAcceptedAt).not.toBeNull();
      await ivo.ticketBecomes({ status: 'pending' });
    });

    test('refuse: the refusal text and the ticket closes', async () => {
      const ruy = d.customer('Ruy');
      await ruy.ask('oi');
      expect(await ruy.ask('2')).toBe(TEXTS.lgpdRefused);
      await waitFor(async () => (await ruy.ticket()).status === 'closed', 10_000);
      expect((await ruy.contact()).lgpdAcceptedAt).toBeNull();
    });
  });

  describe('NPS', () => {
    let e: Tenant;
    let agent: TestUser;
    let q: { id: number };
    beforeAll(async () => {
      clock.now = new Date();
      e = await Tenant.create(k, graph, '210000000000005', { ratingMessage: 'Como foi o atendimento?', complationMessage: 'Até logo!', maxUseBotQueuesNPS: 2 });
      q = await e.queue({ name: 'Vendas' });
      await e.setConnection({ queueIds: [q.id] });
      await e.setting('userRating', 'enabled');
      await e.setting('sendGreetingMessageOneQueues', 'disabled');
      agent = await k.createUser(e.companyId, { profile: 'user', name: 'Bruno' });
      await k.db('userQueues').insert({ userId: agent.id, queueId: q.id, companyId: e.companyId });
    });

    const served = async (name: string) => {
      const cst = e.customer(name);
      await cst.says('preciso de ajuda');
      const t = await cst.ticket();
      await e.api('PUT', `/tickets/${t.id}`, { status: 'open', userId: agent.id }, agent);
      await e.api('PUT', `/tickets/${t.id}`, { status: 'closed' }, agent);
      return { cst, t };
    };

    test('closing asks for a rating; an invalid score re-prompts; a valid one is stored with the attendant, then completion and close', async () => {
      const { cst, t } = await served('Nina');
      // The accept greeting (sendGreetingAccepted), then, on close, the rating question instead of a farewell.
      expect(await cst.receives(2)).toEqual(['Olá Nina, meu nome é Bruno e agora vou prosseguir com seu atendimento!', renderNpsPrompt('Como foi o atendimento?')]);
      await cst.ticketBecomes({ status: 'nps' });
      expect(await cst.ask('ótimo')).toBe(renderNpsPrompt('Como foi o atendimento?', { invalid: true }));
      expect(await cst.ask('9')).toBe('Até logo!');
      await waitFor(async () => (await cst.ticket()).status === 'closed', 10_000);
      const svc = k.services.get(AUTOMATION);
      expect(await svc.ratingOf(e.companyId, t.id)).toMatchObject({ rate: 9, userId: agent.id, queueId: q.id });
      const summary = await svc.npsSummary(e.companyId);
      expect(summary).toMatchObject({ total: 1, promoters: 1, score: 100, byUser: [{ userId: agent.id, total: 1 }] });
    });

    test('a merge of duplicate contacts (issue 33 item 5) moves their ratings to the contact kept', async () => {
      const kept = await e.api('POST', '/contacts', { name: 'Rosa', number: '5511987651234' });
      const dup = await e.api('POST', '/contacts', { name: 'Rosa (2)', number: '5521987651234' });
      await k.db('automationNpsRatings').insert({ companyId: e.companyId, ticketId: 2_000_000_001, contactId: dup.id, rate: 10 });
      const preview = await e.api('POST', '/contacts/merge/preview', { targetId: kept.id, sourceIds: [dup.id] });
      expect(preview.counts).toMatchObject({ npsRatings: 1 });
      const merged = await e.api('POST', '/contacts/merge', { targetId: kept.id, sourceIds: [dup.id], previewToken: preview.previewToken });
      expect(merged.counts).toMatchObject({ npsRatings: 1 });
      expect(await k.db('automationNpsRatings').where({ companyId: e.companyId, ticketId: 2_000_000_001 }).first('contactId')).toEqual({ contactId: kept.id });
    });

    test('after maxUseBotQueuesNPS invalid answers it closes without a rating', async () => {
      const { cst, t } = await served('Otto');
      await cst.receives(2);
      await cst.ask('hmm');
      expect(await cst.ask('não sei')).toBe('Até logo!');
      await waitFor(async () => (await cst.ticket()).status === 'closed', 10_000);
      expect(await k.services.get(AUTOMATION).ratingOf(e.companyId, t.id)).toBeUndefined();
    });
    test('expiresTicketNPS: a rating question left unanswered closes the ticket once due, without a rating or a farewell', async () => {
      await e.setConnection({ expiresTicketNPS: 5 });
      const { cst, t } = await served('Paz');
      await cst.receives(2);
      await cst.ticketBecomes({ status: 'nps' });
      const job = await waitFor(() => pendingJob(k, 'automation.nps-expire', `nps:${t.id}`), 10_000);
      // Due expiresTicketNPS (5) minutes after the question.
      expect(new Date(job!.run_at).getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
      await fireNow(k, 'automation.nps-expire', `nps:${t.id}`);
      await waitFor(async () => (await cst.ticket()).status === 'closed', 10_000);
      await cst.receivesNothing(500);
      expect(await k.services.get(AUTOMATION).ratingOf(e.companyId, t.id)).toBeUndefined();
      expect((await logsOf(t.id)).some((l: { type: string; data: unknown }) => l.type === 'chatBot' && JSON.stringify(l.data).includes('npsExpired'))).toBe(true);
      await e.setConnection({ expiresTicketNPS: 0 });
    });
  });

  describe('router and idle timers', () => {
    let f: Tenant;
    let q: { id: number };
    let u1: TestUser;
    let u2: TestUser;
    beforeAll(async () => {
      clock.now = new Date();
      f = await Tenant.create(k, graph, '210000000000006', { greetingMessage: 'Oi' });
      q = await f.queue({ name: 'Fila roteada', greetingMessage: 'Aguarde um atendente', ativarRoteador: true, tempoRoteador: 1 });
      const other = await f.queue({ name: 'Outra fila', greetingMessage: 'Outra aqui' });
      await f.setConnection({ queueIds: [q.id, other.id] });
      u1 = await k.createUser(f.companyId, { profile: 'user', name: 'U1' });
      u2 = await k.createUser(f.companyId, { profile: 'user', name: 'U2' });
      const off = await k.createUser(f.companyId, { profile: 'user', name: 'Offline' });
      for (const u of [u1, u2, off]) await k.db('userQueues').insert({ userId: u.id, queueId: q.id, companyId: f.companyId });
      await k.db('users').whereIn('id', [u1.id, u2.id]).update({ online: true });
    });

    test('the router gives waiting tickets round-robin to the online users of the queue', async () => {
      const c1 = f.customer('C1');
      const c2 = f.customer('C2');
      for (const c of [c1, c2]) {
        await c.ask('oi');
        expect(await c.ask('1')).toBe('Aguarde um atendente');
      }
      // The greeting goes out before the ticket leaves the bot (isBot false): the router only takes tickets out of it.
      for (const c of [c1, c2]) await c.ticketBecomes({ isBot: false, queueId: q.id });
      const job = await pendingJob(k, 'automation.router', `router:${f.companyId}:${q.id}`);
      expect(job).toBeDefined();
      expect(await fireNow(k, 'automation.router', `router:${f.companyId}:${q.id}`)).toBe(1);
      const t1 = await waitFor(async () => ((await c1.ticket()).status === 'open' ? c1.ticket() : undefined), 10_000);
      const t2 = await waitFor(async () => ((await c2.ticket()).status === 'open' ? c2.ticket() : undefined), 10_000);
      expect(new Set([t1.userId, t2.userId])).toEqual(new Set([u1.id, u2.id]));
    });

    test('expiresTicket closes an idle ticket with expiresInactiveMessage; inactiveMessage reminds once', async () => {
      await f.setConnection({ expiresTicket: 30, expiresInactiveMessage: 'Encerramos por falta de resposta.', timeInactiveMessage: 10, inactiveMessage: 'Ainda está aí?' });
      const idle = f.customer('Idle');
      await idle.ask('oi');
      await idle.ask('2');
      const t = await idle.ticket();
      await f.api('PUT', `/tickets/${t.id}`, { status: 'open', userId: u1.id });
      const before = Date.now();
      await f.api('POST', `/messages/${t.id}`, { body: 'Olá, posso ajudar?', signMessage: false }, u1);
      expect(await idle.receives(1)).toEqual(['Olá, posso ajudar?']);
      // The timer the attendant's message (re)started: due 10 minutes after it (not the bot's earlier one).
      const sentAt = before;
      await waitFor(async () => {
        const job = await pendingJob(k, 'automation.inactive', `inactive:${t.id}`);
        return job && new Date(job.run_at).getTime() > sentAt + 9 * 60_000 ? job : undefined;
      }, 10_000);
      await fireUntilReceived('automation.inactive', `inactive:${t.id}`, idle, graph.to(idle.number).length);
      expect(await idle.receives(1)).toEqual(['Ainda está aí?']);
      // The reminder does not schedule another reminder.
      await idle.receivesNothing(800);
      expect(await pendingJob(k, 'automation.inactive', `inactive:${t.id}`)).toBeUndefined();
      // Idle past expiresTicket (the ticket's updatedAt moved back as if 30 minutes passed).
      await expireNow(t.id, idle, graph.to(idle.number).length);
      expect(await idle.receives(1)).toEqual(['Encerramos por falta de resposta.']);
      await waitFor(async () => (await idle.ticket()).status === 'closed', 10_000);
    });

    test("whenExpiresTicket '1' (the attendant's last message): a customer's answer stops the clock, the attendant's next message restarts it", async () => {
      await f.setConnection({ expiresTicket: 30, whenExpiresTicket: '1', expiresInactiveMessage: 'Encerrado: sem resposta sua.', timeInactiveMessage: 0 });
      const c = f.customer('Atendente por último');
      await c.ask('oi');
      await c.ask('2');
      const t = await c.ticket();
      await f.api('PUT', `/tickets/${t.id}`, { status: 'open', userId: u1.id });
      await f.api('POST', `/messages/${t.id}`, { body: 'Pode me mandar o pedido?', signMessage: false }, u1);
      expect(await c.receives(1)).toEqual(['Pode me mandar o pedido?']);
      await waitFor(() => pendingJob(k, 'automation.expire', `expire:${t.id}`), 10_000);
      // The customer answers: the attendant owes the next message, nothing expires.
      await c.says('Pedido 123');
      await waitFor(async () => ((await pendingJob(k, 'automation.expire', `expire:${t.id}`)) ? undefined : true), 10_000);
      await k.db('tickets').where({ id: t.id }).update({ updatedAt: new Date(Date.now() - 31 * 60_000) });
      expect(await fireNow(k, 'automation.expire', `expire:${t.id}`)).toBe(0);
      await c.receivesNothing(800);
      expect((await c.ticket()).status).toBe('open');
      // The attendant answers and the customer goes quiet past expiresTicket: closed with the message.
      await f.api('POST', `/messages/${t.id}`, { body: 'Encontrei, quer a segunda via?', signMessage: false }, u1);
      expect(await c.receives(1)).toEqual(['Encontrei, quer a segunda via?']);
      await waitFor(() => pendingJob(k, 'automation.expire', `expire:${t.id}`), 10_000);
      await expireNow(t.id, c, graph.to(c.number).length);
      expect(await c.receives(1)).toEqual(['Encerrado: sem resposta sua.']);
      await waitFor(async () => (await c.ticket()).status === 'closed', 10_000);
      await c.receivesNothing(500);
    });

    test("whenExpiresTicket '0' (default: the last message of either side): a ticket whose customer wrote last also expires", async () => {
      await f.setConnection({ expiresTicket: 0, timeInactiveMessage: 0 });
      const c = f.customer('Cliente por último');
      await c.ask('oi');
      await c.ask('2');
      const t = await c.ticket();
      await f.api('PUT', `/tickets/${t.id}`, { status: 'open', userId: u1.id });
      await f.api('POST', `/messages/${t.id}`, { body: 'Bom dia!', signMessage: false }, u1);
      expect(await c.receives(1)).toEqual(['Bom dia!']);
      expect(await pendingJob(k, 'automation.expire', `expire:${t.id}`)).toBeUndefined();
      await f.setConnection({ expiresTicket: 30, whenExpiresTicket: '0', expiresInactiveMessage: 'Encerrado por inatividade, {{name}}.' });
      // The customer writes last; nobody answers for 30 minutes.
      await c.says('Alguém aí?');
      await waitFor(() => pendingJob(k, 'automation.expire', `expire:${t.id}`), 10_000);
      await expireNow(t.id, c, graph.to(c.number).length);
      expect(await c.receives(1)).toEqual(['Encerrado por inatividade, Cliente por último.']);
      await waitFor(async () => (await c.ticket()).status === 'closed', 10_000);
      await f.setConnection({ expiresTicket: 0, whenExpiresTicket: '0' });
    });

    test('hoursCloseTicketsAuto closes open tickets idle that long', async () => {
      await f.setConnection({ expiresTicket: 0, timeInactiveMessage: 0 });
      await f.setting('hoursCloseTicketsAuto', '2');
      const slow = f.customer('Slow');
      await slow.ask('oi');
      await slow.ask('2');
      const t = await slow.ticket();
      await f.api('PUT', `/tickets/${t.id}`, { status: 'open', userId: u2.id });
      await f.api('POST', `/messages/${t.id}`, { body: 'Oi!', signMessage: false }, u2);
      await slow.receives(1);
      const job = (await waitFor(() => pendingJob(k, 'automation.auto-close', `autoclose:${t.id}`), 10_000))!;
      expect(new Date(job.run_at).getTime() - Date.now()).toBeGreaterThan(110 * 60_000);
      await k.db('tickets').where({ id: t.id }).update({ updatedAt: new Date(Date.now() - 3 * 3_600_000) });
      await fireNow(k, 'automation.auto-close', `autoclose:${t.id}`);
      await waitFor(async () => (await slow.ticket()).status === 'closed', 10_000);
      await f.setting('hoursCloseTicketsAuto', '9999999999');
    });
  });

  describe('waiting line', () => {
    test('sendQueuePosition: each waiting customer gets its number, again when the line moves', async () => {
      clock.now = new Date();
      const g = await Tenant.create(k, graph, '210000000000009', { greetingMessage: 'Fila:' });
      const q = await g.queue({ name: 'Espera', greetingMessage: 'Aguarde na fila.' });
      const other = await g.queue({ name: 'Outra' });
      await g.setConnection({ queueIds: [q.id, other.id] });
      await g.setting('sendQueuePosition', 'enabled');
      const first = g.customer('Primeiro');
      const second = g.customer('Segundo');
      await first.ask('oi');
      expect(await first.ask('1')).toBe('Aguarde na fila.');
      expect(await first.receives(1)).toEqual([queuePositionText(1)]);
      await second.ask('oi');
      expect(await second.ask('1')).toBe('Aguarde na fila.');
      expect(await second.receives(1)).toEqual([queuePositionText(2)]);
      // The first is accepted: the second moves up.
      const t1 = await first.ticket();
      await g.api('PUT', `/tickets/${t1.id}`, { status: 'open', userId: g.admin.id });
      expect(await second.receives(1)).toEqual([queuePositionText(1)]);
      // The accepted one gets the accept greeting, and no position any more.
      expect((await first.receives(1))[0]).toContain('vou prosseguir com seu atendimento');
      await first.receivesNothing(500);
    });

    test('userRandom gives the ticket to an online user of the queue as it enters', async () => {
      const h = await Tenant.create(k, graph, '210000000000010', { greetingMessage: 'Olá:' });
      const q = await h.queue({ name: 'Aleatória', greetingMessage: 'Já vamos atender.' });
      const other = await h.queue({ name: 'Outra' });
      await h.setConnection({ queueIds: [q.id, other.id] });
      await h.setting('userRandom', 'enabled');
      const on = await k.createUser(h.companyId, { profile: 'user', name: 'Online' });
      const off = await k.createUser(h.companyId, { profile: 'user', name: 'Offline' });
      for (const u of [on, off]) await k.db('userQueues').insert({ userId: u.id, queueId: q.id, companyId: h.companyId });
      await k.db('users').where({ id: on.id }).update({ online: true });
      const c = h.customer('Sorteado');
      await c.ask('oi');
      expect(await c.ask('1')).toBe('Já vamos atender.');
      await c.ticketBecomes({ status: 'open', userId: on.id, queueId: q.id });
    });
  });

  describe('guards: the bot stays silent', () => {
    let g: Tenant;
    let agent: TestUser;
    const MENU_G = MENU('Olá! Escolha:', ['Um', 'Dois']);
    beforeAll(async () => {
      clock.now = new Date();
      g = await Tenant.create(k, graph, '210000000000029', { greetingMessage: 'Olá! Escolha:' });
      const q1 = await g.queue({ name: 'Um', greetingMessage: 'Fila um' });
      const q2 = await g.queue({ name: 'Dois' });
      await g.setConnection({ queueIds: [q1.id, q2.id] });
      await g.setting('sendGreetingAccepted', 'disabled');
      agent = await k.createUser(g.companyId, { profile: 'user', name: 'Caio' });
    });

    /** A WhatsApp envelope on g's connection, as an adapter publishes it (`out`: the business's own message). */
    const publish = async (o: { thread: string; isGroup?: boolean; direction?: 'in' | 'out'; text: string; sender?: string }) => {
      const externalId = `wamid.G${randomBytes(8).toString('hex')}`;
      const key = idempotencyKey('whatsappapi', g.connectionId, 'message', externalId);
      const sender = o.sender ?? o.thread;
      await k.bus.publish(inboundTopic({ channel: 'whatsappapi', kind: 'message' }), {
        schemaVersion: ENVELOPE_SCHEMA_VERSION,
        id: envelopeId(key),
        idempotencyKey: key,
        companyId: g.companyId,
        connectionId: g.connectionId,
        channel: 'whatsappapi',
        direction: o.direction ?? 'in',
        kind: 'message',
        occurredAt: new Date().toISOString(),
        thread: { externalId: o.thread, isGroup: Boolean(o.isGroup), ...(o.isGroup ? { name: 'Grupo Teste' } : {}) },
        sender: { externalId: sender, name: 'Participante', phone: sender },
        externalId,
        content: { type: 'text', text: o.text },
        raw: {},
      } as Envelope, { id: key, headers: { companyId: String(g.companyId) } });
    };

    test('for a contact with disableBot; a blocked contact is not even stored', async () => {
      const quiet = g.customer('Sem robô');
      await k.db('contacts').insert({ companyId: g.companyId, name: 'Sem robô', number: quiet.number, disableBot: true });
      await quiet.says('oi');
      expect(await quiet.ticket()).toMatchObject({ status: 'pending', queueId: null });
      await quiet.receivesNothing();
      const blocked = g.customer('Bloqueado');
      const [contact] = await k.db('contacts').insert({ companyId: g.companyId, name: 'Bloqueado', number: blocked.number, active: false }).returning('id');
      await blocked.says('oi');
      await blocked.receivesNothing();
      expect(await k.db('tickets').where({ contactId: contact.id }).first()).toBeUndefined();
    });

    test('for a ticket an attendant owns', async () => {
      const c = g.customer('Atendido');
      expect(await c.ask('oi')).toBe(MENU_G);
      const t = await c.ticket();
      await g.api('PUT', `/tickets/${t.id}`, { status: 'open', userId: agent.id });
      await c.says('1');
      await c.receivesNothing();
      expect(await c.ticket()).toMatchObject({ status: 'open', userId: agent.id, queueId: null });
    });

    test('for our own echoes: a message the business sent from the phone is no answer to the menu', async () => {
      const c = g.customer('Eco');
      expect(await c.ask('oi')).toBe(MENU_G);
      await publish({ thread: c.number, direction: 'out', text: '1', sender: '15550001234' });
      const t = await c.ticket();
      await waitFor(async () => (await k.db('messages').where({ ticketId: t.id, fromMe: true, body: '1' }).first()) !== undefined, 10_000);
      await c.receivesNothing();
      expect(await c.ticket()).toMatchObject({ status: 'pending', queueId: null });
      // The customer's own "1" still picks the queue.
      expect(await c.ask('1')).toBe('Fila um');
    });

    test('for group chats, unless the connection takes groups as tickets', async () => {
      await g.setConnection({ allowGroup: true });
      const group = `1203630${String(Date.now() % 1e8).padStart(8, '0')}`;
      await publish({ thread: group, isGroup: true, text: 'bom dia, grupo', sender: '5511911112222' });
      const groupContact = await waitFor(() => k.db('contacts').where({ companyId: g.companyId, number: group }).first(), 10_000);
      await new Promise((r) => setTimeout(r, 1200));
      expect(graph.to(group)).toEqual([]);
      expect(await k.db('tickets').where({ contactId: groupContact.id }).first()).toMatchObject({ isGroup: true, status: 'group' });
      await g.setConnection({ groupAsTicket: 'enabled' });
      const other = `${group.slice(0, -1)}${(Number(group.slice(-1)) + 1) % 10}`;
      await publish({ thread: other, isGroup: true, text: 'oi', sender: '5511911113333' });
      await waitFor(() => graph.to(other).length > 0, 10_000);
      expect(graph.to(other)).toEqual([MENU_G]);
      await g.setConnection({ groupAsTicket: 'disabled', allowGroup: false });
    });
  });

  test('a connection with nothing to say runs no turn and keeps no state; a greeting added later greets the next message', async () => {
    clock.now = new Date();
    const q = await Tenant.create(k, graph, '210000000000037');
    const c = q.customer('Sem bot');
    await c.says('oi');
    const t = await c.ticket();
    // The chain recorded the message as a turn no handler wanted; the bot kept nothing.
    await waitFor(async () => (await k.db('conversationTurns').where({ ticketId: t.id, state: 'done' }).first()) !== undefined, 10_000);
    expect(await k.db('conversationTurns').where({ ticketId: t.id }).select('handledBy')).toEqual([{ handledBy: null }]);
    expect(await k.db('automationBotStates').where({ ticketId: t.id }).first()).toBeUndefined();
    await c.receivesNothing();
    // LGPD on: the bot has something to say again, and says it.
    await q.setting('enableLGPD', 'enabled');
    await q.setting('lgpdConsent', 'disabled');
    await q.setting('lgpdMessage', 'Seus dados são tratados conforme a LGPD.');
    expect(await c.ask('ainda aí?')).toContain('LGPD');
    await q.setting('enableLGPD', 'disabled');
    // A greeting on the connection: the next message of a ticket the bot never took greets (no queues: then humans).
    const d = q.customer('Depois');
    await d.says('oi');
    await d.receivesNothing();
    await q.setConnection({ greetingMessage: 'Olá! Já vamos atender.' });
    expect(await d.ask('alô')).toBe('Olá! Já vamos atender.');
    // The turn's state is written when it ends (with its lease's release), just after the reply went out.
    const dt = await d.ticket();
    expect(await waitFor(async () => {
      const st = await k.db('automationBotStates').where({ ticketId: dt.id }).first();
      return st?.leaseUntil === null ? st : undefined;
    }, 10_000)).toMatchObject({ stage: 'human' });
  });

  test("company B's settings never affect company A", async () => {
    clock.now = new Date('2026-11-28T10:00:00-03:00'); // Saturday
    const a = await Tenant.create(k, graph, '210000000000007', { greetingMessage: 'A: escolha' });
    const b = await Tenant.create(k, graph, '210000000000008', { greetingMessage: 'B: escolha', outOfHoursMessage: 'B fechado' });
    for (const [t, tag] of [[a, 'A'], [b, 'B']] as const) {
      const q1 = await t.queue({ name: 'Um', greetingMessage: `${tag}: fila um` });
      const q2 = await t.queue({ name: 'Dois' });
      await t.setConnection({ queueIds: [q1.id, q2.id] });
    }
    await b.setting('enableLGPD', 'enabled');
    await b.setting('lgpdConsent', 'enabled');
    await b.api('PUT', '/settings/scheduleType', { value: 'company' });
    await b.api('PUT', `/companies/${b.companyId}/schedules`, { schedules: [{ weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '08:00', endTime: '09:00' }] });
    await b.setting('userRating', 'enabled');

    const inA = a.customer('Alfa');
    const inB = b.customer('Beta');
    expect(await inA.ask('oi')).toBe(MENU('A: escolha', ['Um', 'Dois']));
    expect(await inB.ask('oi')).toContain(TEXTS.lgpdAccept);
    expect(await inB.ask('1')).toBe('B fechado');
    expect(await inA.ask('1')).toBe('A: fila um');
    await inA.ticketBecomes({ status: 'pending', isOutOfHour: false });
    clock.now = new Date();
  });
});
