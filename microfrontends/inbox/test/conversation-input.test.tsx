/** @jest-environment jsdom */
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { answer, API, mockFetch, renderWithProviders, type FetchCall } from './conversation-helpers';
import { MessageInput } from '../src/conversation/MessageInput';
import { SIGNATURE_STORAGE_KEY } from '../src/conversation/prefs';
import { MIN_RECORDING_BYTES } from '../src/conversation/format';
import type { Message, QuickMessage } from '../src/conversation/types';

// The emoji-mart picker is its own chunk (custom element and data): a stand-in with two emoji here.
jest.mock('../src/conversation/EmojiPicker', () => ({
  __esModule: true,
  default: ({ onPick }: { onPick: (e: string) => void }) => (
    <div data-testid="emoji-picker">
      <button type="button" onClick={() => onPick('😀')}>
        grinning
      </button>
    </div>
  ),
}));

const TICKET = 5;
const QUICK: QuickMessage[] = [
  { id: 1, shortcode: 'bomdia', message: 'Bom dia! Em que posso ajudar você hoje? Estamos à disposição.', mediaPath: null, mediaName: null },
  { id: 2, shortcode: 'boleto', message: 'Segue o boleto.', mediaPath: `${API}/public/company1/quick/boleto.pdf`, mediaName: 'boleto.pdf', mediaType: 'application/pdf' },
  { id: 3, shortcode: 'tchau', message: 'Até logo!', mediaPath: null, mediaName: null },
];

let calls: FetchCall[];
const sent = (m: Partial<Message> = {}) => ({ id: 900, ticketId: TICKET, body: 'x', fromMe: true, ack: 0, mediaType: 'conversation', createdAt: new Date().toISOString(), ...m });

function routes() {
  calls = mockFetch((call) => {
    if (call.url === `${API}/quick-messages/list`) return answer(200, QUICK);
    if (call.url === `${API}/messages/${TICKET}` && call.method === 'POST') return answer(200, sent());
    if (call.url.startsWith(`${API}/public/`)) return answer(200);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const posts = () => calls.filter((c) => c.method === 'POST' && c.url === `${API}/messages/${TICKET}`);
const textBox = () => screen.getByTestId('message-text') as HTMLTextAreaElement;

function setup(props: Partial<Parameters<typeof MessageInput>[0]> = {}) {
  const onSent = jest.fn();
  const onCancelQuote = jest.fn();
  const view = renderWithProviders(<MessageInput ticketId={TICKET} status="open" onSent={onSent} onCancelQuote={onCancelQuote} {...props} />);
  return { ...view, onSent, onCancelQuote };
}

beforeEach(() => {
  window.localStorage.clear();
  routes();
});
afterEach(() => {
  cleanup();
  jest.useRealTimers();
});

describe('MessageInput: text', () => {
  test('blank text is not sent (Enter and no send button)', async () => {
    setup();
    fireEvent.change(textBox(), { target: { value: '   \n  ' } });
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    expect(screen.queryByTestId('send-button')).toBeNull();
    expect(screen.getByTestId('record-button')).toBeTruthy();
    await new Promise((r) => setTimeout(r, 20));
    expect(posts()).toHaveLength(0);
  });

  test('Enter sends the trimmed text as JSON with signature on, then clears the box', async () => {
    const { onSent } = setup();
    fireEvent.change(textBox(), { target: { value: '  Olá, tudo bem?  ' } });
    // fireEvent returns false when the handler prevented the default (no line break inserted).
    expect(fireEvent.keyDown(textBox(), { key: 'Enter' })).toBe(false);
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(posts()[0].body).toEqual({ read: 1, fromMe: true, mediaUrl: '', body: 'Olá, tudo bem?', isPrivate: false, signMessage: true, quotedMsg: null });
    await waitFor(() => expect(textBox().value).toBe(''));
    expect(onSent).toHaveBeenCalledWith(expect.objectContaining({ id: 900 }));
  });

  test('Shift+Enter keeps the line break and does not send', async () => {
    setup();
    fireEvent.change(textBox(), { target: { value: 'linha 1' } });
    expect(fireEvent.keyDown(textBox(), { key: 'Enter', shiftKey: true })).toBe(true);
    fireEvent.change(textBox(), { target: { value: 'linha 1\nlinha 2' } });
    expect(textBox().rows).toBe(2);
    await new Promise((r) => setTimeout(r, 20));
    expect(posts()).toHaveLength(0);
  });

  test('the box grows to at most 5 rows', () => {
    setup();
    fireEvent.change(textBox(), { target: { value: 'a\nb\nc\nd\ne\nf\ng' } });
    expect(textBox().rows).toBe(5);
  });

  test('a reply sends quotedMsg {id} and clears the quote', async () => {
    const quoted = { id: 42, body: 'pergunta', fromMe: false, contact: { id: 1, name: 'Maria' } } as Message;
    const { onCancelQuote } = setup({ quoted });
    expect(screen.getByTestId('reply-strip').textContent).toContain('pergunta');
    fireEvent.change(textBox(), { target: { value: 'resposta' } });
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect((posts()[0].body as { quotedMsg: unknown }).quotedMsg).toEqual({ id: 42 });
    await waitFor(() => expect(onCancelQuote).toHaveBeenCalled());
  });

  test('disabled when the ticket is not open or group', async () => {
    setup({ status: 'pending' });
    expect(textBox().disabled).toBe(true);
    expect(textBox().placeholder).toBe('Aceite ou reabra o ticket para responder');
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    await new Promise((r) => setTimeout(r, 20));
    expect(posts()).toHaveLength(0);
  });

  test('a failed send shows the error and keeps the text', async () => {
    calls = mockFetch((call) => (call.method === 'POST' ? answer(400, { error: 'ERR_TICKET_NOT_OPEN', message: 'Ticket fechado' }) : answer(404)));
    setup();
    fireEvent.change(textBox(), { target: { value: 'oi' } });
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    await screen.findByText('Ticket fechado');
    expect(textBox().value).toBe('oi');
  });
});

describe('MessageInput: quick replies', () => {
  test("'/' lists quick replies by shortcode (labels cut at 35 + '...'); choosing one inserts its text", async () => {
    setup();
    fireEvent.change(textBox(), { target: { value: '/bo' } });
    const list = await screen.findByTestId('quick-replies');
    await waitFor(() => expect(screen.getAllByTestId('quick-reply')).toHaveLength(2));
    expect(calls.filter((c) => c.url === `${API}/quick-messages/list`)).toHaveLength(1);
    const labels = screen.getAllByTestId('quick-reply').map((b) => b.textContent);
    expect(labels).toEqual(['bomdia - Bom dia! Em que posso ajud...', 'boleto - Segue o boleto.']);
    expect(list.getAttribute('role')).toBe('listbox');
    fireEvent.click(screen.getAllByTestId('quick-reply')[0]);
    expect(textBox().value).toBe(QUICK[0].message);
    expect(screen.queryByTestId('quick-replies')).toBeNull();
    expect(posts()).toHaveLength(0);
  });

  test('Enter picks the highlighted quick reply instead of sending', async () => {
    setup();
    fireEvent.change(textBox(), { target: { value: '/tch' } });
    await waitFor(() => expect(screen.getAllByTestId('quick-reply')).toHaveLength(1));
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    expect(textBox().value).toBe('Até logo!');
    expect(posts()).toHaveLength(0);
  });

  test('a quick reply with media sends the file with its text as caption', async () => {
    setup();
    fireEvent.change(textBox(), { target: { value: '/boleto' } });
    await waitFor(() => expect(screen.getAllByTestId('quick-reply')).toHaveLength(1));
    fireEvent.click(screen.getByTestId('quick-reply'));
    await waitFor(() => expect(posts()).toHaveLength(1));
    const form = posts()[0].body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect((form.getAll('medias') as File[]).map((f) => f.name)).toEqual(['boleto.pdf']);
    expect(form.getAll('body')).toEqual(['Segue o boleto.']);
  });

  test('text not starting with / shows no quick replies', () => {
    setup();
    fireEvent.change(textBox(), { target: { value: 'bo/' } });
    expect(screen.queryByTestId('quick-replies')).toBeNull();
    expect(calls.filter((c) => c.url.includes('quick-messages'))).toHaveLength(0);
  });
});

describe('MessageInput: switches', () => {
  test('the private switch sends isPrivate: true', async () => {
    setup();
    fireEvent.click(screen.getByTestId('private-switch'));
    expect(textBox().placeholder).toBe('Digite uma nota privada');
    fireEvent.change(textBox(), { target: { value: 'nota interna' } });
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(posts()[0].body).toMatchObject({ body: 'nota interna', isPrivate: true });
  });

  test('the signature switch is on by default, remembered, and sent as signMessage', async () => {
    const first = setup();
    const sw = () => screen.getByTestId('signature-switch') as HTMLInputElement;
    expect(sw().checked).toBe(true);
    fireEvent.click(sw());
    expect(sw().checked).toBe(false);
    expect(window.localStorage.getItem(SIGNATURE_STORAGE_KEY)).toBe('false');
    first.unmount();

    setup();
    expect(sw().checked).toBe(false);
    fireEvent.change(textBox(), { target: { value: 'sem assinatura' } });
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(posts()[0].body).toMatchObject({ signMessage: false });
  });
});

describe('MessageInput: attachments', () => {
  test('several files: a preview list with remove, then one multipart request', async () => {
    const { onSent } = setup();
    const files = [new File(['a'], 'foto.png', { type: 'image/png' }), new File(['b'], 'contrato.pdf', { type: 'application/pdf' }), new File(['c'], 'extra.txt', { type: 'text/plain' })];
    fireEvent.change(screen.getByTestId('file-input'), { target: { files } });
    expect(screen.getAllByTestId('attachment').map((li) => li.textContent)).toEqual(['foto.png', 'contrato.pdf', 'extra.txt']);
    fireEvent.click(screen.getByRole('button', { name: 'Remover extra.txt' }));
    expect(screen.getAllByTestId('attachment')).toHaveLength(2);
    fireEvent.change(textBox(), { target: { value: 'segue os arquivos' } });
    fireEvent.click(screen.getByTestId('send-button'));
    await waitFor(() => expect(posts()).toHaveLength(1));
    const form = posts()[0].body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect((form.getAll('medias') as File[]).map((f) => f.name)).toEqual(['foto.png', 'contrato.pdf']);
    expect(form.getAll('body')).toEqual(['segue os arquivos', '']);
    expect(form.get('isPrivate')).toBe('false');
    expect(form.get('fromMe')).toBe('true');
    await waitFor(() => expect(screen.queryByTestId('attachments')).toBeNull());
    expect(onSent).toHaveBeenCalledTimes(1);
  });

  test('files alone (no caption) are sent; private media carry isPrivate', async () => {
    setup();
    fireEvent.click(screen.getByTestId('private-switch'));
    fireEvent.change(screen.getByTestId('file-input'), { target: { files: [new File(['a'], 'a.png', { type: 'image/png' })] } });
    fireEvent.keyDown(textBox(), { key: 'Enter' });
    await waitFor(() => expect(posts()).toHaveLength(1));
    const form = posts()[0].body as FormData;
    expect(form.getAll('medias')).toHaveLength(1);
    expect(form.get('isPrivate')).toBe('true');
  });
});

// ------------------------------------------------------------------------------------------ recording

class FakeRecorder {
  static isTypeSupported = (m: string) => m === 'audio/webm';
  static instances: FakeRecorder[] = [];
  static nextSize = 5000;
  state: 'inactive' | 'recording' = 'inactive';
  mimeType: string;
  ondataavailable: ((e: { data: Blob }) => void) | null = null;
  onstop: ((e: Event) => void) | null = null;
  constructor(_stream: unknown, opts?: { mimeType?: string }) {
    this.mimeType = opts?.mimeType ?? 'audio/webm';
    FakeRecorder.instances.push(this);
  }
  start() {
    this.state = 'recording';
  }
  stop() {
    this.state = 'inactive';
    this.ondataavailable?.({ data: new Blob([new Uint8Array(FakeRecorder.nextSize)], { type: this.mimeType }) });
    this.onstop?.(new Event('stop'));
  }
}

describe('MessageInput: voice recording', () => {
  const trackStop = jest.fn();
  beforeEach(() => {
    FakeRecorder.instances = [];
    trackStop.mockClear();
    (globalThis as { MediaRecorder?: unknown }).MediaRecorder = FakeRecorder;
    Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: { getUserMedia: jest.fn(async () => ({ getTracks: () => [{ stop: trackStop }] })) } });
  });

  test('idle -> recording with a mm:ss timer; the text box is replaced while recording', async () => {
    jest.useFakeTimers();
    setup();
    await act(async () => {
      fireEvent.click(screen.getByTestId('record-button'));
    });
    expect(screen.getByTestId('recording').textContent).toBe('00:00');
    expect(screen.queryByTestId('message-text')).toBeNull();
    act(() => {
      jest.advanceTimersByTime(65_000);
    });
    expect(screen.getByTestId('recording').textContent).toBe('01:05');
    fireEvent.click(screen.getByRole('button', { name: 'Cancelar gravação' }));
    expect(screen.queryByTestId('recording')).toBeNull();
    expect(trackStop).toHaveBeenCalled();
    expect(textBox()).toBeTruthy();
  });

  test(`a recording under ${MIN_RECORDING_BYTES} bytes is discarded with a notice`, async () => {
    FakeRecorder.nextSize = MIN_RECORDING_BYTES - 1;
    setup();
    await act(async () => {
      fireEvent.click(screen.getByTestId('record-button'));
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Enviar áudio' }));
    });
    await screen.findByText('Áudio muito curto: a gravação foi descartada.');
    expect(posts()).toHaveLength(0);
    expect(trackStop).toHaveBeenCalled();
    expect(screen.queryByTestId('recording')).toBeNull();
  });

  test('a long enough recording is sent as an audio file (multipart)', async () => {
    FakeRecorder.nextSize = MIN_RECORDING_BYTES + 500;
    setup();
    await act(async () => {
      fireEvent.click(screen.getByTestId('record-button'));
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Enviar áudio' }));
    });
    await waitFor(() => expect(posts()).toHaveLength(1));
    const [file] = (posts()[0].body as FormData).getAll('medias') as File[];
    expect(file.name).toMatch(/^audio-\d+\.webm$/);
    expect(file.type).toBe('audio/webm');
    expect(file.size).toBe(MIN_RECORDING_BYTES + 500);
    // Marked as a voice note: the server converts it to what the channel plays as one.
    expect((posts()[0].body as FormData).get('voice')).toBe('true');
  });

  test('a missing microphone shows the browser error', async () => {
    Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: { getUserMedia: jest.fn(async () => Promise.reject(new Error('Requested device not found'))) } });
    setup();
    await act(async () => {
      fireEvent.click(screen.getByTestId('record-button'));
    });
    await screen.findByText('Requested device not found');
    expect(screen.queryByTestId('recording')).toBeNull();
  });
});

describe('MessageInput: send contact', () => {
  test('searches contacts from 3 characters and sends a vCard {name, number}', async () => {
    calls = mockFetch((call) => {
      if (call.url.startsWith(`${API}/contacts?`)) return answer(200, { contacts: [{ id: 31, name: 'João Silva', number: '5511988887777' }], hasMore: false });
      if (call.method === 'POST') return answer(200, sent({ mediaType: 'contactMessage' }));
      return answer(404);
    });
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'Enviar contato' }));
    const search = await screen.findByTestId('contact-search');
    fireEvent.change(search, { target: { value: 'jo' } });
    await new Promise((r) => setTimeout(r, 600));
    expect(calls.filter((c) => c.url.includes('/contacts?'))).toHaveLength(0);
    fireEvent.change(search, { target: { value: 'João' } });
    const option = await screen.findByTestId('contact-option', {}, { timeout: 2000 });
    expect(calls.find((c) => c.url.includes('/contacts?'))!.url).toBe(`${API}/contacts?searchParam=jo%C3%A3o&pageNumber=1`);
    fireEvent.click(option);
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(posts()[0].body).toMatchObject({ vCard: { name: 'João Silva', number: '5511988887777' } });
  });
});

describe('MessageInput: emoji, paste, drop, camera (issue 20 item 6)', () => {
  beforeAll(() => {
    Object.assign(URL, { createObjectURL: jest.fn(() => 'blob:preview'), revokeObjectURL: jest.fn() });
  });

  test('the emoji picker inserts at the caret', async () => {
    setup();
    fireEvent.change(textBox(), { target: { value: 'Olá mundo' } });
    textBox().setSelectionRange(3, 3);
    fireEvent.click(screen.getByTestId('emoji-button'));
    fireEvent.click(await screen.findByText('grinning'));
    expect(textBox().value).toBe('Olá😀 mundo');
  });

  test('a pasted image becomes an attachment with a preview; pasted text is typed as usual', async () => {
    setup();
    const png = new File([new Uint8Array(2048)], 'print.png', { type: 'image/png' });
    fireEvent.paste(textBox(), { clipboardData: { files: [png], types: ['Files'], getData: () => '' } });
    expect(await screen.findByTestId('attachment-preview')).toHaveProperty('src', 'blob:preview');
    expect(screen.getByTestId('attachment').textContent).toContain('print.png');
    fireEvent.click(screen.getByTestId('send-button'));
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(((posts()[0].body as FormData).getAll('medias') as File[]).map((f) => f.name)).toEqual(['print.png']);
  });

  test('dropped files are attached (the drop zone shows while dragging); not on a closed ticket', async () => {
    const view = setup();
    const wrap = screen.getByTestId('message-input');
    const pdf = new File(['%PDF-1.4'], 'contrato.pdf', { type: 'application/pdf' });
    fireEvent.dragOver(wrap, { dataTransfer: { types: ['Files'], files: [pdf] } });
    expect(screen.getByTestId('drop-zone')).toBeTruthy();
    fireEvent.drop(wrap, { dataTransfer: { types: ['Files'], files: [pdf] } });
    expect(screen.queryByTestId('drop-zone')).toBeNull();
    expect(screen.getByTestId('attachment').textContent).toContain('contrato.pdf');
    expect(screen.queryByTestId('attachment-preview')).toBeNull();
    view.unmount();
    setup({ status: 'closed' });
    fireEvent.drop(screen.getByTestId('message-input'), { dataTransfer: { types: ['Files'], files: [pdf] } });
    expect(screen.queryByTestId('attachment')).toBeNull();
  });

  test('the camera button shows only where the browser has a camera', () => {
    Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: undefined });
    const view = setup();
    expect(screen.queryByTestId('camera-button')).toBeNull();
    view.unmount();
    Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: { getUserMedia: jest.fn() } });
    setup();
    expect(screen.getByTestId('camera-button')).toBeTruthy();
  });
});
