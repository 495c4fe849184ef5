/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { contactPrivacyTexts } from '@atendo/web-kit';
import { ContactsPage } from '../src/pages/contacts/ContactsPage';
import { answer, mockFetch, renderAgent, signIn } from './helpers';

configure({ asyncUtilTimeout: 5000 });
jest.setTimeout(60_000);
const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const ANA = { id: 1, name: 'Ana Souza', number: '5511987650001', email: '', isGroup: false, active: true, channel: 'whatsapp', disableBot: false, acceptAudioMessage: true, urlPicture: null, profilePicUrl: null, tags: [] };

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

/** Issue 34 item 2 in the contacts page: export downloads the JSON; anonymize asks for a ticked confirmation. */
test('admins export a contact and anonymize it after ticking the confirmation; users see neither action', async () => {
  const created: string[] = [];
  (URL as unknown as { createObjectURL: (b: Blob) => string }).createObjectURL = () => {
    created.push('blob');
    return 'blob:x';
  };
  (URL as unknown as { revokeObjectURL: () => void }).revokeObjectURL = () => undefined;
  let anonymized = false;
  const calls = mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/contacts') return answer(200, { contacts: [anonymized ? { ...ANA, name: '#1', number: 'anon-1' } : ANA], count: 1, hasMore: false });
    if (call.method === 'GET' && url.pathname === '/contacts/1/export') return answer(200, { format: 'atendo.contact-export', contact: ANA });
    if (call.method === 'POST' && url.pathname === '/contacts/1/anonymize') {
      anonymized = true;
      return answer(200, { contactId: 1, tickets: 2, messages: 9, schedules: 0 });
    }
    if (call.method === 'GET' && url.pathname === '/tags/list') return answer(200, []);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  signIn({ profile: 'admin' });
  renderAgent(<ContactsPage />, { route: '/contacts' });
  await waitFor(() => expect(screen.getByTestId('contact-export-1')).toBeTruthy());
  fireEvent.click(screen.getByTestId('contact-export-1'));
  await waitFor(() => expect(created).toEqual(['blob']));
  expect(calls.some((c) => c.method === 'GET' && c.url.endsWith('/contacts/1/export'))).toBe(true);

  // The export's run ends (its buttons are enabled again) before the next action.
  await waitFor(() => expect((screen.getByTestId('contact-anonymize-1') as HTMLButtonElement).disabled).toBe(false));
  fireEvent.click(screen.getByTestId('contact-anonymize-1'));
  const dialog = within(await screen.findByRole('dialog', { name: contactPrivacyTexts('pt-BR').confirmTitle }));
  const confirm = dialog.getByTestId('anonymize-confirm') as HTMLButtonElement;
  expect(confirm.disabled).toBe(true);
  fireEvent.click(confirm);
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
  fireEvent.click(dialog.getByTestId('anonymize-check'));
  expect(confirm.disabled).toBe(false);
  fireEvent.click(confirm);
  await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => [new URL(c.url).pathname, c.body])).toEqual([['/contacts/1/anonymize', { confirm: true }]]));
  await waitFor(() => expect(screen.getByText('anon-1')).toBeTruthy());
});

test('a plain user has no export or anonymize action', async () => {
  mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/contacts') return answer(200, { contacts: [ANA], count: 1, hasMore: false });
    if (url.pathname === '/tags/list') return answer(200, []);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  signIn({ profile: 'user' });
  renderAgent(<ContactsPage />, { route: '/contacts' });
  await waitFor(() => expect(screen.getByText('Ana Souza')).toBeTruthy());
  expect(screen.queryByTestId('contact-export-1')).toBeNull();
  expect(screen.queryByTestId('contact-anonymize-1')).toBeNull();
});

test('the actions have texts in the four languages', () => {
  const keys = Object.keys(contactPrivacyTexts('pt-BR')).sort();
  for (const lng of ['en', 'es', 'tr']) expect(Object.keys(contactPrivacyTexts(lng)).sort()).toEqual(keys);
  expect(contactPrivacyTexts('xx')).toEqual(contactPrivacyTexts('pt-BR'));
});
