/**
 * LGPD masking of contact-list items (issue 18 item 5): with the company setting lgpdHideNumber enabled, a
 * plain user (profile user) receives every item's number masked, over REST (`/contact-list-items` pages,
 * one item, create and update answers) and over sockets (item events and the list's reload after an
 * import), while admins get the full number; an update that sends the masked number back (an edit form
 * filled from a masked answer) keeps the stored number.
 */
import type { Socket } from 'socket.io-client';
import { waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { bootKernel, Graph, Tenant } from './harness';

jest.setTimeout(60000);

const NUMBER = '5511987654321';
const MASKED = '55119******21';
const OTHER = '5521912345678';
const OTHER_MASKED = '55219******78';

/** Every event a socket receives, as JSON text. */
function record(s: Socket): string[] {
  const got: string[] = [];
  s.onAny((event: string, ...args: unknown[]) => got.push(`${event} ${JSON.stringify(args)}`));
  return got;
}

/** A multipart body with one `file` part. */
function multipart(file: Buffer, filename: string): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----lgpd' + Date.now();
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('contact-list items under lgpdHideNumber', () => {
  const graph = new Graph();
  let k: TestKernel;
  let t: Tenant;
  let user: TestUser;
  let base: string;
  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
    t = await Tenant.create(k);
    user = await k.createUser(t.companyId, { profile: 'user' });
    base = await k.listen();
    const r = await k.as(t.admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'enabled' });
    expect(r.statusCode).toBe(200);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('REST and socket answers are masked for a plain user and full for an admin; a masked number sent back keeps the stored one', async () => {
    const userSocket = await k.socket(user.token, base);
    const adminSocket = await k.socket(t.admin.token, base);
    try {
      const userGot = record(userSocket);
      const adminGot = record(adminSocket);
      const list = await t.api('POST', '/contact-lists', { name: 'Clientes LGPD' });

      // Created by the plain user: the answer is masked, the stored number is the full one.
      const created = await t.api('POST', '/contact-list-items', { name: 'Joana Prado', number: NUMBER, contactListId: list.id }, user);
      expect(created.number).toBe(MASKED);
      expect((await k.db('campaigns_contact_list_items').where({ id: created.id }).first()).number).toBe(NUMBER);

      // Reads: the page, one item.
      for (const url of [`/contact-list-items?contactListId=${list.id}`, `/contact-list-items/${created.id}`]) {
        const asUser = await k.as(user, 'GET', url);
        expect(asUser.statusCode).toBe(200);
        expect({ url, full: asUser.body.includes('987654321') }).toEqual({ url, full: false });
        expect(asUser.body).toContain(MASKED);
        const asAdmin = await k.as(t.admin, 'GET', url);
        expect({ url, full: asAdmin.body.includes(NUMBER) }).toEqual({ url, full: true });
      }

      // The edit form sends back what it was shown: the masked number keeps the stored one.
      const renamed = await t.api('PUT', `/contact-list-items/${created.id}`, { name: 'Joana P. Prado', number: MASKED, email: 'joana@example.com' }, user);
      expect(renamed).toMatchObject({ name: 'Joana P. Prado', number: MASKED, email: 'joana@example.com' });
      const stored = await k.db('campaigns_contact_list_items').where({ id: created.id }).first();
      expect(stored).toMatchObject({ name: 'Joana P. Prado', number: NUMBER });
      // A mask that is not the stored number's is refused, not stored.
      const wrong = await k.as(user, 'PUT', `/contact-list-items/${created.id}`, { number: '55119******99' });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().error).toBe('ERR_VALIDATION');
      expect((await k.db('campaigns_contact_list_items').where({ id: created.id }).first()).number).toBe(NUMBER);
      // A new number typed in full replaces it (and is answered masked).
      const renumbered = await t.api('PUT', `/contact-list-items/${created.id}`, { number: OTHER }, user);
      expect(renumbered.number).toBe(OTHER_MASKED);
      expect((await k.db('campaigns_contact_list_items').where({ id: created.id }).first()).number).toBe(OTHER);

      // An import by the admin: the list's reload event reaches the user masked.
      const up = multipart(Buffer.from(`name,number\nCarlos Lima,${NUMBER}\n`), 'lista.csv');
      const res = await k.app.inject({ method: 'POST', url: `/contact-lists/${list.id}/upload`, payload: up.payload, headers: { ...up.headers, authorization: `Bearer ${t.admin.token}` } });
      expect(res.statusCode).toBe(200);

      await waitFor(
        () =>
          userGot.some((e) => e.startsWith(`company-${t.companyId}-ContactListItem [`) && e.includes('Joana P. Prado')) &&
          userGot.some((e) => e.includes('"reload"') && e.includes('Carlos Lima')) &&
          adminGot.some((e) => e.includes('"reload"') && e.includes('Carlos Lima')),
      );
      const userText = userGot.filter((e) => e.includes('ContactListItem')).join('\n');
      expect(userText).not.toContain('987654321');
      expect(userText).not.toContain('912345678');
      expect(userText).toContain(MASKED);
      expect(userText).toContain(OTHER_MASKED);
      const adminText = adminGot.filter((e) => e.includes('ContactListItem')).join('\n');
      expect(adminText).toContain(NUMBER);
      expect(adminText).toContain(OTHER);
    } finally {
      userSocket.close();
      adminSocket.close();
    }
  });

  test("a plain user's search matches only a complete number (never digit by digit, nor a name that is a number); a campaign's recipients are masked", async () => {
    const list = await t.api('POST', '/contact-lists', { name: 'Busca LGPD' });
    await t.api('POST', '/contact-list-items', { name: 'Rita Busca', number: '5531988887777', contactListId: list.id });
    await t.api('POST', '/contact-list-items', { name: '5531966665555', number: '5531966665555', contactListId: list.id });
    const search = async (u: { token: string }, term: string) =>
      ((await k.as(u, 'GET', `/contact-list-items?contactListId=${list.id}&searchParam=${encodeURIComponent(term)}`)).json() as { contacts: { name: string }[] }).contacts.length;
    expect(await search(user, '98888')).toBe(0);
    expect(await search(user, '5531966')).toBe(0);
    expect(await search(user, '5531988887777')).toBe(1);
    expect(await search(user, 'rita')).toBe(1);
    expect(await search(t.admin, '98888')).toBe(1);
    expect(await search(t.admin, '5531966')).toBe(1);

    const conn = await t.connection('390000000000001');
    await t.settings({ messageInterval: 0 });
    const c = await t.campaign({ contactListId: list.id, whatsappId: conn, message1: 'Oi {nome}' });
    await t.until(c.id, 'FINALIZADA');
    const asUser = await k.as(user, 'GET', `/campaigns/${c.id}?shipping=true`);
    expect(asUser.statusCode).toBe(200);
    expect(asUser.body).not.toContain('988887777');
    expect(asUser.body).not.toContain('966665555');
    expect((asUser.json() as { shipping: unknown[] }).shipping).toHaveLength(2);
    expect((await k.as(t.admin, 'GET', `/campaigns/${c.id}?shipping=true`)).body).toContain('5531988887777');
  });
});
