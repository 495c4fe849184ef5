/**
 * Shared setup of the chat area's jsdom tests: the shell's helpers (fetch mock; rendering with i18n, theme,
 * a fresh query cache and toasts), the area's `chats` namespace, the session, and chat fixtures.
 */
import type { ReactNode } from 'react';
import i18next from 'i18next';
import { act } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { answer, API, mockFetch, renderShell, sessionUser, type FetchCall } from '../../../shell/test/helpers';
import { registerTranslations } from '../src/i18n';
import type { Chat, ChatMessage } from '../src/api';

export { answer, API, mockFetch, type FetchCall };

export const ME = 7;
export const BIA = 9;
export const CAIO = 11;

export const uuidOf = (id: number) => `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`;

/** A chat as GET /chats answers it: participants ME and BIA (plus `extra`), `unreads` for ME. */
export function chat(id: number, title: string, over: Partial<Chat> & { unreads?: number } = {}): Chat {
  const { unreads = 0, ...rest } = over;
  return {
    id,
    uuid: uuidOf(id),
    title,
    ownerId: BIA,
    owner: { id: BIA, name: 'Bia' },
    lastMessage: '',
    companyId: 3,
    createdAt: '2030-01-01T10:00:00.000Z',
    updatedAt: '2030-01-01T10:00:00.000Z',
    users: [
      { id: id * 10, chatId: id, userId: ME, unreads, user: { id: ME, name: 'Ana' } },
      { id: id * 10 + 1, chatId: id, userId: BIA, unreads: 0, user: { id: BIA, name: 'Bia' } },
    ],
    ...rest,
  };
}

/** A message of chat `chatId`. */
export function message(id: number, chatId: number, senderId: number, text: string): ChatMessage {
  const names: Record<number, string> = { [ME]: 'Ana', [BIA]: 'Bia', [CAIO]: 'Caio' };
  return { id, chatId, senderId, sender: { id: senderId, name: names[senderId] ?? '?' }, message: text, mediaPath: null, mediaName: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
}

/** Signs in as ME (profile user) with a token (the socket needs one). */
export function signIn(): void {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: ME, profile: 'user' }) as never));
}

/** Renders `ui` as the shell does, at `route` (the area reads its route from the page's URL). */
export function renderArea(ui: ReactNode, route = '/chats') {
  window.history.replaceState(null, '', route);
  const result = renderShell(ui, { route });
  registerTranslations();
  act(() => {
    void i18next.changeLanguage('pt-BR');
  });
  return result;
}

/** Makes `(max-width: …)` media queries match (a narrow screen) or not. */
export function setNarrow(narrow: boolean): void {
  Object.defineProperty(window, 'matchMedia', {
    configurable: true,
    writable: true,
    value: (query: string) => ({
      matches: narrow && query.includes('max-width'),
      media: query,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }),
  });
}
