/** @jest-environment jsdom */
import { useState } from 'react';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { answer, API, message, mockFetch, renderWithProviders } from './conversation-helpers';
import { MessageBubble } from '../src/conversation/MessageBubble';
import { channelCan, deleteIsLocalOnly, deliveryStateOf, editBlockedByChannel } from '../src/conversation/format';
import { initialMessagesState, messagesReducer } from '../src/conversation/messages-state';
import { resendMessage } from '../src/conversation/api';
import type { Message } from '../src/conversation/types';

afterEach(() => cleanup());

const renderBubble = (m: Message, props: Partial<Parameters<typeof MessageBubble>[0]> = {}) => renderWithProviders(<MessageBubble message={m} userId={7} {...props} />);
const FAILED = { fromMe: true, userId: 7, ack: 0, sendError: 'ERR_SENDING_WAPP_MSG', sendErrorDetail: 'Message undeliverable (131026)', deliveryState: 'failed' as const };

describe('delivery state on the bubble', () => {
  test.each([
    ['pending', 0, 'Pendente'],
    ['sent', 1, 'Enviada'],
    ['delivered', 2, 'Entregue'],
    ['read', 3, 'Lida'],
    ['played', 4, 'Reproduzida'],
  ] as const)('%s (ack %i) shows its icon and label', (state, ack, label) => {
    renderBubble(message({ fromMe: true, ack, deliveryState: state }));
    const icon = screen.getByTestId('ack');
    expect([icon.getAttribute('data-ack'), icon.getAttribute('aria-label')]).toEqual([state, label]);
    expect(screen.getByTestId('message').getAttribute('data-delivery')).toBe(state);
    expect(screen.queryByTestId('send-error')).toBeNull();
  });

  test('an older server without deliveryState: derived from ack and sendError', () => {
    expect(deliveryStateOf({ ack: 2 })).toBe('delivered');
    expect(deliveryStateOf({ ack: 1, sendError: 'ERR_SENDING_WAPP_MSG' })).toBe('failed');
    expect(deliveryStateOf({ ack: 9 })).toBe('played');
    renderBubble(message({ fromMe: true, ack: 0, sendError: 'ERR_SENDING_WAPP_MSG' }));
    expect(screen.getByTestId('ack').getAttribute('data-ack')).toBe('failed');
  });

  test('failed: a red alert with the reason on hover and on tap; Reenviar calls the resend and waits', async () => {
    let finish!: () => void;
    const onRetry = jest.fn(() => new Promise<void>((r) => (finish = r)));
    const m = message(FAILED);
    renderBubble(m, { onRetry });
    const icon = screen.getByTestId('ack');
    expect(icon.getAttribute('data-ack')).toBe('failed');
    expect(icon.getAttribute('title')).toBe('Falhou: Message undeliverable (131026)');
    expect(getComputedStyle(icon).color).not.toBe('rgb(52, 183, 241)');
    const alert = screen.getByTestId('send-error');
    expect(alert.getAttribute('title')).toBe('Motivo: Message undeliverable (131026)');
    expect(screen.queryByTestId('send-error-reason')).toBeNull();
    fireEvent.click(within(alert).getByTestId('send-error-toggle'));
    expect(screen.getByTestId('send-error-reason').textContent).toBe('Motivo: Message undeliverable (131026)');

    fireEvent.click(within(alert).getByRole('button', { name: 'Reenviar' }));
    expect(onRetry).toHaveBeenCalledWith(m);
    const busy = within(alert).getByTestId('resend');
    expect([busy.textContent, (busy as HTMLButtonElement).disabled]).toEqual(['Reenviando...', true]);
    fireEvent.click(busy);
    expect(onRetry).toHaveBeenCalledTimes(1);
    await act(async () => finish());
    expect(within(alert).getByTestId('resend').textContent).toBe('Reenviar');
  });

  test('failed without a reason says so; media and other users\' failed sends can be resent too', () => {
    const onRetry = jest.fn();
    renderBubble(message({ ...FAILED, sendErrorDetail: null, userId: 99, mediaType: 'image', mediaUrl: 'http://x/a.png', mediaName: 'a.png', body: '' }), { onRetry });
    expect(screen.getByTestId('send-error').getAttribute('title')).toBe('O provedor não informou o motivo.');
    fireEvent.click(screen.getByRole('button', { name: 'Reenviar' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  test('a live update (socket appMessage) moves the bubble from failed to pending, then delivered', () => {
    const failed = message({ ...FAILED, id: 500 });
    let state = messagesReducer(initialMessagesState, { type: 'page', page: 1, messages: [failed], hasMore: false });
    let push!: (m: Message) => void;
    function Live() {
      const [m, setM] = useState(state.messages[0]);
      push = (next) => {
        state = messagesReducer(state, { type: 'update', message: next });
        setM(state.messages[0]);
      };
      return <MessageBubble message={m} userId={7} onRetry={jest.fn()} />;
    }
    renderWithProviders(<Live />);
    expect(screen.getByTestId('ack').getAttribute('data-ack')).toBe('failed');
    act(() => push({ ...failed, sendError: null, sendErrorDetail: null, deliveryState: 'pending' }));
    expect(screen.getByTestId('ack').getAttribute('data-ack')).toBe('pending');
    expect(screen.queryByTestId('send-error')).toBeNull();
    act(() => push({ ...failed, sendError: null, sendErrorDetail: null, ack: 2, wid: 'W1', deliveryState: 'delivered' }));
    expect(screen.getByTestId('ack').getAttribute('data-ack')).toBe('delivered');
  });

  test('resendMessage posts to /messages/:id/resend', async () => {
    renderWithProviders(<span />);
    const calls = mockFetch(() => answer(200, message({ id: 42, fromMe: true, deliveryState: 'pending' })));
    const m = await resendMessage(42);
    expect(calls.map((c) => [c.method, c.url])).toEqual([['POST', `${API}/messages/42/resend`]]);
    expect(m.deliveryState).toBe('pending');
  });
});

describe('edit and delete on channels whose provider cannot', () => {
  const sent = () => message({ fromMe: true, userId: 7, ack: 1, wid: 'WAMID.1', body: 'olá' });

  test('helpers: Baileys edits and deletes; the Cloud API, Messenger and Instagram do not; private notes and unsent messages are ours alone', () => {
    expect(['whatsapp', 'whatsappapi', 'facebook', 'instagram'].map((c) => channelCan(c, 'edits'))).toEqual([true, false, false, false]);
    expect(editBlockedByChannel({ isPrivate: false, wid: 'W' }, 'whatsappapi')).toBe(true);
    expect(editBlockedByChannel({ isPrivate: false, wid: null }, 'whatsappapi')).toBe(false);
    expect(editBlockedByChannel({ isPrivate: true, wid: 'PVT1' }, 'instagram')).toBe(false);
    expect(editBlockedByChannel({ isPrivate: false, wid: 'W' }, 'whatsapp')).toBe(false);
    expect(deleteIsLocalOnly({ isPrivate: false, fromMe: true }, 'facebook')).toBe(true);
    expect(deleteIsLocalOnly({ isPrivate: false, fromMe: true }, 'whatsapp')).toBe(false);
  });

  test.each(['whatsappapi', 'facebook', 'instagram'])('%s: "edit" is disabled and says why', async (channel) => {
    const onEdit = jest.fn();
    renderBubble(sent(), { onEdit, onDelete: jest.fn(), channel });
    fireEvent.click(screen.getByTestId('message-menu'));
    const blocked = await screen.findByTestId('edit-blocked');
    expect((blocked as HTMLButtonElement).disabled).toBe(true);
    expect(blocked.getAttribute('title')).toBe('Este canal não permite editar mensagens já enviadas');
    expect(blocked.textContent).toContain('Este canal não permite editar mensagens já enviadas');
    fireEvent.click(blocked);
    expect(onEdit).not.toHaveBeenCalled();
  });

  test('whatsapp (Baileys): "edit" works', async () => {
    const onEdit = jest.fn();
    const m = sent();
    renderBubble(m, { onEdit, channel: 'whatsapp' });
    fireEvent.click(screen.getByTestId('message-menu'));
    await waitFor(() => expect(screen.getByRole('menuitem', { name: 'Editar' })).toBeTruthy());
    expect(screen.queryByTestId('edit-blocked')).toBeNull();
    fireEvent.click(screen.getByRole('menuitem', { name: 'Editar' }));
    expect(onEdit).toHaveBeenCalledWith(m);
  });
});
