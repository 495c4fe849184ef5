import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { ToastContainer } from 'react-toastify';
import type { Plan } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { initI18n } from '../src/i18n';

/** A fetch answer as the HTTP client reads it (jsdom has no Response). */
export function answer(status: number, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: (h: string) => (h.toLowerCase() === 'content-type' && body !== undefined ? 'application/json' : null) },
    text: async () => text,
  };
}

export interface FetchCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
  credentials?: string;
}

/** Replaces global fetch with `route(call)`; returns the recorded calls. */
export function mockFetch(route: (call: FetchCall) => ReturnType<typeof answer>): FetchCall[] {
  const calls: FetchCall[] = [];
  (globalThis as { fetch?: unknown }).fetch = jest.fn(async (url: string, init: RequestInit = {}) => {
    const call: FetchCall = {
      url,
      method: String(init.method ?? 'GET'),
      headers: { ...(init.headers as Record<string, string>) },
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      credentials: init.credentials,
    };
    calls.push(call);
    return route(call);
  });
  return calls;
}

export const API = 'http://api.test';

/** Renders `ui` with i18n (pt-BR), theme, a fresh query cache, a memory router at `route` and toasts. */
export function renderShell(ui: ReactNode, { route = '/', language = 'pt-BR' as const } = {}) {
  window.__ATENDO_ENV__ = { API_URL: API };
  const i18n = initI18n(language);
  void i18n.changeLanguage(language);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <AtendoThemeProvider>
        <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
        <ToastContainer />
      </AtendoThemeProvider>
    </QueryClientProvider>,
  );
}

/** `YYYY-MM-DD` `days` from today (local calendar). */
export function dayFromToday(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function sessionUser(over: Record<string, unknown> = {}) {
  return {
    id: 7,
    companyId: 3,
    name: 'Ana',
    email: 'ana@example.com',
    profile: 'admin',
    super: false,
    company: { id: 3, name: 'Acme', dueDate: '2999-01-01' },
    ...over,
  };
}

/** A plan with every feature on (tests turn single flags off with a spread). */
export const FULL_PLAN: Plan = {
  id: 1,
  name: 'Full',
  users: 10,
  connections: 5,
  queues: 5,
  amount: '99.90',
  useWhatsapp: true,
  useFacebook: true,
  useInstagram: true,
  useCampaigns: true,
  useSchedules: true,
  useInternalChat: true,
  useExternalApi: true,
  useKanban: true,
  useOpenAi: true,
  useIntegration: true,
};
