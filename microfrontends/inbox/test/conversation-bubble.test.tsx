/** @jest-environment jsdom */
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { message, renderWithProviders } from './conversation-helpers';
import { groupReactions, MessageBubble } from '../src/conversation/MessageBubble';
import { PLAYBACK_RATE_STORAGE_KEY } from '../src/conversation/prefs';
import type { Message } from '../src/conversation/types';

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});

function renderBubble(m: Message, props: Partial<Parameters<typeof MessageBubble>[0]> = {}) {
  return renderWithProviders(<MessageBubble message={m} userId={7} {...props} />);
}

describe('MessageBubble: acks', () => {
  test.each([
    [0, 'pending', 'Pendente'],
    [1, 'sent', 'Enviada'],
    [2, 'delivered', 'Entregue'],
    [3, 'read', 'Lida'],
    [4, 'played', 'Reproduzida'],
  ])('ack %i shows the %s icon', (ack, level, label) => {
    renderBubble(message({ fromMe: true, ack, userId: 7 }));
    const icon = screen.getByTestId('ack');
    expect(icon.getAttribute('data-ack')).toBe(level);
    expect(icon.getAttribute('aria-label')).toBe(label);
  });

  test('read acks are coloured, delivered ones are not', () => {
    renderBubble(message({ id: 1, fromMe: true, ack: 3 }));
    const read = getComputedStyle(screen.getByTestId('ack')).color;
    cleanup();
    renderBubble(message({ id: 2, fromMe: true, ack: 2 }));
    const delivered = getComputedStyle(screen.getByTestId('ack')).color;
    expect(read).not.toBe(delivered);
    expect(read).toBe('rgb(52, 183, 241)');
  });

  test('inbound messages and private notes have no ack icon', () => {
    renderBubble(message({ fromMe: false, ack: 3 }));
    expect(screen.queryByTestId('ack')).toBeNull();
    cleanup();
    renderBubble(message({ fromMe: true, isPrivate: true, ack: 2 }));
    expect(screen.queryByTestId('ack')).toBeNull();
    expect(screen.getByTestId('private-marker').textContent).toBe('Nota privada');
  });
});

describe('MessageBubble: markers', () => {
  test('deleted, edited and forwarded markers appear only when flagged', () => {
    renderBubble(message({ body: 'texto original' }));
    expect(screen.queryByTestId('deleted-marker')).toBeNull();
    expect(screen.queryByTestId('edited-marker')).toBeNull();
    expect(screen.queryByTestId('forwarded-marker')).toBeNull();
    expect(screen.queryByTestId('private-marker')).toBeNull();
    cleanup();
    renderBubble(message({ body: 'texto original', isDeleted: true, isEdited: true, isForwarded: true }));
    expect(screen.getByTestId('deleted-marker').textContent).toBe('Esta mensagem foi apagada');
    expect(screen.getByTestId('edited-marker').textContent).toBe('Editada');
    expect(screen.getByTestId('forwarded-marker').textContent).toBe('Encaminhada');
    expect(screen.getByText('texto original')).toBeTruthy();
  });

  test('*bold* text is rendered bold', () => {
    renderBubble(message({ body: '*Ana:*\nOlá' }));
    expect(screen.getByText('Ana:').tagName).toBe('STRONG');
  });

  test('a failed send shows an alert with a retry button', () => {
    const onRetry = jest.fn();
    const m = message({ fromMe: true, ack: 0, sendError: 'ERR_SENDING_WAPP_MSG' });
    renderBubble(m, { onRetry });
    const alert = screen.getByTestId('send-error');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(alert.textContent).toContain('Falha no envio.');
    fireEvent.click(within(alert).getByRole('button', { name: 'Reenviar' }));
    expect(onRetry).toHaveBeenCalledWith(m);
  });
});

describe('MessageBubble: quoted messages and reactions', () => {
  test('the quoted block names the author and a click asks to scroll to it', () => {
    const onQuoteClick = jest.fn();
    renderBubble(message({ quotedMsg: { id: 55, body: 'qual o prazo?', fromMe: false, mediaType: 'conversation', mediaUrl: null, contact: { id: 9, name: 'Maria Cliente' } } }), { onQuoteClick });
    const quoted = screen.getByTestId('quoted');
    expect(quoted.textContent).toBe('Maria Clientequal o prazo?');
    fireEvent.click(quoted);
    expect(onQuoteClick).toHaveBeenCalledWith(55);
  });

  test('a quote of our own media message says "Você" and the media kind', () => {
    renderBubble(message({ quotedMsg: { id: 56, body: '', fromMe: true, mediaType: 'image', mediaUrl: 'http://x/a.png', contact: null } }));
    expect(screen.getByTestId('quoted').textContent).toBe('VocêImagem');
  });

  test('reactions are grouped under the bubble with counts', () => {
    renderBubble(
      message({
        reactions: [
          { emoji: '👍', fromMe: false, senderId: 'a' },
          { emoji: '❤️', fromMe: true },
          { emoji: '👍', fromMe: false, senderId: 'b' },
        ],
      }),
    );
    expect(screen.getAllByTestId('reaction').map((r) => r.textContent)).toEqual(['👍2', '❤️']);
    expect(groupReactions(undefined)).toEqual([]);
  });

  test('no reactions: no reaction row', () => {
    renderBubble(message({ reactions: [] }));
    expect(screen.queryByTestId('reactions')).toBeNull();
  });
});

describe('MessageBubble: media', () => {
  test('an image enlarges on click', () => {
    renderBubble(message({ mediaType: 'image', mediaUrl: 'http://api.test/public/a.jpg', body: 'legenda', mediaName: 'a.jpg' }));
    expect(screen.getByText('legenda')).toBeTruthy();
    expect(screen.queryByTestId('image-full')).toBeNull();
    fireEvent.click(screen.getByTestId('image-thumb'));
    expect(screen.getByTestId('image-full').getAttribute('src')).toBe('http://api.test/public/a.jpg');
  });

  test('the audio playback rate cycles 0.5/1/1.5/2 and is remembered', () => {
    window.localStorage.setItem(PLAYBACK_RATE_STORAGE_KEY, '1.5');
    renderBubble(message({ mediaType: 'audio', mediaUrl: 'http://api.test/public/a.ogg' }));
    const button = screen.getByTestId('playback-rate');
    const audio = screen.getByTestId('audio') as HTMLAudioElement;
    expect(button.textContent).toBe('1.5x');
    expect(audio.playbackRate).toBe(1.5);
    fireEvent.click(button);
    expect(button.textContent).toBe('2x');
    expect(audio.playbackRate).toBe(2);
    expect(window.localStorage.getItem(PLAYBACK_RATE_STORAGE_KEY)).toBe('2');
    fireEvent.click(button);
    expect(button.textContent).toBe('0.5x');
    fireEvent.click(button);
    expect(button.textContent).toBe('1x');
    expect(window.localStorage.getItem(PLAYBACK_RATE_STORAGE_KEY)).toBe('1');
  });

  test('video and file download', () => {
    renderBubble(message({ mediaType: 'video', mediaUrl: 'http://api.test/public/v.mp4' }));
    expect(screen.getByTestId('video').getAttribute('src')).toBe('http://api.test/public/v.mp4');
    cleanup();
    renderBubble(message({ mediaType: 'application', mediaUrl: 'http://api.test/public/c.pdf', mediaName: 'contrato.pdf', body: 'contrato.pdf' }));
    const link = screen.getByTestId('file-download');
    expect(link.getAttribute('href')).toBe('http://api.test/public/c.pdf');
    expect(link.textContent).toBe('contrato.pdf');
  });

  test('a location card from dataJson links to a map', () => {
    renderBubble(message({ mediaType: 'locationMessage', body: '', dataJson: JSON.stringify({ location: { latitude: -23.55052, longitude: -46.633308, name: 'Praça da Sé' } }) }));
    const card = screen.getByTestId('location-card');
    expect(card.textContent).toContain('Praça da Sé');
    expect(card.textContent).toContain('-23.550520, -46.633308');
    expect(within(card).getByRole('link', { name: 'Abrir no mapa' }).getAttribute('href')).toBe('https://maps.google.com/maps?q=-23.55052,-46.633308&z=17');
  });

  test('a contact card parses the vCard and its Chat button hands over name and number', () => {
    const onChatContact = jest.fn();
    const vcard = ['BEGIN:VCARD', 'VERSION:3.0', 'N:;João Silva;;;', 'FN:João Silva', 'item1.TEL;waid=5511988887777:+55 11 98888-7777', 'END:VCARD'].join('\n');
    renderBubble(message({ mediaType: 'contactMessage', body: vcard }), { onChatContact });
    const card = screen.getByTestId('contact-card');
    expect(card.textContent).toContain('João Silva');
    expect(card.textContent).toContain('5511988887777');
    fireEvent.click(within(card).getByRole('button', { name: 'Conversar' }));
    expect(onChatContact).toHaveBeenCalledWith({ name: 'João Silva', number: '5511988887777' });
  });

  test('a missed call entry', () => {
    renderBubble(message({ mediaType: 'call_log', body: '', createdAt: new Date(2026, 0, 2, 9, 5).toISOString() }));
    expect(screen.getByTestId('missed-call').textContent).toBe('Chamada perdida às 09:05');
  });
});

describe('MessageBubble: menu', () => {
  test('reply, forward, edit and delete for an own recent text message', () => {
    const onReply = jest.fn();
    const onEdit = jest.fn();
    const m = message({ fromMe: true, userId: 7, ack: 1 });
    renderBubble(m, { onReply, onForward: jest.fn(), onEdit, onDelete: jest.fn() });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['Responder', 'Encaminhar', 'Editar', 'Apagar']);
    fireEvent.click(screen.getByRole('menuitem', { name: 'Responder' }));
    expect(onReply).toHaveBeenCalledWith(m);
    expect(screen.queryByRole('menu')).toBeNull();
  });

  test('no edit after 15 minutes, no edit or delete of inbound messages', () => {
    const old = message({ fromMe: true, userId: 7, createdAt: new Date(Date.now() - 16 * 60_000).toISOString() });
    renderBubble(old, { onReply: jest.fn(), onForward: jest.fn(), onEdit: jest.fn(), onDelete: jest.fn() });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['Responder', 'Encaminhar', 'Apagar']);
    cleanup();
    renderBubble(message({ fromMe: false }), { onReply: jest.fn(), onForward: jest.fn(), onEdit: jest.fn(), onDelete: jest.fn() });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['Responder', 'Encaminhar']);
  });

  test('another user’s message is not deletable by a plain user, but is by an admin', () => {
    const m = message({ fromMe: true, userId: 99, createdAt: new Date(Date.now() - 60 * 60_000).toISOString() });
    renderBubble(m, { onReply: jest.fn(), onDelete: jest.fn() });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['Responder']);
    cleanup();
    renderBubble(m, { onReply: jest.fn(), onDelete: jest.fn(), admin: true });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['Responder', 'Apagar']);
  });

  test('selection mode shows a checkbox instead of the menu', () => {
    const onToggleSelect = jest.fn();
    const m = message();
    renderBubble(m, { selectable: true, selected: true, onToggleSelect, onReply: jest.fn() });
    expect(screen.queryByTestId('message-menu')).toBeNull();
    const box = screen.getByTestId('message-select') as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    expect(onToggleSelect).toHaveBeenCalledWith(m);
  });
});

describe('MessageBubble: reactions of ours, unsupported kinds, erased messages (issue 20 items 6, 8, 9)', () => {
  test('the menu offers the channel\'s reactions; choosing one reacts, choosing ours again removes it', () => {
    const onReact = jest.fn();
    const m = message({ id: 41, fromMe: false, wid: 'WID41', reactions: [{ emoji: '👍', fromMe: true }] });
    renderBubble(m, { onReact, reactionChoices: ['👍', '❤️'] });
    fireEvent.click(screen.getByTestId('message-menu'));
    const choices = within(screen.getByTestId('reaction-choices')).getAllByTestId('reaction-choice');
    expect(choices.map((c) => c.textContent)).toEqual(['👍', '❤️']);
    expect(choices[0].getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(choices[1]);
    expect(onReact).toHaveBeenLastCalledWith(m, '❤️');
    fireEvent.click(screen.getByTestId('message-menu'));
    fireEvent.click(within(screen.getByTestId('reaction-choices')).getAllByTestId('reaction-choice')[0]);
    expect(onReact).toHaveBeenLastCalledWith(m, '');
  });

  test('no reactions for channels without them, private notes or messages the channel does not know', () => {
    renderBubble(message({ fromMe: false, wid: 'W1' }), { onReact: jest.fn(), reactionChoices: [] });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.queryByTestId('reaction-choices')).toBeNull();
    cleanup();
    renderBubble(message({ fromMe: true, userId: 7, isPrivate: true, wid: 'PVT1' }), { onReact: jest.fn(), reactionChoices: ['👍'] });
    fireEvent.click(screen.getByTestId('message-menu'));
    expect(screen.queryByTestId('reaction-choices')).toBeNull();
  });

  test('an unsupported inbound type shows a labelled placeholder, not an empty bubble', () => {
    renderBubble(message({ fromMe: false, body: '', mediaType: 'edit' }));
    expect(screen.getByTestId('unsupported-message').textContent).toBe('Tipo de mensagem não suportado: edit');
  });

  test('a message the customer deleted: readable (struck through) unless the company erases it (empty body)', () => {
    renderBubble(message({ fromMe: false, body: 'meu CPF', isDeleted: true }));
    expect(screen.getByText('meu CPF')).toBeTruthy();
    expect(screen.queryByTestId('erased-message')).toBeNull();
    cleanup();
    renderBubble(message({ fromMe: false, body: '', isDeleted: true }));
    expect(screen.getByTestId('erased-message').textContent).toBe('Mensagem apagada pelo contato');
  });

  test('WhatsApp formatting is rendered in bubbles: a signed reply shows the name in bold without asterisks', () => {
    renderBubble(message({ fromMe: true, userId: 7, body: '*Ana:*\nBom _dia_ ~ontem~' }));
    const bubble = screen.getByTestId('bubble');
    expect(bubble.querySelector('strong')?.textContent).toBe('Ana:');
    expect(bubble.querySelector('em')?.textContent).toBe('dia');
    expect(bubble.querySelector('del')?.textContent).toBe('ontem');
    expect(bubble.textContent).not.toContain('*');
  });
});
