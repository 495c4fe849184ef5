/** @jest-environment jsdom */
import './jsdom-polyfills';
import { createFakeSocket } from './fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { Announcements } from '../src/layout/Announcements';
import { applyAnnouncementEvent, seenKey, type Announcement, type AnnouncementsPage } from '../src/layout/AnnouncementsPopover';
import { answer, API, mockFetch, renderShell, sessionUser } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const rec = (over: Partial<Announcement> & { id: number }): Announcement => ({
  priority: 3,
  title: `Anúncio ${over.id}`,
  text: 'texto',
  mediaPath: null,
  mediaName: null,
  status: true,
  companyId: 1,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  ...over,
});

const HIGH = rec({ id: 1, priority: 1, title: 'Manutenção hoje', text: 'O sistema para às 22h.\nVolta às 23h.', mediaPath: 'http://api.test/public/company1/announcements/x.png?e=1&t=abc', mediaName: 'aviso.png', createdAt: '2026-11-20T12:30:00.000Z' });
const LOW = rec({ id: 2, priority: 3, title: 'Novidades', text: 'Novo painel.', createdAt: '2026-11-19T08:00:00.000Z' });

function setup(records: Announcement[] = [HIGH, LOW], userId = 7) {
  const calls = mockFetch((c) => (c.url.includes('/announcements/') ? answer(200, { records, count: records.length, hasMore: false }) : answer(404, { error: 'ERR_NOT_FOUND' })));
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: userId }) as never));
  renderShell(<Announcements userId={userId} />);
  return calls;
}

const badge = () => screen.queryByTestId('announcements-badge')?.textContent ?? null;
const titles = () => within(screen.getByTestId('announcements-list')).getAllByRole('heading').map((h) => h.textContent);

describe('announcements popover', () => {
  beforeEach(() => window.localStorage.clear());
  afterEach(() => {
    act(() => session.signOut());
    mockSocket.handlers.clear();
  });

  test('lists the active announcements with priority, text, date and image; the badge counts the unseen ones per user', async () => {
    window.localStorage.setItem(seenKey(7), JSON.stringify([2]));
    window.localStorage.setItem(seenKey(8), JSON.stringify([1, 2]));
    const calls = setup();
    const button = await screen.findByTestId('announcements-button');
    await waitFor(() => expect(badge()).toBe('1'));
    expect(calls[0]).toMatchObject({ url: `${API}/announcements/?pageNumber=1&status=true`, method: 'GET' });
    expect(button.getAttribute('aria-label')).toBe('Anúncios (1 não lidos)');

    fireEvent.click(button);
    const dialog = screen.getByRole('dialog', { name: 'Anúncios' });
    await waitFor(() => expect(titles()).toEqual(['Manutenção hoje', 'Novidades']));
    const high = within(dialog).getByTestId('announcement-1');
    expect(high.textContent).toContain('Alta');
    expect(high.textContent).toContain('Novo');
    expect(high.querySelector('p')?.textContent).toBe('O sistema para às 22h.\nVolta às 23h.');
    expect(high.querySelector('time')?.textContent).toMatch(/^20\/11\/2026 \d{2}:30$/);
    expect(high.querySelector('img')?.getAttribute('src')).toBe(HIGH.mediaPath);
    expect(high.querySelector('img')?.getAttribute('alt')).toBe('aviso.png');
    const low = within(dialog).getByTestId('announcement-2');
    expect(low.textContent).toContain('Baixa');
    expect(within(low).queryByText('Novo')).toBeNull();
    expect(low.querySelector('img')).toBeNull();

    // Opening marks them seen, for this user only.
    await waitFor(() => expect(badge()).toBeNull());
    expect(JSON.parse(window.localStorage.getItem(seenKey(7))!).sort()).toEqual([1, 2]);
    expect(screen.getByTestId('announcements-button').getAttribute('aria-label')).toBe('Anúncios');
  });

  test('company-announcement events update the list and the badge live', async () => {
    setup();
    await waitFor(() => expect(badge()).toBe('2'));
    expect(mockSocket.handlers.get('company-announcement')?.size).toBe(1);
    fireEvent.click(screen.getByTestId('announcements-button'));
    await waitFor(() => expect(badge()).toBeNull());
    fireEvent.click(screen.getByTestId('announcements-button'));
    expect(screen.queryByRole('dialog')).toBeNull();

    act(() => mockSocket.push('company-announcement', { action: 'create', record: rec({ id: 3, priority: 2, title: 'Ao vivo', createdAt: '2026-11-21T09:00:00.000Z' }) }));
    await waitFor(() => expect(badge()).toBe('1'));
    // An inactive one created is not shown.
    act(() => mockSocket.push('company-announcement', { action: 'create', record: rec({ id: 4, priority: 1, title: 'Rascunho', status: false }) }));
    expect(badge()).toBe('1');

    fireEvent.click(screen.getByTestId('announcements-button'));
    await waitFor(() => expect(titles()).toEqual(['Manutenção hoje', 'Ao vivo', 'Novidades']));
    expect(within(screen.getByTestId('announcement-3')).getByText('Média')).toBeTruthy();
    expect(within(screen.getByTestId('announcement-3')).getByText('Novo')).toBeTruthy();

    act(() => mockSocket.push('company-announcement', { action: 'update', record: { ...HIGH, title: 'Manutenção adiada', priority: 3, createdAt: '2026-11-18T00:00:00.000Z' } }));
    await waitFor(() => expect(titles()).toEqual(['Ao vivo', 'Novidades', 'Manutenção adiada']));
    act(() => mockSocket.push('company-announcement', { action: 'update', record: { ...LOW, status: false } }));
    await waitFor(() => expect(titles()).toEqual(['Ao vivo', 'Manutenção adiada']));
    act(() => mockSocket.push('company-announcement', { action: 'delete', id: 3 }));
    await waitFor(() => expect(titles()).toEqual(['Manutenção adiada']));
    act(() => mockSocket.push('company-announcement', { action: 'delete', id: 1 }));
    expect((await screen.findByTestId('announcements-empty')).textContent).toContain('Nenhum anúncio no momento.');
    act(() => mockSocket.push('company-announcement', null));
    act(() => mockSocket.push('company-announcement', { action: 'update' }));
    expect(screen.getByTestId('announcements-empty')).toBeTruthy();
  });

  test('empty list: the empty text and no badge', async () => {
    setup([]);
    fireEvent.click(await screen.findByTestId('announcements-button'));
    expect(await screen.findByTestId('announcements-empty')).toBeTruthy();
    expect(badge()).toBeNull();
  });

  test('a failed load shows the error text and no badge', async () => {
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL', message: 'boom' }));
    writeToken('jwt');
    act(() => session.signIn(sessionUser({ id: 9 }) as never));
    renderShell(<Announcements userId={9} />);
    fireEvent.click(await screen.findByTestId('announcements-button'));
    expect(await screen.findByTestId('announcements-error')).toBeTruthy();
    expect(badge()).toBeNull();
  });

  test('applyAnnouncementEvent keeps counts and order', () => {
    const data = { pages: [{ records: [HIGH, LOW], count: 2, hasMore: false } as AnnouncementsPage], pageParams: [1] };
    const created = applyAnnouncementEvent(data, { action: 'create', record: rec({ id: 5, priority: 1, createdAt: '2026-11-21T00:00:00.000Z' }) });
    expect(created.pages[0].records.map((r) => r.id)).toEqual([5, 1, 2]);
    expect(created.pages[0].count).toBe(3);
    const again = applyAnnouncementEvent(created, { action: 'update', record: rec({ id: 5, priority: 1, createdAt: '2026-11-21T00:00:00.000Z' }) });
    expect(again.pages[0].count).toBe(3);
    const hidden = applyAnnouncementEvent(again, { action: 'update', record: rec({ id: 5, status: false }) });
    expect(hidden.pages[0]).toMatchObject({ count: 2, records: [HIGH, LOW] });
    expect(applyAnnouncementEvent(hidden, { action: 'delete', id: 99 })).toEqual(hidden);
    expect(data.pages[0].records).toEqual([HIGH, LOW]);
  });
});
