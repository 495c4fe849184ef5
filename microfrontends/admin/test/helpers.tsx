/**
 * Shared setup of the admin area's jsdom tests: the shell's test helpers (fetch mock, rendering with i18n,
 * theme, query cache and toasts) plus the area's translations and announcement fixtures.
 */
import type { ReactNode } from 'react';
import i18next from 'i18next';
import { act } from '@testing-library/react';
import { session, writeToken, type SessionUser } from '@atendo/web-api';
import { renderShell, sessionUser } from '../../../shell/test/helpers';
import { registerTranslations } from '../src/i18n';
import type { Announcement } from '../src/announcements/api';

export { answer, API, mockFetch, type FetchCall } from '../../../shell/test/helpers';

/** Renders `ui` like the shell does, with the area's `admin` namespace registered, in `language`. */
export function renderAdmin(ui: ReactNode, opts: { route?: string; language?: 'pt-BR' | 'en' | 'es' | 'tr' } = {}) {
  const language = opts.language ?? 'pt-BR';
  const route = opts.route ?? '/announcements';
  window.history.replaceState(null, '', route);
  const result = renderShell(ui, { route, language: language as 'pt-BR' });
  registerTranslations();
  act(() => {
    void i18next.changeLanguage(language);
  });
  return result;
}

/** Signs the session in as a super user of the platform company (the socket needs a stored token). */
export function signInSuper(over: Partial<SessionUser> = {}): void {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: 1, super: true, ...over }) as never));
}

/** An announcement as the API answers it; fields overridable. */
export function announcement(over: Partial<Announcement> & { id: number }): Announcement {
  return {
    priority: 3,
    title: `Anúncio ${over.id}`,
    text: 'texto',
    mediaPath: null,
    mediaName: null,
    companyId: 1,
    status: true,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...over,
  };
}
