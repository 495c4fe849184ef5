/**
 * Shared setup of the kanban area's jsdom tests: the shell's test helpers (fetch mock, rendering with i18n,
 * theme, query cache and toasts) plus the area's translations.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ReactNode } from 'react';
import i18next from 'i18next';
import { act } from '@testing-library/react';
import { session, writeToken, type SessionUser } from '@atendo/web-api';
import { renderShell, sessionUser } from '../../../shell/test/helpers';
import { registerTexts, registerTranslations, resources, type Texts } from '../src/i18n';

export { answer, API, mockFetch, type FetchCall } from '../../../shell/test/helpers';

/** The sub-page folders (src/pages/<page>/). */
export function pageFolders(): string[] {
  const dir = join(__dirname, '../src/pages');
  return readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory()).sort();
}

/** Every text of the area: its own and every sub-page's (`src/pages/<page>/i18n.ts`, merged per language). */
export function allTexts(): Texts {
  const out: Texts = { 'pt-BR': { ...resources['pt-BR'] }, en: { ...resources.en }, es: { ...resources.es }, tr: { ...resources.tr } };
  for (const page of pageFolders()) {
    const file = join(__dirname, '../src/pages', page, 'i18n.ts');
    if (!existsSync(file)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { texts } = require(file) as { texts: Texts };
    for (const lng of Object.keys(out) as (keyof Texts)[]) Object.assign(out[lng], texts[lng]);
  }
  return out;
}

/** Renders `ui` like the shell does, with the area's `kanban` namespace registered, in `language`. */
export function renderKanban(ui: ReactNode, opts: { route?: string; language?: 'pt-BR' | 'en' | 'es' | 'tr' } = {}) {
  const language = opts.language ?? 'pt-BR';
  const route = opts.route ?? '/';
  window.history.replaceState(null, '', route);
  const result = renderShell(ui, { route, language: language as 'pt-BR' });
  registerTranslations();
  registerTexts(allTexts());
  act(() => {
    void i18next.changeLanguage(language);
  });
  return result;
}

/** Signs the session in (the socket needs a stored token); profile admin of company 3 unless overridden. */
export function signIn(over: Partial<SessionUser> = {}): SessionUser {
  writeToken('jwt');
  const user = sessionUser({ id: 7, companyId: 3, ...over }) as SessionUser;
  act(() => session.signIn(user as never));
  return user;
}
