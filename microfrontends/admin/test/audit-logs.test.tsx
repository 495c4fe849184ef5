/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { AuditLogsPage } from '../src/pages/audit-logs/AuditLogsPage';
import { auditQuery, describeFields } from '../src/pages/audit-logs/api';
import { texts } from '../src/pages/audit-logs/i18n';
import { answer, mockFetch, renderAdmin } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const entry = (id: number, over: Record<string, unknown> = {}) => ({
  id, companyId: 3, actorKind: 'user', userId: 11, userName: 'Ana', actorLabel: null, entity: 'ticket', entityId: '42', action: 'transfer',
  before: { userId: 11 }, after: { userId: 12 }, ip: '10.0.0.1', createdAt: '2026-12-01T10:00:00.000Z', ...over,
});

function renderPage() {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: 3, profile: 'admin' }) as never));
  return renderAdmin(<AuditLogsPage />, { route: '/audit-logs' });
}
const rows = () => within(screen.getByTestId('audit-logs-rows')).queryAllByRole('row').map((r) => Array.from(r.querySelectorAll('td')).slice(1).map((c) => c.textContent));

afterEach(() => act(() => session.signOut()));

test('lists who, what, before and after; the filters become the query of GET /audit-logs', async () => {
  const calls = mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/users/list') return answer(200, [{ id: 11, name: 'Ana' }, { id: 12, name: 'Bruno' }]);
    if (url.pathname === '/audit-logs') {
      if (url.searchParams.get('entity') === 'contact') return answer(200, { records: [entry(2, { entity: 'contact', entityId: '7', action: 'anonymize', actorKind: 'user', before: null, after: null })], count: 1, hasMore: false });
      return answer(200, { records: [entry(1), entry(3, { actorKind: 'system', userId: null, userName: null, actorLabel: 'retention', action: 'anonymize', entity: 'contact', before: null, after: null, ip: null })], count: 2, hasMore: false });
    }
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  renderPage();
  await waitFor(() => expect(rows()).toHaveLength(2));
  expect(rows()[0]).toEqual(['Ana', 'Atendimento #42 · transferência', 'userId: 11', 'userId: 12', '10.0.0.1']);
  expect(rows()[1]).toEqual(['Sistema (retention)', 'Contato #42 · anonimização', '', '', '']);
  expect(screen.getByTestId('audit-logs-count').textContent).toBe('2 registro(s)');

  await waitFor(() => expect(within(screen.getByTestId('audit-filter-user')).getAllByRole('option')).toHaveLength(3));
  fireEvent.change(screen.getByTestId('audit-filter-entity'), { target: { value: 'contact' } });
  fireEvent.change(screen.getByTestId('audit-filter-entity-id'), { target: { value: ' 7 ' } });
  fireEvent.change(screen.getByTestId('audit-filter-user'), { target: { value: '11' } });
  fireEvent.click(screen.getByTestId('audit-filter-apply'));
  await waitFor(() => expect(rows()).toEqual([['Ana', 'Contato #7 · anonimização', '', '', '10.0.0.1']]));
  const last = new URL(calls.filter((c) => c.url.includes('/audit-logs')).at(-1)!.url);
  expect(Object.fromEntries(last.searchParams)).toEqual({ entity: 'contact', entityId: '7', userId: '11', pageNumber: '1' });
  // No control edits or deletes an entry.
  expect(screen.queryAllByRole('button').map((b) => b.textContent)).toEqual(['Filtrar', 'Limpar']);
});

test('helpers: the day range in the viewer time zone, and the fields text', () => {
  const q = new URLSearchParams(auditQuery({ entity: '', entityId: '', userId: '', from: '2026-12-01', to: '2026-12-02' }, 2));
  expect(new Date(q.get('from')!).getTime()).toBe(new Date('2026-12-01T00:00:00').getTime());
  expect(new Date(q.get('to')!).getTime()).toBe(new Date('2026-12-02T23:59:59.999').getTime());
  expect(q.get('pageNumber')).toBe('2');
  expect(q.has('entity')).toBe(false);
  expect(describeFields({ name: '[personal data]', active: false })).toBe('name: [personal data], active: false');
  expect(describeFields(null)).toBe('');
});

test('the four languages have the same keys', () => {
  const keys = (o: unknown, p = ''): string[] => (o && typeof o === 'object' ? Object.entries(o).flatMap(([k, v]) => keys(v, `${p}${k}.`)) : [p]);
  const pt = keys(texts['pt-BR']).sort();
  for (const lng of ['en', 'es', 'tr'] as const) expect(keys(texts[lng]).sort()).toEqual(pt);
});

test('issue 34: API tokens and queue menu options are filterable entities; a send through a token shows the API as actor', async () => {
  const calls = mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/users/list') return answer(200, []);
    if (url.pathname === '/audit-logs') return answer(200, { records: [entry(5, { actorKind: 'api', userId: null, userName: null, actorLabel: '#9 · a1b2c3d4', entity: 'api-token', entityId: '9', action: 'send', before: null, after: { messageId: 77 }, ip: '203.0.113.5' })], count: 1, hasMore: false });
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  renderPage();
  await waitFor(() => expect(rows()).toEqual([['API (#9 · a1b2c3d4)', 'Token da API #9 · envio', '', 'messageId: 77', '203.0.113.5']]));
  const options = within(screen.getByTestId('audit-filter-entity')).getAllByRole('option').map((o) => [(o as HTMLOptionElement).value, o.textContent]);
  expect(options).toEqual(expect.arrayContaining([['api-token', 'Token da API'], ['chatbot', 'Opção de menu da fila']]));
  fireEvent.change(screen.getByTestId('audit-filter-entity'), { target: { value: 'api-token' } });
  fireEvent.click(screen.getByTestId('audit-filter-apply'));
  await waitFor(() => expect(new URL(calls.filter((c) => c.url.includes('/audit-logs')).at(-1)!.url).searchParams.get('entity')).toBe('api-token'));
});
