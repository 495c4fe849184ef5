/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { PrivacyPage } from '../src/pages/privacy/PrivacyPage';
import { parseKeywords } from '../src/pages/privacy/api';
import { texts } from '../src/pages/privacy/i18n';
import { answer, mockFetch, renderAdmin } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

afterEach(() => act(() => session.signOut()));

/** Issue 34 item 4 in the admin area: the opt-out words and reply, the opted-out contacts and their reversal. */
test('edits the words and the reply; lists opted-out contacts and reverses one after confirming', async () => {
  let optedOut = [{ id: 5, name: 'Rita', number: '5511900000005', channel: 'whatsapp', optedOutAt: '2026-12-01T10:00:00.000Z', optOutKeyword: 'SAIR', anonymizedAt: null }];
  const calls = mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/compliance/settings' && call.method === 'GET') return answer(200, { optOutKeywords: ['SAIR', 'PARAR', 'STOP', 'CANCELAR'], optOutReply: 'Pronto.', retentionDays: null });
    if (url.pathname === '/compliance/settings' && call.method === 'PUT') return answer(200, { optOutKeywords: ['SAIR', 'DESCADASTRAR'], optOutReply: 'Feito.', retentionDays: null });
    if (url.pathname === '/compliance/opt-outs') return answer(200, { records: optedOut, count: optedOut.length, hasMore: false });
    if (url.pathname === '/contacts/5/opt-out' && call.method === 'DELETE') {
      optedOut = [];
      return answer(200, { contactId: 5, optedOutAt: null, optOutKeyword: null, anonymizedAt: null });
    }
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: 3, profile: 'admin' }) as never));
  renderAdmin(<PrivacyPage />, { route: '/privacy' });
  await waitFor(() => expect((screen.getByTestId('privacy-words') as HTMLInputElement).value).toBe('SAIR, PARAR, STOP, CANCELAR'));
  await waitFor(() => expect(within(screen.getByTestId('privacy-rows')).getAllByRole('row')).toHaveLength(1));
  expect(screen.getByTestId('privacy-row-5').textContent).toContain('Rita');

  fireEvent.change(screen.getByTestId('privacy-words'), { target: { value: 'sair,  descadastrar , ' } });
  fireEvent.change(screen.getByTestId('privacy-reply'), { target: { value: ' Feito. ' } });
  fireEvent.click(screen.getByTestId('privacy-save'));
  await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ optOutKeywords: ['sair', 'descadastrar'], optOutReply: 'Feito.' }]));

  fireEvent.click(screen.getByTestId('privacy-reverse-5'));
  expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
  fireEvent.click(within(screen.getByRole('dialog')).getByTestId('confirm-button'));
  await waitFor(() => expect(calls.filter((c) => c.method === 'DELETE').map((c) => new URL(c.url).pathname)).toEqual(['/contacts/5/opt-out']));
  await waitFor(() => expect(screen.getByText('Nenhum contato descadastrado.')).toBeTruthy());
});

test('retention: the dry run is shown before it can be switched on', async () => {
  let retentionDays: number | null = null;
  const calls = mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/compliance/settings' && call.method === 'GET') return answer(200, { optOutKeywords: ['SAIR'], optOutReply: 'Pronto.', retentionDays });
    if (url.pathname === '/compliance/settings' && call.method === 'PUT') {
      retentionDays = (call.body as { retentionDays: number }).retentionDays;
      return answer(200, { optOutKeywords: ['SAIR'], optOutReply: 'Pronto.', retentionDays });
    }
    if (url.pathname === '/compliance/retention/preview') return answer(200, { days: Number(url.searchParams.get('days')), contacts: 12 });
    if (url.pathname === '/compliance/opt-outs') return answer(200, { records: [], count: 0, hasMore: false });
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: 3, profile: 'admin' }) as never));
  renderAdmin(<PrivacyPage />, { route: '/privacy' });
  await waitFor(() => expect(screen.getByText('Desligada: as conversas são mantidas.')).toBeTruthy());
  const on = screen.getByTestId('privacy-retention-on') as HTMLButtonElement;
  fireEvent.change(screen.getByTestId('privacy-days'), { target: { value: '90' } });
  expect(on.disabled).toBe(true);
  fireEvent.click(screen.getByTestId('privacy-preview'));
  await waitFor(() => expect(calls.map((c) => new URL(c.url).pathname)).toContain('/compliance/retention/preview'));
  await waitFor(() => expect(screen.getByTestId('privacy-preview-result').textContent).toBe('Hoje, 12 contato(s) seriam anonimizados com 90 dia(s). Confira antes de ligar.'));
  expect(on.disabled).toBe(false);
  fireEvent.click(on);
  await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ retentionDays: 90 }]));
  await waitFor(() => expect(screen.getByTestId('privacy-retention-off')).toBeTruthy());
});

test('helpers and texts', () => {
  expect(parseKeywords('a, b\nc,,')).toEqual(['a', 'b', 'c']);
  const keys = (o: unknown, p = ''): string[] => (o && typeof o === 'object' ? Object.entries(o).flatMap(([k, v]) => keys(v, `${p}${k}.`)) : [p]);
  for (const lng of ['en', 'es', 'tr'] as const) expect(keys(texts[lng]).sort()).toEqual(keys(texts['pt-BR']).sort());
});
