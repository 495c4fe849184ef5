/**
 * WhatsApp JID helpers (pure). A JID is `user[_agent][:device]@server`:
 * - `5511955550123@s.whatsapp.net` (`@c.us` in old captures): a phone-number JID (PN), `user` = E.164 digits;
 * - `104857600000123@lid`: a LID (WhatsApp's privacy id; not a phone number);
 * - `120363000000000042@g.us`: a group; `status@broadcast`, `…@broadcast`, `…@newsletter`: not chats we serve.
 */

const PN_SERVERS = new Set(['s.whatsapp.net', 'c.us']);

/** The server part (`s.whatsapp.net`, `lid`, `g.us`, ...), '' for a malformed JID. */
export function jidServer(jid: string | null | undefined): string {
  if (typeof jid !== 'string') return '';
  const at = jid.lastIndexOf('@');
  return at < 0 ? '' : jid.slice(at + 1);
}

/** The user part without agent and device (`5511955550123:12@s.whatsapp.net` -> `5511955550123`). */
export function jidUser(jid: string | null | undefined): string {
  if (typeof jid !== 'string') return '';
  const at = jid.lastIndexOf('@');
  const user = at < 0 ? jid : jid.slice(0, at);
  return user.split(':')[0].split('_')[0];
}

/** The JID without device suffix (`user@server`), or undefined when it is not a JID. */
export function normalizeJid(jid: string | null | undefined): string | undefined {
  const server = jidServer(jid);
  const user = jidUser(jid);
  if (!server || !user) return undefined;
  return `${user}@${server === 'c.us' ? 's.whatsapp.net' : server}`;
}

export const isGroupJid = (jid: string | null | undefined): boolean => jidServer(jid) === 'g.us';
export const isLidJid = (jid: string | null | undefined): boolean => jidServer(jid) === 'lid';
export const isPnJid = (jid: string | null | undefined): boolean => PN_SERVERS.has(jidServer(jid));
/** Status stories, broadcast lists and channels (newsletters): never turned into tickets. */
export const isIgnoredJid = (jid: string | null | undefined): boolean => {
  const server = jidServer(jid);
  return server === 'broadcast' || server === 'newsletter' || server === 'call';
};

/**
 * The JID to send to: a group id (digits and dashes) -> `id@g.us`; a phone number (any formatting) ->
 * `digits@s.whatsapp.net`; a full JID (`…@s.whatsapp.net`, `…@lid`, `…@g.us`) is kept. Undefined when
 * nothing usable is left.
 */
export function toJid(to: string, isGroup = false): string | undefined {
  const raw = String(to ?? '').trim();
  if (raw.includes('@')) {
    const n = normalizeJid(raw);
    if (!n) return undefined;
    const server = jidServer(n);
    if (server !== 's.whatsapp.net' && server !== 'lid' && server !== 'g.us') return undefined;
    if (!/^[0-9-]{1,40}$/.test(jidUser(n))) return undefined;
    return n;
  }
  if (isGroup) {
    const id = raw.replace(/[^0-9-]/g, '');
    return /^[0-9]+(-[0-9]+)?$/.test(id) && id.length <= 40 ? `${id}@g.us` : undefined;
  }
  const digits = raw.replace(/\D/g, '');
  return digits.length >= 5 && digits.length <= 20 ? `${digits}@s.whatsapp.net` : undefined;
}
