/**
 * Helpers of the conversation's component tests (jsdom): i18n with the conversation texts, the theme, a
 * fresh query cache, toasts, and a recording `fetch` under the shared API client.
 */
import { TextDecoder, TextEncoder } from 'node:util';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import i18next from 'i18next';
import type { ReactNode } from 'react';
import { initReactI18next } from 'react-i18next';
import { ToastContainer } from 'react-toastify';
import { AtendoThemeProvider } from '@atendo/web-ui';
import type { Message } from '../src/conversation/types';
import { registerTranslations } from '../src/i18n';

Object.assign(globalThis, { TextEncoder, TextDecoder });

export const API = 'http://api.test';

/** Initialises the shared i18next (pt-BR) once; the conversation module adds its texts to it. */
export function initTestI18n(lng = 'pt-BR') {
  if (!i18next.isInitialized) {
    void i18next.use(initReactI18next).init({ lng, fallbackLng: 'pt-BR', resources: {}, interpolation: { escapeValue: false }, initAsync: false });
  }
  void i18next.changeLanguage(lng);
  // The area's shared texts (tags, close flow) too: the conversation uses both.
  registerTranslations();
  return i18next;
}

/** A fetch answer as the HTTP client reads it (jsdom has no Response). */
export function answer(status: number, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: (h: string) => (h.toLowerCase() === 'content-type' && body !== undefined ? 'application/json' : null) },
    text: async () => text,
    blob: async () => new Blob(['x'.repeat(2048)], { type: 'image/png' }),
  };
}

export interface FetchCall {
  url: string;
  method: string;
  /** Parsed JSON, a FormData, or undefined. */
  body: unknown;
}

/** Replaces global fetch with `route(call)`; returns the recorded calls. */
export function mockFetch(route: (call: FetchCall) => ReturnType<typeof answer> | Promise<ReturnType<typeof answer>>): FetchCall[] {
  const calls: FetchCall[] = [];
  (globalThis as { fetch?: unknown }).fetch = jest.fn(async (url: string, init: RequestInit = {}) => {
    const call: FetchCall = { url: String(url), method: String(init.method ?? 'GET'), body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body };
    calls.push(call);
    return route(call);
  });
  return calls;
}

/** Renders `ui` with i18n, theme, a fresh query cache and a toast container. */
export function renderWithProviders(ui: ReactNode) {
  window.__ATENDO_ENV__ = { API_URL: API };
  window.localStorage.setItem('token', JSON.stringify('test-token'));
  initTestI18n();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={client}>
      <AtendoThemeProvider>
        {ui}
        <ToastContainer />
      </AtendoThemeProvider>
    </QueryClientProvider>,
  );
  return { ...view, client };
}

let seq = 100;

/** A message with defaults (an inbound text of today). */
export function message(over: Partial<Message> = {}): Message {
  const id = over.id ?? seq++;
  return {
    id,
    ticketId: 1,
    ack: 0,
    fromMe: false,
    body: `message ${id}`,
    mediaUrl: null,
    mediaType: 'conversation',
    isDeleted: false,
    isEdited: false,
    isForwarded: false,
    isPrivate: false,
    reactions: [],
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    contact: { id: 9, name: 'Maria Cliente' },
    quotedMsg: null,
    ticket: { id: 1, queueId: null, queue: null },
    ...over,
  };
}
