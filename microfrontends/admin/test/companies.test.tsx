/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { CompaniesPage } from '../src/pages/companies/CompaniesPage';
import { daysUntilDue, dmy, dueTint } from '../src/pages/companies/api';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { FULL_PLAN, sessionUser } from '../../../shell/test/helpers';

jest.mock('socket.io-client', () => ({ io: jest.fn(() => ({ on() {}, off() {}, emit() {}, connect() {}, disconnect() {}, removeAllListeners() {} })) }));

const ymd = (offset: number) => {
  const d = new Date();
  d.setDate(d.getDate() + offset);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
};
const PLAN = { ...FULL_PLAN, id: 2, name: 'Pro', amount: '99.90' };
const company = (id: number, dueDate: string | null, over: Record<string, unknown> = {}) => ({ id, name: `Empresa ${id}`, email: `e${id}@x.test`, phone: null, document: null, status: true, dueDate, recurrence: 'MONTHLY', planId: 2, lastLogin: null, createdAt: '2026-01-10T12:00:00.000Z', plan: PLAN, ...over });

describe('companies helpers', () => {
  test('days until the due date and the tint: yellow 1 to 5 days before, red on or after', () => {
    const today = new Date(2026, 10, 25);
    expect(daysUntilDue('2026-11-30', today)).toBe(5);
    expect(dueTint('2026-12-01', today)).toBeNull();
    expect(dueTint('2026-11-30', today)).toBe('warning');
    expect(dueTint('2026-11-26', today)).toBe('warning');
    expect(dueTint('2026-11-25', today)).toBe('danger');
    expect(dueTint('2026-10-01', today)).toBe('danger');
    expect(dueTint(null, today)).toBeNull();
    expect(dmy('2026-11-30')).toBe('30/11/2026');
  });
});

describe('companies admin', () => {
  afterEach(() => act(() => session.signOut()));

  test('the table with plan value, tinted rows, renewal by recurrence and a validated new company', async () => {
    const renewed = company(3, ymd(33));
    const calls: FetchCall[] = mockFetch((call) => {
      const url = new URL(call.url);
      if (call.method === 'GET' && url.pathname === '/companiesPlan/') return answer(200, { companies: [company(1, '2999-12-31'), company(2, ymd(30), { plan: null, planId: null }), company(3, ymd(3)), company(4, ymd(-1))], count: 4, hasMore: false });
      if (call.method === 'GET' && url.pathname === '/plans/all') return answer(200, [PLAN]);
      if (call.method === 'POST' && url.pathname === '/companies/3/renew') return answer(200, renewed);
      if (call.method === 'POST' && url.pathname === '/companies') return answer(201, company(9, null, { name: 'Nova Ltda' }));
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    writeToken('jwt');
    act(() => session.signIn(sessionUser({ id: 1, companyId: 1, profile: 'admin', super: true }) as never));
    renderAdmin(<CompaniesPage />, { route: '/companies' });
    await screen.findByTestId('company-row-3');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['ID', 'Ativa', 'Nome', 'E-mail', 'Plano', 'Valor', 'Criada em', 'Vencimento', 'Último acesso', 'Ações']);
    expect(screen.getByTestId('company-row-1').getAttribute('data-tint')).toBe('');
    expect(screen.getByTestId('company-row-2').getAttribute('data-tint')).toBe('');
    expect(screen.getByTestId('company-row-3').getAttribute('data-tint')).toBe('warning');
    expect(screen.getByTestId('company-row-4').getAttribute('data-tint')).toBe('danger');
    expect(within(screen.getByTestId('company-row-3')).getByText(/R\$\s?99,90/)).toBeTruthy();
    expect(within(screen.getByTestId('company-row-2')).getAllByText('–')).toHaveLength(2);
    expect(within(screen.getByTestId('company-row-3')).getByText(/\(Mensal\)/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('company-renew-3'));
    await waitFor(() => expect(screen.getByTestId('company-row-3').getAttribute('data-tint')).toBe(''));
    expect(calls.some((c) => c.method === 'POST' && c.url === `${API}/companies/3/renew`)).toBe(true);

    fireEvent.click(screen.getByTestId('company-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar empresa' }));
    fireEvent.click(d.getByTestId('company-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Obrigatório', 'Obrigatório', 'Obrigatório']));
    fireEvent.change(d.getByTestId('company-name'), { target: { value: 'Nova Ltda' } });
    fireEvent.change(d.getByTestId('company-email'), { target: { value: 'dono@nova.test' } });
    fireEvent.change(d.getByTestId('company-password'), { target: { value: 'segredo1' } });
    await waitFor(() => expect(d.getByTestId('company-plan').textContent).toContain('Pro'));
    fireEvent.change(d.getByTestId('company-plan'), { target: { value: '2' } });
    // numberAttendants and numberConections: 1 by default, numeric only (spec 1-platform.md §5).
    expect([(d.getByLabelText('Número de atendentes') as HTMLInputElement).value, (d.getByLabelText('Número de conexões') as HTMLInputElement).value]).toEqual(['1', '1']);
    fireEvent.change(d.getByTestId('company-attendants'), { target: { value: 'dez' } });
    fireEvent.click(d.getByTestId('company-submit'));
    await d.findByText('Use um número inteiro');
    expect(calls.some((c) => c.method === 'POST' && c.url === `${API}/companies`)).toBe(false);
    fireEvent.change(d.getByTestId('company-attendants'), { target: { value: '10' } });
    fireEvent.change(d.getByTestId('company-connections'), { target: { value: '3' } });
    fireEvent.click(d.getByTestId('company-submit'));
    await screen.findByTestId('company-row-9');
    expect(calls.find((c) => c.method === 'POST' && c.url === `${API}/companies`)?.body).toMatchObject({ name: 'Nova Ltda', email: 'dono@nova.test', password: 'segredo1', planId: 2, dueDate: null, recurrence: 'MONTHLY', status: true, numberAttendants: 10, numberConections: 3 });
  });
});
