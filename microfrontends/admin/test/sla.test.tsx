/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { SlaPage } from '../src/pages/sla/SlaPage';
import { formatMinutes, parseMinutes, parsePercent } from '../src/pages/sla/api';
import { texts } from '../src/pages/sla/i18n';
import { answer, mockFetch, renderAdmin } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

afterEach(() => act(() => session.signOut()));

const policy = (queueId: number, o: Partial<{ firstResponseMinutes: number | null; resolutionMinutes: number | null; warnPercent: number }> = {}) => ({
  queueId,
  queueName: `Fila ${queueId}`,
  queueColor: '#2563EB',
  firstResponseMinutes: null,
  resolutionMinutes: null,
  warnPercent: 80,
  updatedAt: null,
  ...o,
});

/** Issue 34 item 5 in the admin area: every queue's targets, edited in place, saved per queue. */
test('lists the queues with their targets; saves one queue in minutes or h:mm; removes targets', async () => {
  const calls = mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/sla/policies' && call.method === 'GET') return answer(200, [policy(1, { firstResponseMinutes: 30, resolutionMinutes: 240, warnPercent: 75 }), policy(2)]);
    const m = /^\/sla\/policies\/(\d+)$/.exec(url.pathname);
    if (m && call.method === 'PUT') {
      const body = call.body as { firstResponseMinutes: number | null; resolutionMinutes: number | null; warnPercent?: number };
      return answer(200, policy(Number(m[1]), { ...body, warnPercent: body.warnPercent ?? 80 }));
    }
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: 3, profile: 'admin' }) as never));
  renderAdmin(<SlaPage />, { route: '/sla' });
  await waitFor(() => expect((screen.getByTestId('sla-first-1') as HTMLInputElement).value).toBe('0:30'));
  expect((screen.getByTestId('sla-resolution-1') as HTMLInputElement).value).toBe('4:00');
  expect((screen.getByTestId('sla-warn-1') as HTMLInputElement).value).toBe('75');
  expect((screen.getByTestId('sla-first-2') as HTMLInputElement).value).toBe('');
  const save2 = screen.getByTestId('sla-save-2') as HTMLButtonElement;
  expect(save2.disabled).toBe(true);
  expect(screen.queryByTestId('sla-clear-2')).toBeNull();

  fireEvent.change(screen.getByTestId('sla-first-2'), { target: { value: 'abc' } });
  expect(save2.disabled).toBe(true);
  expect(screen.getByText('Minutos (1 a 525600) ou h:mm.')).toBeTruthy();
  fireEvent.change(screen.getByTestId('sla-first-2'), { target: { value: '15' } });
  fireEvent.change(screen.getByTestId('sla-resolution-2'), { target: { value: '8:00' } });
  expect(save2.disabled).toBe(false);
  fireEvent.click(save2);
  await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => [new URL(c.url).pathname, c.body])).toEqual([['/sla/policies/2', { firstResponseMinutes: 15, resolutionMinutes: 480, warnPercent: 80 }]]));
  await waitFor(() => expect(screen.getByTestId('sla-clear-2')).toBeTruthy());

  fireEvent.click(screen.getByTestId('sla-clear-1'));
  await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toContainEqual({ firstResponseMinutes: null, resolutionMinutes: null }));
  await waitFor(() => expect((screen.getByTestId('sla-first-1') as HTMLInputElement).value).toBe(''));
});

test('helpers and texts', () => {
  expect([parseMinutes(''), parseMinutes(' 90 '), parseMinutes('1:30'), parseMinutes('0'), parseMinutes('1:75'), parseMinutes('525601'), parseMinutes('2h')]).toEqual([null, 90, 90, undefined, undefined, undefined, undefined]);
  expect([parsePercent('80'), parsePercent('0'), parsePercent('100'), parsePercent('')]).toEqual([80, undefined, undefined, undefined]);
  expect([formatMinutes(null), formatMinutes(90), formatMinutes(5)]).toEqual(['', '1:30', '0:05']);
  const keys = (o: unknown, p = ''): string[] => (o && typeof o === 'object' ? Object.entries(o).flatMap(([k, v]) => keys(v, `${p}${k}.`)) : [p]);
  for (const lng of ['en', 'es', 'tr'] as const) expect(keys(texts[lng]).sort()).toEqual(keys(texts['pt-BR']).sort());
});
