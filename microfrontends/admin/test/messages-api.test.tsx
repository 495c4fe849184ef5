/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { MessagesApiPage } from '../src/pages/messages-api/MessagesApiPage';
import { curlExamples, formErrors, MEDIA_MAX_BYTES } from '../src/pages/messages-api/api';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;

function api(send: (call: FetchCall) => ReturnType<typeof answer>, lookups: 'ok' | 'fail' = 'ok') {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/users/list') return lookups === 'ok' ? answer(200, [{ id: 11, name: 'Ana' }]) : answer(500, { error: 'ERR_INTERNAL' });
    if (call.method === 'GET' && url.pathname === '/queue') return lookups === 'ok' ? answer(200, [{ id: 5, name: 'Vendas', color: '#ff0000' }]) : answer(500, { error: 'ERR_INTERNAL' });
    if (call.method === 'POST' && url.pathname === '/api/messages/send') return send(call);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

function renderPage(language: 'pt-BR' | 'en' = 'pt-BR') {
  writeToken('session-jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'user' }) as never));
  return renderAdmin(<MessagesApiPage />, { route: '/messages-api', language });
}

const type = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } });

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
  mockSocket.emitted.length = 0;
});

test('form checks and the documented calls', () => {
  const empty = { token: '', number: '', body: '', userId: '', queueId: '' };
  expect(formErrors(empty, 'text').map((e) => e.key)).toEqual(['messagesApi.errors.token', 'messagesApi.errors.number', 'messagesApi.errors.body']);
  expect(formErrors({ ...empty, token: 't', number: '123', userId: 'x' }, 'media').map((e) => e.key)).toEqual(['messagesApi.errors.numberInvalid', 'messagesApi.errors.id', 'messagesApi.errors.file']);
  const big = new File(['x'], 'big.bin');
  Object.defineProperty(big, 'size', { value: MEDIA_MAX_BYTES + 1 });
  expect(formErrors({ ...empty, token: 't', number: '5511999990000', file: big }, 'media').map((e) => e.key)).toEqual(['messagesApi.errors.fileSize']);
  const c = curlExamples('http://x/api/messages/send');
  expect(c.text).toContain("-H 'Authorization: Bearer <token>'");
  expect(c.media).toContain("-F 'medias=@");
});

test('documents the endpoint, POST and the bearer header; sends a text with the typed token, not the session', async () => {
  const calls = api(() => answer(200, { message: 'Mensagem enviada com sucesso', messageId: 901, ticketId: 77, number: '5511999990000' }));
  renderPage();
  expect(screen.getByTestId('messages-api-endpoint').textContent).toBe(`${API}/api/messages/send`);
  expect(screen.getByText('POST')).toBeTruthy();
  expect(screen.getByText('Authorization: Bearer <token>')).toBeTruthy();
  expect(screen.getByTestId('messages-api-results-empty')).toBeTruthy();
  // Spec messages before sending.
  fireEvent.click(screen.getByTestId('text-send'));
  expect(await screen.findByText('Informe o token')).toBeTruthy();
  expect(screen.getByText('Informe a mensagem')).toBeTruthy();
  expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);

  await waitFor(() => expect(screen.getByTestId('text-user').querySelectorAll('option')).toHaveLength(2));
  type('text-token', 'CONNTOKEN123');
  type('text-number', '+55 (11) 99999-0000');
  type('text-body', 'Olá pela API');
  type('text-user', '11');
  type('text-queue', '5');
  fireEvent.click(screen.getByTestId('text-signature'));
  await act(async () => {
    fireEvent.click(screen.getByTestId('text-send'));
  });
  const post = calls.find((c) => c.method === 'POST')!;
  expect(post.headers.Authorization).toBe('Bearer CONNTOKEN123');
  expect(post.body).toEqual({ number: '+55 (11) 99999-0000', body: 'Olá pela API', userId: 11, queueId: 5, sendSignature: true });
  expect(await screen.findByText('Mensagem enviada com sucesso')).toBeTruthy();
  expect(screen.getByTestId('messages-api-result-901').textContent).toContain('ticket #77');
  expect(screen.getByTestId('messages-api-ack-901').textContent).toBe('na fila');
  // The shared socket joins no family room (that would narrow the inbox's ticket events to that room).
  expect(mockSocket.emitted).not.toContain('joinChatBox');
  // Live: the ack update of that message.
  act(() => mockSocket.push(`company-${COMPANY}-appMessage`, { action: 'update', message: { id: 901, ack: 2 } }));
  expect(screen.getByTestId('messages-api-ack-901').textContent).toBe('entregue');
  act(() => mockSocket.push(`company-${COMPANY}-appMessage`, { action: 'update', message: { id: 555, ack: 3 } }));
  expect(screen.getByTestId('messages-api-ack-901').textContent).toBe('entregue');
});

test('sends a media file as multipart (medias) and shows API errors translated', async () => {
  let refuse = true;
  const calls = api(() => (refuse ? answer(401, { error: 'ERR_INVALID_API_TOKEN', message: 'x' }) : answer(200, { message: 'Mensagem enviada com sucesso', messageId: 902, ticketId: 78, number: '5511999990000' })));
  renderPage('en');
  type('media-token', 'WRONG');
  type('media-number', '5511999990000');
  type('media-body', 'Catalogue');
  const file = new File(['%PDF-1.4 test'], 'catalogo.pdf', { type: 'application/pdf' });
  fireEvent.change(screen.getByTestId('media-file'), { target: { files: [file] } });
  await act(async () => {
    fireEvent.click(screen.getByTestId('media-send'));
  });
  const error = await screen.findByTestId('media-error');
  expect(error.textContent).not.toBe('ERR_INVALID_API_TOKEN');
  expect(error.textContent).not.toBe('x');
  refuse = false;
  type('media-token', 'CONNTOKEN123');
  await act(async () => {
    fireEvent.click(screen.getByTestId('media-send'));
  });
  const posts = calls.filter((c) => c.method === 'POST');
  expect(posts).toHaveLength(2);
  const form = posts[1].body as unknown as FormData;
  expect(form).toBeInstanceOf(FormData);
  expect(form.get('number')).toBe('5511999990000');
  expect(form.get('body')).toBe('Catalogue');
  expect((form.get('medias') as File).name).toBe('catalogo.pdf');
  expect(posts[1].headers.Authorization).toBe('Bearer CONNTOKEN123');
  expect(await screen.findByTestId('messages-api-result-902')).toBeTruthy();
  expect(screen.queryByTestId('media-error')).toBeNull();
});

test('users and queues failing to load: the forms still work, with a retry', async () => {
  api(() => answer(200, {}), 'fail');
  renderPage();
  expect((await screen.findAllByText('Não foi possível carregar usuários e filas.')).length).toBeGreaterThan(0);
});

test('issue 34: a text marked bulk sends bulk: true; an opted-out contact answers ERR_OPTED_OUT, shown translated', async () => {
  const calls = api(() => answer(409, { error: 'ERR_OPTED_OUT', message: 'The contact opted out of bulk messages: nothing was sent' }));
  renderPage();
  type('text-token', 'CONNTOKEN123');
  type('text-number', '5511999990000');
  type('text-body', 'Promoção');
  fireEvent.click(screen.getByTestId('text-bulk'));
  await act(async () => {
    fireEvent.click(screen.getByTestId('text-send'));
  });
  await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
  expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ number: '5511999990000', body: 'Promoção', sendSignature: false, bulk: true });
  const error = await screen.findByTestId('text-error');
  expect(error.textContent).toBe('O contato pediu para não receber mensagens em massa: nada foi enviado.');
});
