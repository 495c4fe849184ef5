import {
  ackLevel,
  buildRows,
  canDeleteMessage,
  canEditMessage,
  contactCardsOf,
  cut,
  daySeparatorLabel,
  formatDay,
  formatTimer,
  locationOf,
  matchQuickReplies,
  needsDaySeparator,
  needsTicketBanner,
  nextPlaybackRate,
  parseVCards,
  quickReplyLabel,
  ticketBannerLabel,
} from '../src/conversation/format';
import { belongsToConversation, initialMessagesState, mergeMessage, messagesReducer } from '../src/conversation/messages-state';
import { conversationResources } from '../src/conversation/i18n';
import { mediaFormData } from '../src/conversation/api';
import type { Message } from '../src/conversation/types';

let seq = 1;
function msg(over: Partial<Message> = {}): Message {
  const id = over.id ?? seq++;
  return {
    id,
    ticketId: 1,
    ack: 0,
    fromMe: false,
    body: `m${id}`,
    mediaUrl: null,
    mediaType: 'conversation',
    isDeleted: false,
    isEdited: false,
    isForwarded: false,
    isPrivate: false,
    createdAt: new Date(2026, 4, 10, 10, 0).toISOString(),
    ...over,
  };
}
const at = (y: number, mo: number, d: number, h = 12, mi = 0) => new Date(y, mo - 1, d, h, mi).toISOString();

describe('day separators', () => {
  const now = new Date(2026, 4, 10, 15, 30);
  test('the first message and every change of local day get a separator', () => {
    expect(needsDaySeparator(undefined, { createdAt: at(2026, 5, 9) })).toBe(true);
    expect(needsDaySeparator({ createdAt: at(2026, 5, 9, 8) }, { createdAt: at(2026, 5, 9, 23, 59) })).toBe(false);
    expect(needsDaySeparator({ createdAt: at(2026, 5, 9, 23, 59) }, { createdAt: at(2026, 5, 10, 0, 1) })).toBe(true);
    expect(needsDaySeparator({ createdAt: at(2025, 5, 10) }, { createdAt: at(2026, 5, 10) })).toBe(true);
  });

  test("'HOJE' for today, dd/MM/yyyy otherwise", () => {
    expect(daySeparatorLabel(at(2026, 5, 10, 0, 1), 'HOJE', now)).toBe('HOJE');
    expect(daySeparatorLabel(at(2026, 5, 9, 23, 59), 'HOJE', now)).toBe('09/05/2026');
    expect(daySeparatorLabel(at(2025, 12, 31), 'HOJE', now)).toBe('31/12/2025');
    expect(formatDay('not a date')).toBe('');
  });
});

describe('ticket-change banners', () => {
  test('a banner goes between consecutive messages of different tickets', () => {
    expect(needsTicketBanner(undefined, { ticketId: 1 })).toBe(false);
    expect(needsTicketBanner({ ticketId: 1 }, { ticketId: 1 })).toBe(false);
    expect(needsTicketBanner({ ticketId: 1 }, { ticketId: 2 })).toBe(true);
  });

  test("'#ticketId - department' or the no-department text", () => {
    expect(ticketBannerLabel({ ticketId: 12, ticket: { id: 12, queueId: 3, queue: { id: 3, name: 'Vendas', color: '#f00' } } }, 'Sem departamento')).toBe('#12 - Vendas');
    expect(ticketBannerLabel({ ticketId: 13, ticket: { id: 13, queueId: null, queue: null } }, 'Sem departamento')).toBe('#13 - Sem departamento');
  });

  test('buildRows interleaves day separators, banners and messages', () => {
    const rows = buildRows([
      msg({ id: 1, ticketId: 1, createdAt: at(2026, 5, 8, 9) }),
      msg({ id: 2, ticketId: 1, createdAt: at(2026, 5, 8, 10) }),
      msg({ id: 3, ticketId: 2, createdAt: at(2026, 5, 8, 11) }),
      msg({ id: 4, ticketId: 2, createdAt: at(2026, 5, 9, 9) }),
    ]);
    expect(rows.map((r) => (r.kind === 'message' ? `m${r.message.id}` : r.kind === 'ticket' ? `t${r.message.ticketId}` : 'day'))).toEqual(['day', 'm1', 'm2', 't2', 'm3', 'day', 'm4']);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });
});

describe('acks, cuts, quick replies, timers', () => {
  test('ack levels', () => {
    expect([0, 1, 2, 3, 4, undefined, null].map((a) => ackLevel(a as number))).toEqual(['pending', 'sent', 'delivered', 'read', 'read', 'pending', 'pending']);
  });

  test("cut at N characters + '...'", () => {
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('abcd', 3)).toBe('abc...');
    expect(quickReplyLabel({ shortcode: 'oi', message: 'a'.repeat(40) })).toBe(`oi - ${'a'.repeat(30)}...`);
    expect(quickReplyLabel({ shortcode: 'oi', message: 'Olá!' })).toBe('oi - Olá!');
  });

  test("quick replies match by shortcode after '/', prefix matches first", () => {
    const list = [{ shortcode: 'xboleto' }, { shortcode: 'bomdia' }, { shortcode: 'tchau' }, { shortcode: 'BOLETO' }];
    expect(matchQuickReplies('bo', list)).toEqual([]);
    expect(matchQuickReplies('/bo', list).map((q) => q.shortcode)).toEqual(['bomdia', 'BOLETO', 'xboleto']);
    expect(matchQuickReplies('/', list)).toHaveLength(4);
    expect(matchQuickReplies('/zzz', list)).toEqual([]);
  });

  test('mm:ss and playback rates', () => {
    expect(formatTimer(0)).toBe('00:00');
    expect(formatTimer(65)).toBe('01:05');
    expect(formatTimer(3600)).toBe('60:00');
    expect([0.5, 1, 1.5, 2, 3].map(nextPlaybackRate)).toEqual([1, 1.5, 2, 0.5, 1]);
  });

  test('edit within 15 minutes of own text; delete own (admins any)', () => {
    const now = Date.now();
    const own = msg({ fromMe: true, userId: 7, createdAt: new Date(now - 14 * 60_000).toISOString() });
    expect(canEditMessage(own, 7, now)).toBe(true);
    expect(canEditMessage({ ...own, createdAt: new Date(now - 15 * 60_000).toISOString() }, 7, now)).toBe(false);
    expect(canEditMessage({ ...own, mediaType: 'image', mediaUrl: 'x' }, 7, now)).toBe(false);
    expect(canEditMessage({ ...own, isDeleted: true }, 7, now)).toBe(false);
    expect(canEditMessage(own, 8, now)).toBe(false);
    expect(canDeleteMessage(own, 8, false)).toBe(false);
    expect(canDeleteMessage(own, 8, true)).toBe(true);
    expect(canDeleteMessage({ ...own, fromMe: false }, 7, true)).toBe(false);
  });
});

describe('vCards and locations', () => {
  test('several vCards, folded lines, waid or digits', () => {
    const text = [
      'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana\r\n Maria\r\nTEL;type=CELL:+55 (11) 91234-5678\r\nEND:VCARD',
      'BEGIN:VCARD\nVERSION:3.0\nN:Souza;Bruno;;;\nitem1.TEL;waid=5521999990000:+55 21 99999-0000\nEND:VCARD',
    ].join('\n');
    expect(parseVCards(text)).toEqual([
      { name: 'AnaMaria', number: '5511912345678' },
      { name: 'Bruno Souza', number: '5521999990000' },
    ]);
    expect(parseVCards('just text')).toEqual([]);
    expect(contactCardsOf({ body: 'Contato', dataJson: JSON.stringify({ vcards: ['BEGIN:VCARD\nFN:Caio\nTEL:123456\nEND:VCARD'] }) })).toEqual([{ name: 'Caio', number: '123456' }]);
  });

  test('location from dataJson (Baileys or normalised) or from the body', () => {
    expect(locationOf({ body: '', dataJson: JSON.stringify({ message: { locationMessage: { degreesLatitude: -22.9, degreesLongitude: -43.2, name: 'Rio' } } }) })).toEqual({ latitude: -22.9, longitude: -43.2, name: 'Rio' });
    expect(locationOf({ body: '', dataJson: JSON.stringify({ location: { latitude: 1.5, longitude: 2.25 } }) })).toEqual({ latitude: 1.5, longitude: 2.25 });
    expect(locationOf({ body: 'https://maps.google.com/maps?q=-23.5%2C-46.6&z=17', dataJson: null })).toEqual({ latitude: -23.5, longitude: -46.6 });
    expect(locationOf({ body: 'sem coordenadas 100%', dataJson: '{bad json' })).toBeUndefined();
    expect(locationOf({ body: '', dataJson: JSON.stringify({ latitude: 200, longitude: 10 }) })).toBeUndefined();
  });
});

describe('message list reducer', () => {
  test('pages merge ascending and unique; live create/update/delete', () => {
    let s = messagesReducer(initialMessagesState, { type: 'page', page: 1, hasMore: true, messages: [msg({ id: 30, createdAt: at(2026, 5, 2) }), msg({ id: 31, createdAt: at(2026, 5, 3) })] });
    s = messagesReducer(s, { type: 'loading' });
    expect(s.loading).toBe(true);
    s = messagesReducer(s, { type: 'page', page: 2, hasMore: false, messages: [msg({ id: 10, createdAt: at(2026, 5, 1) }), msg({ id: 30, createdAt: at(2026, 5, 2) })] });
    expect(s.messages.map((m) => m.id)).toEqual([10, 30, 31]);
    expect(s).toMatchObject({ page: 2, hasMore: false, loading: false });
    s = messagesReducer(s, { type: 'upsert', message: msg({ id: 40, createdAt: at(2026, 5, 4) }) });
    s = messagesReducer(s, { type: 'upsert', message: msg({ id: 40, createdAt: at(2026, 5, 4) }) });
    expect(s.messages.map((m) => m.id)).toEqual([10, 30, 31, 40]);
    s = messagesReducer(s, { type: 'update', message: msg({ id: 31, createdAt: at(2026, 5, 3), isEdited: true, body: 'novo' }) });
    expect(s.messages[2]).toMatchObject({ id: 31, isEdited: true, body: 'novo' });
    const same = messagesReducer(s, { type: 'update', message: msg({ id: 999 }) });
    expect(same).toBe(s);
    // A refresh of page 1 (after a reconnect) keeps the page reached and that no older page remains.
    s = messagesReducer(s, { type: 'page', page: 1, hasMore: true, messages: [msg({ id: 31, createdAt: at(2026, 5, 3) })] });
    expect(s).toMatchObject({ page: 2, hasMore: false });
    s = messagesReducer(s, { type: 'remove', id: 30 });
    expect(s.messages.map((m) => m.id)).toEqual([10, 31, 40]);
  });

  test('an ack never goes back; the newer version wins', () => {
    const live = msg({ id: 5, ack: 1, updatedAt: '2026-05-10T10:00:02.000Z', wid: 'W1' });
    const late = msg({ id: 5, ack: 0, updatedAt: '2026-05-10T10:00:00.000Z', wid: null });
    expect(mergeMessage(live, late)).toMatchObject({ ack: 1, wid: 'W1' });
    const newer = msg({ id: 5, ack: 3, updatedAt: '2026-05-10T10:00:09.000Z', wid: 'W1' });
    expect(mergeMessage(live, newer)).toMatchObject({ ack: 3 });
  });

  test('belongsToConversation: same ticket, or same contact + connection + group flag', () => {
    const t = { id: 1, contactId: 9, whatsappId: 2, isGroup: false };
    expect(belongsToConversation(t, { ticketId: 1 })).toBe(true);
    expect(belongsToConversation(t, { ticketId: 3 })).toBe(false);
    expect(belongsToConversation(t, { ticketId: 3 }, { id: 3, contactId: 9, whatsappId: 2, isGroup: false })).toBe(true);
    expect(belongsToConversation(t, { ticketId: 3 }, { id: 3, contactId: 9, whatsappId: 4, isGroup: false })).toBe(false);
    expect(belongsToConversation(t, { ticketId: 3 }, { id: 3, contactId: 8, whatsappId: 2, isGroup: false })).toBe(false);
    expect(belongsToConversation(t, { ticketId: 3 }, { id: 4, contactId: 9, whatsappId: 2, isGroup: false })).toBe(false);
  });
});

describe('multipart body', () => {
  test('every file in medias, the caption on the first, flags as text fields', () => {
    const form = mediaFormData([new Blob(['a']), new Blob(['b'])], { caption: 'oi', isPrivate: true, signMessage: false, quotedMsgId: 77 });
    expect(form.getAll('medias')).toHaveLength(2);
    expect(form.getAll('body')).toEqual(['oi', '']);
    expect(form.get('isPrivate')).toBe('true');
    expect(form.get('signMessage')).toBe('false');
    expect(form.get('quotedMsg')).toBe('77');
  });
});

describe('translations', () => {
  const keys = (o: object, prefix = ''): string[] =>
    Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
  test('en, es and tr have exactly the keys of pt-BR, none empty', () => {
    const base = keys(conversationResources['pt-BR']).sort();
    expect(base.length).toBeGreaterThan(150);
    for (const lng of ['en', 'es', 'tr'] as const) {
      expect(keys(conversationResources[lng]).sort()).toEqual(base);
    }
    for (const lng of ['pt-BR', 'en', 'es', 'tr'] as const) {
      const flat = keys(conversationResources[lng]);
      for (const k of flat) {
        const v = k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], conversationResources[lng]);
        expect(typeof v === 'string' && v.length > 0).toBe(true);
      }
    }
  });

  test('the spec texts', () => {
    const pt = conversationResources['pt-BR'].conversation;
    expect(pt.today).toBe('HOJE');
    expect(pt.typing).toBe('Digitando...');
    expect(pt.recording).toBe('Gravando...');
    expect(pt.contact.blocked).toBe('Contato bloqueado');
    expect(pt.contact.unblocked).toBe('Contato desbloqueado');
    expect(pt.notes.added).toBe('Observação adicionada com sucesso!');
    expect(pt.notes.deleted).toBe('Observação excluída com sucesso!');
    expect(pt.notes.deleteTitle).toBe('Excluir Registro');
    expect(pt.notes.deleteMessage).toBe('Deseja realmente excluir este registro?');
    expect(conversationResources.en.conversation.delete.success).toBe('Ticket deleted sucessfully.');
  });
});
