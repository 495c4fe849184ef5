/**
 * Shared setup of the inbox's jsdom tests: the shell's test helpers (fetch mock, rendering with i18n,
 * theme, query cache and a memory router; the page's URL set to the route, which the area reads) plus the inbox's translations and ticket fixtures.
 */
import type { ReactNode } from 'react';
import i18next from 'i18next';
import { act } from '@testing-library/react';
import { session, type SessionUser } from '@atendo/web-api';
import { renderShell } from '../../../shell/test/helpers';
import { registerTranslations } from '../src/i18n';
import type { Viewer } from '../src/lib/viewer';
import type { Ticket } from '../src/types';

export { answer, API, mockFetch, type FetchCall } from '../../../shell/test/helpers';

/** Renders `ui` like the shell does, with the inbox's `inbox` namespace registered, in `language`. */
export function renderInbox(ui: ReactNode, opts: { route?: string; language?: 'pt-BR' | 'en' | 'es' | 'tr' } = {}) {
  const language = opts.language ?? 'pt-BR';
  const route = opts.route ?? '/tickets';
  // The area reads its route from the page's URL (src/lib/router.ts).
  window.history.replaceState(null, '', route);
  const result = renderShell(ui, { route, language: language as 'pt-BR' });
  registerTranslations();
  act(() => {
    void i18next.changeLanguage(language);
  });
  return result;
}

/** Signs the session in as `user` (the inbox reads the viewer from it). */
export function signInAs(user: Partial<SessionUser> & { id: number; profile: string }): void {
  act(() => session.signIn({ companyId: 3, name: 'Ana', email: 'ana@example.com', super: false, queues: [], ...user } as SessionUser));
}

export const ADMIN: Viewer = { id: 1, admin: true, allTicket: false, allowGroup: false, queueIds: [] };
export const ATTENDANT: Viewer = { id: 7, admin: false, allTicket: false, allowGroup: false, queueIds: [10] };

let seq = 100;

/** A ticket as GET /tickets answers it; fields overridable. */
export function ticket(over: Partial<Ticket> = {}): Ticket {
  const id = over.id ?? seq++;
  return {
    id,
    uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    status: 'open',
    companyId: 3,
    contactId: id + 1000,
    whatsappId: 5,
    queueId: 10,
    userId: 7,
    unreadMessages: 0,
    lastMessage: 'Olá, tudo bem?',
    isGroup: false,
    isBot: false,
    channel: 'whatsapp',
    fromMe: false,
    amountUsedBotQueues: 0,
    amountUsedBotQueuesNPS: 0,
    promptId: null,
    useIntegration: false,
    integrationId: null,
    imported: false,
    isOutOfHour: false,
    userRating: null,
    closedAt: null,
    acceptedAt: null,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    contact: { id: id + 1000, name: `Contato ${id}`, number: '5511999990000', urlPicture: null, profilePicUrl: null },
    queue: { id: 10, name: 'Vendas', color: '#2E7D32' },
    user: { id: 7, name: 'Ana' },
    tags: [],
    whatsapp: { id: 5, name: 'Loja Centro', channel: 'whatsapp', groupAsTicket: 'disabled' },
    ...over,
  };
}
