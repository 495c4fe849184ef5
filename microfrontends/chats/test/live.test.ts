import type { Chat, ChatMessage } from '../src/api';
import { appendMessage, flattenChats, flattenMessages, messageOf, removeChat, unreadsOf, upsertChat, type ChatPages, type MessagePages } from '../src/live';
import { matchChatsRoute } from '../src/router';
import { initials, messageTime } from '../src/format';

const ME = 7;
const chat = (id: number, title = `c${id}`, unreads = 0, users = [ME, 9]): Chat => ({
  id,
  uuid: `u-${id}`,
  title,
  ownerId: 9,
  users: users.map((u) => ({ userId: u, unreads: u === ME ? unreads : 0 })),
});
const pages = (...lists: Chat[][]): ChatPages => ({ pages: lists.map((records) => ({ records, count: 99, hasMore: true })), pageParams: lists.map((_, i) => i + 1) });
const ids = (d: ChatPages | undefined) => flattenChats(d).map((c) => c.id);
const msg = (id: number): ChatMessage => ({ id, chatId: 1, senderId: 9, message: `m${id}`, createdAt: '2030-01-01T10:00:00Z' });

describe('chat list updates', () => {
  test('a new message moves the chat to the top (from any page); an update keeps its place; unknown chats enter first', () => {
    const data = pages([chat(1), chat(2)], [chat(3)]);
    expect(ids(upsertChat(data, chat(3, 'x', 1), ME, true))).toEqual([3, 1, 2]);
    expect(upsertChat(data, chat(3, 'x', 1), ME, true)!.pages[1].records).toEqual([]);
    expect(ids(upsertChat(data, chat(2, 'renamed'), ME, false))).toEqual([1, 2, 3]);
    expect(flattenChats(upsertChat(data, chat(2, 'renamed'), ME, false))[1].title).toBe('renamed');
    expect(ids(upsertChat(data, chat(4), ME, false))).toEqual([4, 1, 2, 3]);
    const once = upsertChat(data, chat(2, 'y', 2), ME, true);
    expect(upsertChat(once, chat(2, 'y', 2), ME, true)).toEqual(once);
    expect(unreadsOf(flattenChats(once)[0], ME)).toBe(2);
  });

  test("a chat the user is no longer in, and a delete, leave the list; nothing cached stays nothing", () => {
    const data = pages([chat(1), chat(2)]);
    expect(ids(upsertChat(data, chat(2, 'x', 0, [9]), ME, false))).toEqual([1]);
    expect(upsertChat(data, chat(5, 'x', 0, [9]), ME, true)).toBe(data);
    expect(ids(removeChat(data, 1))).toEqual([2]);
    expect(removeChat(data, 42)).toBe(data);
    expect(upsertChat(undefined, chat(1), ME, true)).toBeUndefined();
    expect(unreadsOf(chat(1, 'x', 3, [9]), ME)).toBe(0);
  });

  test('messages: older pages first, each message once; appended once', () => {
    const data: MessagePages = { pages: [{ records: [msg(3), msg(4)], count: 4, hasMore: true }, { records: [msg(1), msg(2), msg(3)], count: 4, hasMore: false }], pageParams: [1, 2] };
    expect(flattenMessages(data).map((m) => m.id)).toEqual([1, 2, 3, 4]);
    const more = appendMessage(data, msg(5));
    expect(flattenMessages(more).map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    expect(appendMessage(more, msg(5))).toBe(more);
    expect(appendMessage(undefined, msg(5))).toBeUndefined();
    expect(messageOf({ action: 'new-message', newMessage: { ...msg(6), chat: chat(1) } })).toEqual(msg(6));
    expect(messageOf({ action: 'new-message' })).toBeUndefined();
  });
});

describe('routes and formatting', () => {
  test('the area serves /chats and /chats/:id only', () => {
    expect(matchChatsRoute('/chats')).toEqual({});
    expect(matchChatsRoute('/Chats/')).toEqual({});
    expect(matchChatsRoute('/chats/abc-1')).toEqual({ id: 'abc-1' });
    expect(matchChatsRoute('/chats/a/b')).toBeNull();
    expect(matchChatsRoute('/tickets')).toBeNull();
  });

  test('message time: HH:mm today, with the date otherwise', () => {
    const now = new Date(2030, 4, 6, 15, 0);
    expect(messageTime(new Date(2030, 4, 6, 9, 5).toISOString(), now)).toBe('09:05');
    expect(messageTime(new Date(2030, 4, 5, 23, 59).toISOString(), now)).toBe('05/05/2030 23:59');
    expect(messageTime('bad', now)).toBe('');
    expect(initials('ana maria souza')).toBe('AS');
  });
});
