/**
 * The campaigns' number check through a Baileys session (`campaigns.number-checkers`): list items added on a
 * company whose default WhatsApp connection is an open session get `isWhatsappValid` from `onWhatsApp`
 * (a Brazilian mobile listed without its ninth digit still counts); a closed session leaves it unknown; a
 * number the query does not list is false.
 */
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import type { SocketLike } from '@atendo/channel-whatsapp';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import campaignsPlugin from '@atendo/plugin-campaigns';
import type { PluginDefinition } from '@atendo/sdk';
import { fakeFactory } from '../../../channels/whatsapp/test/fake-socket';
import { createWhatsappSessionsPlugin, type WhatsappSessions } from '../src/plugin';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('whatsapp-sessions as the campaigns number checker', () => {
  let k: TestKernel;
  let sessions: WhatsappSessions;
  const fake = fakeFactory();
  let admin: TestUser;

  beforeAll(async () => {
    const wa = createWhatsappSessionsPlugin({ socketFactory: fake.factory, autostart: false, backoff: { baseMs: 10, maxMs: 40, maxFailures: 5 }, onReady: (s) => (sessions = s), download: async () => Buffer.from('') });
    k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, campaignsPlugin, wa] as PluginDefinition[] });
    ({ admin } = await k.createCompany({}));
  });
  afterAll(async () => {
    await k?.close();
  });

  const api = async (method: string, url: string, body?: unknown): Promise<Json> => {
    const res = await k.as(admin, method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  test('open session: listed numbers true (BR ninth digit either way), others false; not open: unknown', async () => {
    const conn = await api('POST', '/whatsapp', { name: 'WA', isDefault: true });
    const list = await api('POST', '/contact-lists', { name: 'Checagem' });
    // Before the session is open nothing can check: unknown.
    const before = await api('POST', '/contact-list-items', { name: 'Antes', number: '5511987650001', contactListId: list.id });
    expect(before.isWhatsappValid).toBeNull();

    await api('POST', `/whatsappsession/${conn.id}`);
    const sock = fake.sockets.filter((s) => s.opts.connectionId === conn.id).at(-1)!;
    const asked: string[][] = [];
    (sock as SocketLike).onWhatsApp = async (...jids: string[]) => {
      asked.push(jids);
      // WhatsApp answers only the accounts it has: 5511987650002, and 5511987650003 under its old form (without the 9).
      const accounts: Record<string, string> = { '5511987650002': '5511987650002', '5511987650003': '551187650003' };
      return jids.map((j) => j.split('@')[0]).filter((n) => accounts[n]).map((n) => ({ jid: `${accounts[n]}@s.whatsapp.net`, exists: true }));
    };
    sock.ev.emit('creds.update', { registered: true });
    sock.open('5511900000009:3@s.whatsapp.net');
    await waitFor(() => sessions.get(conn.id)?.state === 'open');
    await waitFor(async () => (await api('GET', `/whatsapp/${conn.id}`)).status === 'CONNECTED');

    const yes = await api('POST', '/contact-list-items', { name: 'Listado', number: '5511987650002', contactListId: list.id });
    const old = await api('POST', '/contact-list-items', { name: 'Sem nove', number: '5511987650003', contactListId: list.id });
    const no = await api('POST', '/contact-list-items', { name: 'Fora', number: '5511987650004', contactListId: list.id });
    expect([yes.isWhatsappValid, old.isWhatsappValid, no.isWhatsappValid]).toEqual([true, true, false]);
    expect(asked.flat()).toEqual(['5511987650002@s.whatsapp.net', '5511987650003@s.whatsapp.net', '5511987650004@s.whatsapp.net']);

    // Another company's connection id is never asked through this session.
    expect([...(await sessions.checkNumbers(999_999, conn.id, ['5511987650002'])).values()]).toEqual([null]);
    // A failing query leaves the numbers unknown.
    (sock as SocketLike).onWhatsApp = async () => {
      throw new Error('usync timeout');
    };
    const failed = await api('POST', '/contact-list-items', { name: 'Falhou', number: '5511987650005', contactListId: list.id });
    expect(failed.isWhatsappValid).toBeNull();
  });

  test('one contact per person through the Baileys session (issue 33 item 5): a contact saved with the 9th digit writes from its 12-digit JID, then from its LID (remoteJidAlt), then from the LID alone: one contact, one ticket; the reply goes to the JID that exists', async () => {
    const conn = await api('POST', '/whatsapp', { name: 'WA pessoa', isDefault: false });
    await api('POST', `/whatsappsession/${conn.id}`);
    const sock = fake.sockets.filter((s) => s.opts.connectionId === conn.id).at(-1)!;
    sock.ev.emit('creds.update', { registered: true });
    sock.open('5511900000019:3@s.whatsapp.net');
    await waitFor(() => sessions.get(conn.id)?.state === 'open');

    const saved = await api('POST', '/contacts', { name: 'Dona Rosa', number: '5511987650077' });
    const jid = '551187650077@s.whatsapp.net';
    const lid = '204800000000077@lid';
    const upsert = (id: string, key: Record<string, unknown>) =>
      sock.ev.emit('messages.upsert', { messages: [{ key: { fromMe: false, id, ...key }, message: { conversation: `mensagem ${id}` }, messageTimestamp: Math.floor(Date.now() / 1000), pushName: 'Rosa' }], type: 'notify' });
    const stored = (wid: string) => waitFor(async () => k.db('messages').where({ wid }).first(), 10000);

    upsert('PN-1', { remoteJid: jid }); // Baileys' phone-number addressing, the old 12-digit id
    const m1 = await stored('PN-1');
    upsert('LID-1', { remoteJid: lid, remoteJidAlt: jid, addressingMode: 'lid' }); // Baileys 7: the LID with the phone JID beside it
    const m2 = await stored('LID-1');
    upsert('LID-2', { remoteJid: lid, addressingMode: 'lid' }); // the LID alone
    const m3 = await stored('LID-2');
    expect([m1, m2, m3].map((m) => [m.contactId, m.ticketId])).toEqual([[saved.id, m1.ticketId], [saved.id, m1.ticketId], [saved.id, m1.ticketId]]);
    expect(await k.db('contacts').where({ id: saved.id }).first()).toMatchObject({ number: '5511987650077', remoteJid: jid, lid });
    expect(await k.db('contacts').where({ companyId: admin.companyId }).whereIn('number', ['551187650077', '204800000000077'])).toEqual([]);

    // The attendant's reply goes to the JID WhatsApp knows.
    await api('PUT', `/tickets/${m1.ticketId}`, { status: 'open', userId: admin.id });
    await api('POST', `/messages/${m1.ticketId}`, { body: 'Olá, Dona Rosa', signMessage: false });
    await waitFor(() => sock.sent.some((x) => (x.content as { text?: string }).text === 'Olá, Dona Rosa'), 10000);
    expect(sock.sent.find((x) => (x.content as { text?: string }).text === 'Olá, Dona Rosa')!.jid).toBe(jid);
  });
});
