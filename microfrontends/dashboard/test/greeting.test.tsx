/** @jest-environment jsdom */
import { act, render, screen, within } from '@testing-library/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { queryClient, session, writeToken } from '@atendo/web-api';
import { Root } from '../src/root';
import { registerTranslations } from '../src/i18n';

function answer(status: number, body: unknown) {
  return { ok: status < 300, status, headers: { get: () => 'application/json' }, text: async () => JSON.stringify(body) };
}

const PLAN = { id: 2, name: 'Essencial', users: 5, connections: 2, queues: 4, amount: '99.90', useWhatsapp: true, useFacebook: false, useInstagram: false, useCampaigns: false, useSchedules: true, useInternalChat: true, useExternalApi: false, useKanban: true, useOpenAi: false, useIntegration: false };

describe('dashboard greeting card', () => {
  beforeAll(async () => {
    await i18next.use(initReactI18next).init({ lng: 'pt-BR', fallbackLng: 'pt-BR', resources: {} });
    registerTranslations();
  });

  test("shows the user's name, the company, its due date and the plan's limits and features from GET /companies/listPlan", async () => {
    window.__ATENDO_ENV__ = { API_URL: 'http://api.test' };
    const urls: string[] = [];
    (globalThis as { fetch?: unknown }).fetch = jest.fn(async (url: string) => {
      urls.push(url);
      return answer(200, { id: 3, name: 'Padaria Central', dueDate: '2031-02-28', plan: PLAN });
    });
    writeToken('jwt');
    act(() => session.signIn({ id: 7, companyId: 3, name: 'Maria', email: 'm@p.com', profile: 'admin', super: false }));
    render(<Root />);
    const card = await screen.findByTestId('dashboard-greeting');
    expect(within(card).getByRole('heading', { level: 1 }).textContent).toBe('Olá, Maria!');
    expect(within(card).getByText('Bem-vindo(a) à Padaria Central.')).toBeTruthy();
    expect(within(card).getByText('28/02/2031')).toBeTruthy();
    expect(within(card).getByText('Essencial')).toBeTruthy();
    expect(within(card).getByText(/R\$\s99,90/)).toBeTruthy();
    const features = within(card).getByRole('list', { name: 'Recursos do plano' });
    const on = [...features.querySelectorAll('[data-enabled="true"]')].map((li) => li.textContent);
    // Each item starts with its icon's accessible title (incluído / não incluído).
    expect(on).toEqual(['incluídoWhatsApp', 'incluídoAgendamentos', 'incluídoChat interno', 'incluídoKanban']);
    expect(features.querySelector('[data-feature="useOpenAi"]')?.textContent).toBe('não incluídoPrompts de IA');
    expect(features.querySelectorAll('li')).toHaveLength(10);
    expect(urls.filter((u) => u.includes('/companies/'))).toEqual(['http://api.test/companies/listPlan/3']);
    await act(async () => {
      await i18next.changeLanguage('en');
    });
    expect(within(card).getByRole('heading', { level: 1 }).textContent).toBe('Hello, Maria!');
    act(() => session.signOut());
    queryClient.clear();
  });
});
