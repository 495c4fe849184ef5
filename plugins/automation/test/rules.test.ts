/**
 * The bot's rules as pure functions: menus, option trees, hours by time zone, NPS, LGPD, waiting
 * positions, round-robin and message variables.
 */
import { hasMessageVariables } from '@atendo/sdk';
import { botMayTake } from '../src/services/engine';
import { parseMenuInput, pickQueue, renderQueueMenu, sortQueues } from '../src/rules/menu';
import { navigate, optionAction, renderOptions, resolvePath, type BotOption } from '../src/rules/tree';
import { closedWindow, hoursSource, isOpen, shiftsOf, windowKey, type ScheduleRow } from '../src/rules/hours';
import { npsCategory, parseConsent, parseNpsScore, queuePositionText, renderLgpd, renderNpsPrompt, roundRobin, summarizeNps, waitingPositions } from '../src/rules/answers';
import { renderTemplate } from '../src/rules/template';
import { TEXTS } from '../src/rules/texts';

const opt = (id: number, name: string, extra: Partial<BotOption> = {}): BotOption => ({
  id, name, greetingMessage: null, queueType: 'text', optQueueId: null, optUserId: null, optIntegrationId: null, optFileId: null, closeTicket: false, options: [], ...extra,
});

describe('queue menu', () => {
  const queues = [
    { id: 5, name: 'Financeiro', orderQueue: 3 },
    { id: 9, name: 'Sem ordem', orderQueue: null },
    { id: 2, name: 'Comercial', orderQueue: 1 },
    { id: 7, name: 'Suporte', orderQueue: 2 },
    { id: 1, name: 'Outra sem ordem', orderQueue: null },
  ];

  test('orders by orderQueue, queues without one last by id', () => {
    expect(sortQueues(queues).map((q) => q.id)).toEqual([2, 7, 5, 1, 9]);
  });

  test('renders the greeting then numbered queues', () => {
    expect(renderQueueMenu('Olá! Escolha:', queues)).toBe('Olá! Escolha:\n\n*1* - Comercial\n*2* - Suporte\n*3* - Financeiro\n*4* - Outra sem ordem\n*5* - Sem ordem');
    expect(renderQueueMenu(null, queues.slice(0, 1))).toBe('*1* - Financeiro');
    expect(renderQueueMenu('Oi', queues.slice(0, 1), { invalid: true })).toBe(`${TEXTS.invalidOption}\n\nOi\n\n*1* - Financeiro`);
  });

  test.each([
    ['2', { kind: 'number', n: 2 }],
    [' 2 ', { kind: 'number', n: 2 }],
    ['*3*', { kind: 'number', n: 3 }],
    ['1.', { kind: 'number', n: 1 }],
    ['4)', { kind: 'number', n: 4 }],
    ['02', { kind: 'number', n: 2 }],
    ['#', { kind: 'back' }],
    [' # ', { kind: 'back' }],
    ['0', { kind: 'start' }],
    ['00', { kind: 'start' }],
    ['dois', { kind: 'other' }],
    ['1 2', { kind: 'other' }],
    ['1000', { kind: 'other' }],
    ['', { kind: 'other' }],
    ['-1', { kind: 'other' }],
    ['2,5', { kind: 'other' }],
  ])('parses %j', (text, expected) => {
    expect(parseMenuInput(text)).toEqual(expected);
  });

  test('picks the queue by its menu position', () => {
    expect(pickQueue(queues, parseMenuInput('1'))?.id).toBe(2);
    expect(pickQueue(queues, parseMenuInput('3'))?.id).toBe(5);
    expect(pickQueue(queues, parseMenuInput('6'))).toBeUndefined();
    expect(pickQueue(queues, parseMenuInput('#'))).toBeUndefined();
  });
});

describe('option trees', () => {
  const tree: BotOption[] = [
    opt(1, 'Segunda via', { greetingMessage: 'Qual boleto?', options: [opt(11, 'Boleto de março', { greetingMessage: 'Enviado!', closeTicket: true }), opt(12, 'Falar com humano', { queueType: 'attendent', optUserId: 42 })] }),
    opt(2, 'Vendas', { queueType: 'queue', optQueueId: 7, greetingMessage: 'Transferindo…' }),
    opt(3, 'Robô', { queueType: 'integration', optIntegrationId: 3 }),
    opt(4, 'Catálogo', { queueType: 'file', optFileId: 8 }),
    opt(5, 'Fila apagada', { queueType: 'queue', optQueueId: null }),
  ];

  test('a number chooses the option at that position', () => {
    expect(navigate(tree, [], parseMenuInput('1'))).toMatchObject({ kind: 'choose', path: [1], option: { id: 1 } });
    expect(navigate(tree, [1], parseMenuInput('2'))).toMatchObject({ kind: 'choose', path: [1, 12], option: { id: 12 } });
  });

  test('# goes back one level, 0 to the start', () => {
    expect(navigate(tree, [1], parseMenuInput('#'))).toMatchObject({ kind: 'show', path: [], node: null });
    expect(navigate(tree, [1, 11], parseMenuInput('#'))).toMatchObject({ kind: 'show', path: [1], node: { id: 1 } });
    expect(navigate(tree, [1, 11], parseMenuInput('0'))).toMatchObject({ kind: 'show', path: [] });
    expect(navigate(tree, [], parseMenuInput('#'))).toMatchObject({ kind: 'show', path: [] });
  });

  test('anything else is invalid and keeps the position', () => {
    const step = navigate(tree, [1], parseMenuInput('9'));
    expect(step).toMatchObject({ kind: 'invalid', path: [1], node: { id: 1 } });
    expect(step.kind === 'invalid' && step.options.map((o) => o.id)).toEqual([11, 12]);
    expect(navigate(tree, [], parseMenuInput('quero falar'))).toMatchObject({ kind: 'invalid', path: [] });
  });

  test('a path through options deleted since is cut where the tree changed', () => {
    expect(resolvePath(tree, [1, 99, 11])).toMatchObject({ path: [1], node: { id: 1 } });
    expect(resolvePath(tree, [77])).toMatchObject({ path: [], node: null });
  });

  test('renders options with back and start lines below the first level', () => {
    expect(renderOptions('Menu', tree.slice(0, 2), { depth: 0 })).toBe('Menu\n\n*1* - Segunda via\n*2* - Vendas');
    expect(renderOptions('Qual boleto?', tree[0].options, { depth: 1, invalid: true })).toBe(
      `${TEXTS.invalidOption}\n\nQual boleto?\n\n*1* - Boleto de março\n*2* - Falar com humano\n\n*#* - ${TEXTS.back}\n*0* - ${TEXTS.start}`,
    );
    expect(renderOptions('Fim', [], { depth: 2 })).toBe('Fim');
  });

  test('each queueType acts as its own kind', () => {
    expect(optionAction(tree[0])).toMatchObject({ kind: 'text', message: 'Qual boleto?', close: false });
    expect(optionAction(tree[0].options[0])).toMatchObject({ kind: 'text', message: 'Enviado!', close: true, children: [] });
    expect(optionAction(tree[0].options[1])).toEqual({ kind: 'attendant', message: null, userId: 42, close: false });
    expect(optionAction(tree[1])).toEqual({ kind: 'queue', message: 'Transferindo…', queueId: 7, close: false });
    expect(optionAction(tree[2])).toEqual({ kind: 'integration', message: null, integrationId: 3, close: false });
    expect(optionAction(tree[3])).toEqual({ kind: 'file', message: null, fileId: 8, close: false });
    expect(optionAction(tree[4]).kind).toBe('text');
  });
});

describe('hours', () => {
  const TZ = 'America/Sao_Paulo'; // UTC-3, no daylight saving since 2019
  // Monday to Friday 08:00-12:00 and 13:00-18:00, Saturday 09:00-13:00, Sunday closed.
  const week: ScheduleRow[] = [
    ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((d) => ({ weekday: d, weekdayEn: d, startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' })),
    { weekday: 'Sábado', weekdayEn: 'saturday', startTimeA: '09:00', endTimeA: '13:00', startTimeB: '', endTimeB: '' },
    { weekday: 'Domingo', weekdayEn: 'sunday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' },
  ];
  // 2026-11-23 is a Monday.
  const at = (iso: string) => new Date(iso);

  test('open inside a shift, closed at its end, at lunch, at night and on Sunday', () => {
    expect(isOpen(week, at('2026-11-23T08:00:00-03:00'), TZ)).toBe(true);
    expect(isOpen(week, at('2026-11-23T11:59:59-03:00'), TZ)).toBe(true);
    expect(isOpen(week, at('2026-11-23T12:00:00-03:00'), TZ)).toBe(false);
    expect(isOpen(week, at('2026-11-23T12:30:00-03:00'), TZ)).toBe(false);
    expect(isOpen(week, at('2026-11-23T07:59:00-03:00'), TZ)).toBe(false);
    expect(isOpen(week, at('2026-11-23T20:00:00-03:00'), TZ)).toBe(false);
    expect(isOpen(week, at('2026-11-29T10:00:00-03:00'), TZ)).toBe(false);
    expect(isOpen(week, at('2026-11-28T10:00:00-03:00'), TZ)).toBe(true);
  });

  test('reads the wall clock of the time zone, not UTC', () => {
    // 10:30 UTC is 07:30 in São Paulo (closed) and 11:30 in Lisbon (winter: UTC+0 -> 10:30, open).
    expect(isOpen(week, at('2026-11-23T10:30:00Z'), TZ)).toBe(false);
    expect(isOpen(week, at('2026-11-23T10:30:00Z'), 'Europe/Lisbon')).toBe(true);
    // 14:00 UTC on Monday is 23:00 on Monday in Tokyo (closed).
    expect(isOpen(week, at('2026-11-23T14:00:00Z'), 'Asia/Tokyo')).toBe(false);
  });

  test('the company screen shape (startTime/endTime) and 23:59 as end of day', () => {
    const company: ScheduleRow[] = [{ weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '00:00', endTime: '23:59' }];
    expect(isOpen(company, at('2026-11-23T23:59:30-03:00'), TZ)).toBe(true);
    expect(isOpen(company, at('2026-11-24T00:00:00-03:00'), TZ)).toBe(false);
  });

  test('no hours set: always open; a weekday missing from a list: closed', () => {
    expect(isOpen([], at('2026-11-29T03:00:00-03:00'), TZ)).toBe(true);
    expect(isOpen([{ weekdayEn: 'monday', startTimeA: '', endTimeA: '' }], at('2026-11-23T10:00:00-03:00'), TZ)).toBe(true);
    expect(isOpen([{ weekdayEn: 'tuesday', startTimeA: '08:00', endTimeA: '18:00' }], at('2026-11-23T10:00:00-03:00'), TZ)).toBe(false);
  });

  test('overnight shifts run into the next day', () => {
    const night: ScheduleRow[] = [{ weekdayEn: 'friday', startTimeA: '22:00', endTimeA: '06:00' }];
    expect(shiftsOf(night[0])).toEqual({ today: [[1320, 1440]], overnight: [[0, 360]] });
    expect(isOpen(night, at('2026-11-27T23:00:00-03:00'), TZ)).toBe(true);
    expect(isOpen(night, at('2026-11-28T05:59:00-03:00'), TZ)).toBe(true);
    expect(isOpen(night, at('2026-11-28T06:00:00-03:00'), TZ)).toBe(false);
  });

  test('the closed window runs from the last closing to the next opening', () => {
    const lunch = closedWindow(week, at('2026-11-23T12:30:00-03:00'), TZ)!;
    expect(lunch.start?.toISOString()).toBe('2026-11-23T15:00:00.000Z');
    expect(lunch.end?.toISOString()).toBe('2026-11-23T16:00:00.000Z');
    const friNight = closedWindow(week, at('2026-11-27T19:00:00-03:00'), TZ)!;
    const satDawn = closedWindow(week, at('2026-11-28T07:00:00-03:00'), TZ)!;
    expect(windowKey(friNight, at('2026-11-27T19:00:00-03:00'), TZ)).toBe(windowKey(satDawn, at('2026-11-28T07:00:00-03:00'), TZ));
    expect(satDawn.end?.toISOString()).toBe('2026-11-28T12:00:00.000Z');
    const sunday = closedWindow(week, at('2026-11-29T10:00:00-03:00'), TZ)!;
    expect(sunday.start?.toISOString()).toBe('2026-11-28T16:00:00.000Z');
    expect(sunday.end?.toISOString()).toBe('2026-11-30T11:00:00.000Z');
    expect(windowKey(sunday, at('2026-11-29T10:00:00-03:00'), TZ)).not.toBe(windowKey(friNight, at('2026-11-27T19:00:00-03:00'), TZ));
    expect(closedWindow(week, at('2026-11-23T09:00:00-03:00'), TZ)).toBeNull();
  });

  test('a schedule that never opens has an open-ended window keyed by day', () => {
    const never: ScheduleRow[] = [{ weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '09:00' }];
    // Only Mondays 08-09: on a Wednesday the window started Monday 09:00 and ends next Monday 08:00.
    const w = closedWindow(never, at('2026-11-25T10:00:00-03:00'), TZ)!;
    expect(w.start?.toISOString()).toBe('2026-11-23T12:00:00.000Z');
    expect(w.end?.toISOString()).toBe('2026-11-30T11:00:00.000Z');
    expect(windowKey({ start: null, end: null }, at('2026-11-25T10:00:00-03:00'), TZ)).toBe('day:2026-11-25');
  });

  test('an unknown time zone throws', () => {
    expect(() => isOpen(week, at('2026-11-23T10:00:00Z'), 'Mars/Olympus')).toThrow(/time zone/);
  });

  test('scheduleType picks whose hours and which message', () => {
    const ctx = {
      companySchedules: week,
      connection: { id: 4, schedules: [], outOfHoursMessage: 'Conexão fechada' },
      queue: { id: 7, schedules: week.slice(0, 1), outOfHoursMessage: 'Fila fechada' },
    };
    expect(hoursSource('disabled', ctx)).toBeNull();
    expect(hoursSource('company', ctx)).toEqual({ scope: 'company', schedules: week, message: 'Conexão fechada' });
    expect(hoursSource('connection', ctx)).toEqual({ scope: 'connection:4', schedules: [], message: 'Conexão fechada' });
    expect(hoursSource('queue', ctx)).toEqual({ scope: 'queue:7', schedules: week.slice(0, 1), message: 'Fila fechada' });
    expect(hoursSource('queue', { ...ctx, queue: null })).toBeNull();
    expect(hoursSource('whatever', ctx)).toBeNull();
  });
});

describe('NPS', () => {
  test.each([
    ['0', 0], ['10', 10], [' 7 ', 7], ['*9*', 9], ['8.', 8], ['07', 7],
    ['11', null], ['-1', null], ['7,5', null], ['nota 8', null], ['dez', null], ['', null], ['100', null],
  ])('parses %j', (text, expected) => {
    expect(parseNpsScore(text)).toBe(expected);
  });

  test('prompt, categories and summary', () => {
    expect(renderNpsPrompt('Como foi?')).toBe(`Como foi?\n\n${TEXTS.npsPrompt}`);
    expect(renderNpsPrompt('Como foi?', { invalid: true })).toBe(`${TEXTS.npsInvalid}\n\nComo foi?\n\n${TEXTS.npsPrompt}`);
    expect([0, 6, 7, 8, 9, 10].map(npsCategory)).toEqual(['detractor', 'detractor', 'passive', 'passive', 'promoter', 'promoter']);
    expect(summarizeNps([10, 9, 8, 3])).toEqual({ total: 4, promoters: 2, passives: 1, detractors: 1, score: 25, average: 7.5 });
    expect(summarizeNps([])).toEqual({ total: 0, promoters: 0, passives: 0, detractors: 0, score: 0, average: null });
  });
});

describe('LGPD', () => {
  test('message with link and consent options', () => {
    expect(renderLgpd('Usamos seus dados.', 'https://example.com/lgpd', true)).toBe(`Usamos seus dados.\n\nhttps://example.com/lgpd\n\n*1* - ${TEXTS.lgpdAccept}\n*2* - ${TEXTS.lgpdRefuse}`);
    expect(renderLgpd('', '', false)).toBe(TEXTS.lgpdDefault);
  });

  test.each([
    ['1', 'accept'], ['Sim', 'accept'], ['aceito!', 'accept'], ['2', 'refuse'], ['Não', 'refuse'], ['nao aceito', 'refuse'], ['talvez', null], ['3', null],
  ])('parses %j', (text, expected) => {
    expect(parseConsent(text)).toBe(expected);
  });
});

describe('waiting positions and round-robin', () => {
  test('positions follow the time each ticket entered the queue', () => {
    const pos = waitingPositions([
      { id: 3, since: '2026-11-23T10:02:00Z' },
      { id: 1, since: '2026-11-23T10:05:00Z' },
      { id: 2, since: '2026-11-23T10:02:00Z' },
    ]);
    expect([...pos.entries()]).toEqual([[2, 1], [3, 2], [1, 3]]);
    expect(queuePositionText(2)).toContain('*2*');
  });

  test('round-robin continues after the last user and wraps', () => {
    expect(roundRobin([10, 11, 12], [7, 3, 5], null)).toEqual({ assignments: [[10, 3], [11, 5], [12, 7]], lastUserId: 7 });
    expect(roundRobin([10, 11], [7, 3, 5], 5)).toEqual({ assignments: [[10, 7], [11, 3]], lastUserId: 3 });
    // The last user went offline: the next one after their id.
    expect(roundRobin([10], [3, 7], 5)).toEqual({ assignments: [[10, 7]], lastUserId: 7 });
    expect(roundRobin([10], [], 5)).toEqual({ assignments: [], lastUserId: 5 });
  });

  test('random picks among the online users', () => {
    expect(roundRobin([1, 2], [4, 8, 9], null, { random: () => 0.99 }).assignments).toEqual([[1, 9], [2, 9]]);
    expect(roundRobin([1], [4, 8, 9], null, { random: () => 0 }).assignments).toEqual([[1, 4]]);
  });
});

describe('message variables (the SDK fillMessageVariables on the company clock)', () => {
  const now = new Date('2026-11-23T12:34:56Z'); // 09:34:56 in São Paulo

  test('fills the family variables on the company clock', () => {
    const out = renderTemplate('{{ms}}, {{firstName}}! ({{name}}) {{userName}}/{{queue}}/{{connection}} #{{ticket_id}} {{protocol}} {{date}} {{hour}} {{name_company}} {{unknown}}', {
      contactName: 'Maria da Silva', userName: 'Ana', queueName: 'Suporte', connectionName: 'Cloud', ticketId: 42, companyName: 'ACME', now,
    });
    expect(out).toBe('Bom dia, Maria! (Maria da Silva) Ana/Suporte/Cloud #42 2026112309345642 23/11/2026 09:34:56 ACME {{unknown}}');
  });

  test('the greeting follows the time zone', () => {
    expect(renderTemplate('{{ms}}', { now, timeZone: 'Asia/Tokyo' })).toBe('Boa noite');
    expect(renderTemplate('{{ NAME }} sem variáveis', { contactName: 'Zé' })).toBe('Zé sem variáveis');
    expect(renderTemplate('texto simples')).toBe('texto simples');
  });

  test('hasMessageVariables: only a text with `{{` needs filling (the one-statement send takes the others)', () => {
    expect(hasMessageVariables('Olá {{name}}')).toBe(true);
    expect(hasMessageVariables('{{ unknown }}')).toBe(true);
    for (const plain of ['Olá', '{ nome }', '', null, undefined]) expect(hasMessageVariables(plain)).toBe(false);
  });
});

describe('botMayTake (the ticket-only guards, also the chain pre-check)', () => {
  const t = { whatsappId: 1, status: 'pending', userId: null, useIntegration: false, promptId: null };
  test('pending without an attendant, an integration or a prompt; nps and lgpd whatever the owner', () => {
    expect(botMayTake(t)).toBe(true);
    expect(botMayTake({ ...t, status: 'nps', userId: 4 })).toBe(true);
    expect(botMayTake({ ...t, status: 'lgpd', useIntegration: true })).toBe(true);
  });
  test('an attendant, an integration, a prompt, another status or no connection: the bot passes', () => {
    expect(botMayTake({ ...t, userId: 4 })).toBe(false);
    expect(botMayTake({ ...t, useIntegration: true })).toBe(false);
    expect(botMayTake({ ...t, promptId: 2 })).toBe(false);
    expect(botMayTake({ ...t, status: 'open' })).toBe(false);
    expect(botMayTake({ ...t, status: 'closed' })).toBe(false);
    expect(botMayTake({ ...t, whatsappId: null })).toBe(false);
  });
});
