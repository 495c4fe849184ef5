/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { TicketRow, type TicketRowProps } from '../src/manager/TicketRow';
import { clearPresence, setPresence } from '../src/lib/presence';
import { ADMIN, ATTENDANT, renderInbox, ticket } from './helpers';
import type { Ticket } from '../src/types';
import type { Viewer } from '../src/lib/viewer';

const NOW = new Date(2026, 10, 21, 15, 30, 0);

function handlers() {
  return { onOpen: jest.fn(), onAccept: jest.fn(), onIgnore: jest.fn(), onTransfer: jest.fn(), onCloseTicket: jest.fn(), onReopen: jest.fn() };
}

function renderRow(t: Ticket, viewer: Viewer = ATTENDANT, extra: Partial<TicketRowProps> = {}, language: 'pt-BR' | 'en' = 'pt-BR') {
  const h = handlers();
  renderInbox(
    <ul>
      <TicketRow ticket={t} viewer={viewer} now={NOW} {...h} {...extra} />
    </ul>,
    { language },
  );
  return { h, row: screen.getByTestId('ticket-row') };
}

afterEach(() => act(() => clearPresence()));

describe('TicketRow (spec 2-tickets.md §2 "Ticket card / row")', () => {
  test('the name is cut at 60 characters and the last message at 40', () => {
    const name = 'N'.repeat(59) + 'XYZ'; // 62 characters
    const message = 'M'.repeat(39) + 'ABC'; // 42 characters
    renderRow(ticket({ contact: { id: 1, name, number: '55' }, lastMessage: message }));
    expect(screen.getByTestId('ticket-name').textContent).toBe('N'.repeat(59) + 'X...');
    expect(screen.getByTestId('ticket-last-message').textContent).toBe('M'.repeat(39) + 'A...');
  });

  test('names and messages at the limit are not cut', () => {
    renderRow(ticket({ contact: { id: 1, name: 'a'.repeat(60), number: '55' }, lastMessage: 'b'.repeat(40) }));
    expect(screen.getByTestId('ticket-name').textContent).toBe('a'.repeat(60));
    expect(screen.getByTestId('ticket-last-message').textContent).toBe('b'.repeat(40));
  });

  test("a location shows 'Localização' and a contact card 'Contato' (translated)", () => {
    renderRow(ticket({ id: 1, lastMessage: 'Localização' }));
    expect(screen.getByTestId('ticket-last-message').textContent).toBe('Localização');
  });

  test.each([
    ['data:image/png;base64,iVBORw0KGgo=|https://maps.google.com/maps?q=1,2', 'Localização', 'pt-BR'],
    ['BEGIN:VCARD\nVERSION:3.0\nN:;Maria;;;\nEND:VCARD', 'Contato', 'pt-BR'],
    ['Contato', 'Contato', 'pt-BR'],
    ['Localização', 'Location', 'en'],
    ['Contato', 'Contact', 'en'],
  ] as const)('last message %j shows %s (%s)', (lastMessage, shown, language) => {
    renderRow(ticket({ lastMessage }), ATTENDANT, {}, language);
    expect(screen.getByTestId('ticket-last-message').textContent).toBe(shown);
  });

  test("the queue tag, or 'SEM FILA' without a department; the stripe takes the department colour", () => {
    renderRow(ticket({ queueId: null, queue: null }));
    expect(screen.getByTestId('queue-tag').textContent).toBe('SEM FILA');
    const stripe = getComputedStyle(screen.getByTestId('ticket-row')).borderLeftColor;
    expect(stripe.replace(/\s/g, '')).toMatch(/^(#7c7c7c|rgb\(124,124,124\))$/i);
  });

  test('with a department: its name and colour', () => {
    renderRow(ticket({ queue: { id: 10, name: 'Vendas', color: '#2E7D32' } }));
    expect(screen.getByTestId('queue-tag').textContent).toBe('Vendas');
    expect(getComputedStyle(screen.getByTestId('ticket-row')).borderLeftColor.replace(/\s/g, '')).toMatch(/^(#2e7d32|rgb\(46,125,50\))$/i);
  });

  test("'SEM FILA' is translated", () => {
    renderRow(ticket({ queueId: null, queue: null }), ATTENDANT, {}, 'en');
    expect(screen.getByTestId('queue-tag').textContent).toBe('NO QUEUE');
  });

  test('the connection name tag', () => {
    renderRow(ticket({ whatsapp: { id: 5, name: 'Loja Centro', channel: 'whatsapp', groupAsTicket: 'disabled' } }));
    expect(screen.getByTestId('connection-tag').textContent).toBe('Loja Centro');
  });

  test('time: HH:mm today, dd/MM/yyyy otherwise', () => {
    renderRow(ticket({ updatedAt: new Date(2026, 10, 21, 9, 5).toISOString() }));
    expect(screen.getByTestId('ticket-time').textContent).toBe('09:05');
  });

  test('time of another day', () => {
    renderRow(ticket({ updatedAt: new Date(2026, 10, 20, 23, 59).toISOString() }));
    expect(screen.getByTestId('ticket-time').textContent).toBe('20/11/2026');
  });

  test('the first two tags and +N', () => {
    const tags = [1, 2, 3, 4].map((id) => ({ id, name: `tag${id}`, color: '#123456' }));
    renderRow(ticket({ tags }));
    expect(screen.getAllByTestId('ticket-tag').map((e) => e.textContent)).toEqual(['tag1', 'tag2']);
    expect(screen.getByTestId('more-tags').textContent).toBe('+2');
  });

  test('two tags: no counter', () => {
    renderRow(ticket({ tags: [{ id: 1, name: 'a', color: '#111111' }, { id: 2, name: 'b', color: '#222222' }] }));
    expect(screen.getAllByTestId('ticket-tag')).toHaveLength(2);
    expect(screen.queryByTestId('more-tags')).toBeNull();
  });

  test('the assigned-user tag is shown to admins only', () => {
    renderRow(ticket({ user: { id: 7, name: 'Ana Atendente' } }), ADMIN);
    expect(screen.getByTestId('user-tag').textContent).toBe('Ana Atendente');
  });

  test('no assigned-user tag for attendants', () => {
    renderRow(ticket({ user: { id: 7, name: 'Ana Atendente' } }), ATTENDANT);
    expect(screen.queryByTestId('user-tag')).toBeNull();
  });

  test('unread badge and count', () => {
    renderRow(ticket({ unreadMessages: 3 }));
    expect(screen.getByTestId('unread-badge')).toBeTruthy();
    expect(screen.getByTestId('unread-count').textContent).toBe('3');
    expect(screen.getByTestId('unread-count').getAttribute('aria-label')).toBe('3 mensagens não lidas');
  });

  test('no unread: no badge', () => {
    renderRow(ticket({ unreadMessages: 0 }));
    expect(screen.queryByTestId('unread-badge')).toBeNull();
    expect(screen.queryByTestId('unread-count')).toBeNull();
  });

  test.each([
    [1, '😡'],
    [2, '🙁'],
    [3, '😐'],
    [4, '🙂'],
    [5, '😍'],
  ])('a closed ticket rated %i shows %s', (rating, emoji) => {
    renderRow(ticket({ status: 'closed', userRating: rating }));
    expect(screen.getByTestId('ticket-rating').textContent).toBe(emoji);
  });

  test.each([
    ['open', 5],
    ['closed', null],
    ['closed', 0],
    ['closed', 6],
  ] as const)('no rating emoji for status %s rated %p', (status, rating) => {
    renderRow(ticket({ status, userRating: rating }));
    expect(screen.queryByTestId('ticket-rating')).toBeNull();
  });

  test('the group tag', () => {
    renderRow(ticket({ isGroup: true, status: 'group' }), ADMIN);
    expect(screen.getByTestId('group-tag').textContent).toBe('Grupo');
  });

  test('no group tag for a contact ticket', () => {
    renderRow(ticket({ isGroup: false }));
    expect(screen.queryByTestId('group-tag')).toBeNull();
  });

  test.each(['whatsapp', 'whatsappapi', 'facebook', 'instagram'])('channel icon of %s', (channel) => {
    renderRow(ticket({ channel }));
    expect(screen.getByTestId('channel-icon').getAttribute('data-channel')).toBe(channel);
    expect(screen.getByTestId('channel-icon').getAttribute('aria-label')).toBe({ whatsapp: 'WhatsApp', whatsappapi: 'WhatsApp API', facebook: 'Facebook', instagram: 'Instagram' }[channel]);
  });

  test("a WhatsApp Cloud ticket as the API sends it (channel 'whatsapp', its connection's channel 'whatsappapi') shows WhatsApp API", () => {
    renderRow(ticket({ channel: 'whatsapp', whatsapp: { id: 7, name: 'Cloud', channel: 'whatsappapi', groupAsTicket: 'disabled' } }));
    expect(screen.getByTestId('channel-icon').getAttribute('data-channel')).toBe('whatsappapi');
    expect(screen.getByTestId('channel-icon').getAttribute('aria-label')).toBe('WhatsApp API');
  });

  test('contact picture (urlPicture, else profilePicUrl), else initials', () => {
    renderRow(ticket({ contact: { id: 1, name: 'Maria Silva', number: '55', urlPicture: null, profilePicUrl: 'http://pics/p.jpg' } }));
    expect(screen.getByTestId('contact-picture').getAttribute('src')).toBe('http://pics/p.jpg');
    fireEvent.error(screen.getByTestId('contact-picture'));
    expect(screen.getByTestId('contact-initials').textContent).toBe('MS');
  });

  test('no picture: initials', () => {
    renderRow(ticket({ contact: { id: 1, name: 'joão', number: '55' } }));
    expect(screen.queryByTestId('contact-picture')).toBeNull();
    expect(screen.getByTestId('contact-initials').textContent).toBe('J');
  });

  test("typing and recording indicators replace the last message ('Digitando...', 'Gravando...')", () => {
    const t = ticket({ id: 555 });
    renderRow(t);
    act(() => setPresence(555, 'composing'));
    expect(screen.getByTestId('ticket-presence').textContent).toBe('Digitando...');
    expect(screen.queryByTestId('ticket-last-message')).toBeNull();
    act(() => setPresence(555, 'recording'));
    expect(screen.getByTestId('ticket-presence').textContent).toBe('Gravando...');
    act(() => setPresence(555, 'paused'));
    expect(screen.queryByTestId('ticket-presence')).toBeNull();
    expect(screen.getByTestId('ticket-last-message').textContent).toBe('Olá, tudo bem?');
  });

  test('indicators are translated', () => {
    renderRow(ticket({ id: 556 }), ATTENDANT, {}, 'en');
    act(() => setPresence(556, 'composing'));
    expect(screen.getByTestId('ticket-presence').textContent).toBe('Typing...');
    act(() => setPresence(556, 'recording'));
    expect(screen.getByTestId('ticket-presence').textContent).toBe('Recording...');
  });

  test('a pending row cannot be opened by clicking it; its buttons are accept, ignore and transfer', () => {
    const t = ticket({ status: 'pending', userId: null, user: null });
    const { h, row } = renderRow(t);
    const main = screen.getByTestId('ticket-main');
    expect(main.tagName).toBe('DIV');
    fireEvent.click(main);
    fireEvent.click(screen.getByTestId('ticket-name'));
    expect(h.onOpen).not.toHaveBeenCalled();
    expect(within(row).getAllByRole('button').map((b) => b.textContent)).toEqual(['Aceitar', 'Ignorar', 'Transferir']);
    fireEvent.click(screen.getByTestId('ticket-accept'));
    fireEvent.click(screen.getByTestId('ticket-ignore'));
    fireEvent.click(screen.getByTestId('ticket-transfer'));
    expect(h.onAccept).toHaveBeenCalledWith(t);
    expect(h.onIgnore).toHaveBeenCalledWith(t);
    expect(h.onTransfer).toHaveBeenCalledWith(t);
    expect(h.onOpen).not.toHaveBeenCalled();
  });

  test('an open row opens its conversation; its buttons do not', () => {
    const t = ticket({ status: 'open' });
    const { h, row } = renderRow(t);
    expect(within(row).getAllByRole('button').map((b) => b.textContent)).toEqual([expect.stringContaining(t.contact!.name), 'Transferir', 'Resolver']);
    fireEvent.click(screen.getByTestId('ticket-close'));
    expect(h.onCloseTicket).toHaveBeenCalledWith(t);
    expect(h.onOpen).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('ticket-main'));
    expect(h.onOpen).toHaveBeenCalledWith(t);
  });

  test('a closed row opens its conversation and offers reopen', () => {
    const t = ticket({ status: 'closed' });
    const { h } = renderRow(t);
    fireEvent.click(screen.getByTestId('ticket-main'));
    expect(h.onOpen).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByTestId('ticket-reopen'));
    expect(h.onReopen).toHaveBeenCalledWith(t);
    expect(h.onOpen).toHaveBeenCalledTimes(1);
  });

  test('busy rows disable their buttons; the selected row is marked', () => {
    renderRow(ticket({ status: 'pending', userId: null }), ATTENDANT, { busy: true, selected: true });
    expect((screen.getByTestId('ticket-accept') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('ticket-row').getAttribute('aria-current')).toBe('true');
  });
});

describe('the SLA badge (issue 34 item 5)', () => {
  const target = (o: { warnAt: string; dueAt: string; doneAt?: string | null }) => ({ minutes: 60, warnAt: o.warnAt, dueAt: o.dueAt, doneAt: o.doneAt ?? null, breachedAt: null, state: 'ok' as const });
  const sla = (firstResponse: ReturnType<typeof target> | null, resolution: ReturnType<typeof target> | null = null) => ({ ticketId: 1, uuid: 'u', queueId: 1, userId: null, startedAt: '2026-11-21T17:00:00.000Z', firstResponse, resolution });
  const at = (min: number) => new Date(NOW.getTime() + min * 60_000).toISOString();

  test('nothing while every target is far from its due time', () => {
    renderRow(ticket({ id: 1 }), ATTENDANT, { sla: sla(target({ warnAt: at(10), dueAt: at(20) })), slaNow: NOW });
    expect(screen.getByTestId('queue-tag')).toBeTruthy();
    expect(screen.queryByTestId('sla-badge')).toBeNull();
  });

  test('nothing once the targets are done, even past their due time', () => {
    renderRow(ticket({ id: 1 }), ATTENDANT, { sla: sla(target({ warnAt: at(-20), dueAt: at(-10), doneAt: at(-5) })), slaNow: NOW });
    expect(screen.queryByTestId('sla-badge')).toBeNull();
  });

  test('amber with the minutes left once the warn time passed; the due time in the tooltip', () => {
    renderRow(ticket({ id: 1 }), ATTENDANT, { sla: sla(target({ warnAt: at(-2), dueAt: at(4.5) })), slaNow: NOW });
    const badge = screen.getByTestId('sla-badge');
    expect([badge.textContent, badge.dataset.level, badge.dataset.target]).toEqual(['SLA 5 min', 'warning', 'firstResponse']);
    expect(badge.title).toMatch(/^Primeira resposta até /);
  });

  test('red once a target is past due (the most urgent target wins), in the viewer language', () => {
    renderRow(ticket({ id: 1 }), ATTENDANT, { sla: sla(target({ warnAt: at(-2), dueAt: at(5) }), target({ warnAt: at(-20), dueAt: at(-1) })), slaNow: NOW }, 'en');
    const badge = screen.getByTestId('sla-badge');
    expect([badge.textContent, badge.dataset.level, badge.dataset.target]).toEqual(['SLA breached', 'breached', 'resolution']);
    expect(badge.title).toMatch(/^Resolution due /);
  });
});
