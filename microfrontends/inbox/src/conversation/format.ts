/**
 * Pure helpers of the conversation view (spec 2-tickets.md §2 "Conversation view", §9): day separators,
 * ticket-change banners, times, ack levels, text cuts, quick-reply matching, vCard and location parsing,
 * the edit window and the recorder timer. No React, no I/O: unit-tested in test/conversation-format.test.ts.
 */
import type { DeliveryState, Message, QuickMessage } from './types';

const pad = (n: number) => String(n).padStart(2, '0');

/** The local calendar day (`YYYY-MM-DD`) of an ISO date-time; '' for a bad date. */
export function dayKey(iso: string | Date): string {
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `dd/MM/yyyy` of an ISO date-time (local time); '' for a bad date. */
export function formatDay(iso: string | Date): string {
  const k = dayKey(iso);
  if (!k) return '';
  const [y, m, d] = k.split('-');
  return `${d}/${m}/${y}`;
}

/** `HH:mm` of an ISO date-time (local time); '' for a bad date. */
export function formatTime(iso: string | Date): string {
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `dd/MM/yyyy HH:mm` of an ISO date-time (local time). */
export function formatDateTime(iso: string | Date): string {
  const day = formatDay(iso);
  return day ? `${day} ${formatTime(iso)}` : '';
}

/**
 * Whether a day separator goes before `current`: for the first message, and whenever its local day differs
 * from the previous message's.
 */
export function needsDaySeparator(previous: Pick<Message, 'createdAt'> | undefined, current: Pick<Message, 'createdAt'>): boolean {
  if (!previous) return true;
  return dayKey(previous.createdAt) !== dayKey(current.createdAt);
}

/** The text of a day separator: `todayLabel` ('HOJE') for today's messages, else `dd/MM/yyyy`. */
export function daySeparatorLabel(iso: string, todayLabel: string, now: Date = new Date()): string {
  return dayKey(iso) === dayKey(now) ? todayLabel : formatDay(iso);
}

/** Whether a ticket-change banner goes before `current`: the previous message belongs to another ticket. */
export function needsTicketBanner(previous: Pick<Message, 'ticketId'> | undefined, current: Pick<Message, 'ticketId'>): boolean {
  return Boolean(previous) && previous!.ticketId !== current.ticketId;
}

/** The text of a ticket-change banner: `#ticketId - department`, or `#ticketId - <noDepartment>`. */
export function ticketBannerLabel(message: Pick<Message, 'ticketId' | 'ticket'>, noDepartment: string): string {
  const queue = message.ticket?.queue?.name;
  return `#${message.ticketId} - ${queue || noDepartment}`;
}

/** What a list row of the conversation is: a day separator, a ticket banner or a message. */
export type ConversationRow =
  | { kind: 'day'; key: string; iso: string }
  | { kind: 'ticket'; key: string; message: Message }
  | { kind: 'message'; key: string; message: Message };

/** The rows to render for `messages` (ascending): separators and banners between the messages. */
export function buildRows(messages: Message[]): ConversationRow[] {
  const rows: ConversationRow[] = [];
  let previous: Message | undefined;
  for (const m of messages) {
    if (needsDaySeparator(previous, m)) rows.push({ kind: 'day', key: `day-${dayKey(m.createdAt)}-${m.id}`, iso: m.createdAt });
    if (needsTicketBanner(previous, m)) rows.push({ kind: 'ticket', key: `ticket-${m.ticketId}-${m.id}`, message: m });
    rows.push({ kind: 'message', key: `msg-${m.id}`, message: m });
    previous = m;
  }
  return rows;
}

/** The icon level of an ack: 'pending' (0, clock), 'sent' (1), 'delivered' (2), 'read' (3 and 4, coloured). */
export type AckLevel = 'pending' | 'sent' | 'delivered' | 'read';

export function ackLevel(ack: number | null | undefined): AckLevel {
  const a = Number(ack ?? 0);
  if (a >= 3) return 'read';
  if (a === 2) return 'delivered';
  if (a === 1) return 'sent';
  return 'pending';
}

const STATE_OF_ACK: DeliveryState[] = ['pending', 'sent', 'delivered', 'read', 'played'];

/**
 * The delivery state of a message: the server's `deliveryState` when it sends one, else derived like it ('failed'
 * while `sendError` is set, else by ack: 0 pending, 1 sent, 2 delivered, 3 read, 4 played).
 */
export function deliveryStateOf(m: Pick<Message, 'ack' | 'sendError' | 'deliveryState'>): DeliveryState {
  if (m.deliveryState) return m.deliveryState;
  if (m.sendError) return 'failed';
  return STATE_OF_ACK[Math.max(0, Math.min(4, Math.trunc(Number(m.ack ?? 0)) || 0))];
}

/**
 * Channels whose provider can edit / delete (for everyone) a message already sent (the server's rule:
 * plugins/tickets/src/services/messages/capabilities.ts). Baileys can; the Cloud API, Messenger and Instagram cannot.
 */
const CHANNEL_CAN: Record<string, { edits: boolean; deletes: boolean }> = {
  whatsapp: { edits: true, deletes: true },
  whatsappapi: { edits: false, deletes: false },
  facebook: { edits: false, deletes: false },
  instagram: { edits: false, deletes: false },
};

/** True when the provider of `channel` can edit (or delete) a sent message; false for an unknown channel (as the server), true when none is known yet. */
export function channelCan(channel: string | null | undefined, what: 'edits' | 'deletes'): boolean {
  return channel ? (CHANNEL_CAN[channel]?.[what] ?? false) : true;
}

/** True when `m` left to the provider already and the ticket's `channel` cannot edit it there (the server refuses). */
export function editBlockedByChannel(m: Pick<Message, 'isPrivate' | 'wid'>, channel: string | null | undefined): boolean {
  return !m.isPrivate && Boolean(m.wid) && !channelCan(channel, 'edits');
}

/** True when deleting `m` removes it in Atendo only (the ticket's `channel` cannot delete it for the customer). */
export function deleteIsLocalOnly(m: Pick<Message, 'isPrivate' | 'fromMe'>, channel: string | null | undefined): boolean {
  return !m.isPrivate && m.fromMe && !channelCan(channel, 'deletes');
}

/** `text` cut at `max` characters followed by '...' when longer. */
export function cut(text: string, max: number): string {
  const chars = [...(text ?? '')];
  return chars.length > max ? `${chars.slice(0, max).join('')}...` : text;
}

/** Longest quick-reply label shown (spec §9). */
export const QUICK_REPLY_LABEL_MAX = 35;

/** The label of a quick reply in the '/' popover: `shortcode - message`, cut at 35 characters + '...'. */
export function quickReplyLabel(q: Pick<QuickMessage, 'shortcode' | 'message'>): string {
  const text = q.message ? `${q.shortcode} - ${q.message}` : q.shortcode;
  return cut(text.replace(/\s+/g, ' '), QUICK_REPLY_LABEL_MAX);
}

/**
 * The quick replies offered for the input `text`: none unless it starts with '/'; otherwise those whose
 * shortcode contains what follows the '/' (case-insensitive), shortcodes starting with it first.
 */
export function matchQuickReplies<T extends Pick<QuickMessage, 'shortcode'>>(text: string, list: T[]): T[] {
  if (!text.startsWith('/')) return [];
  const term = text.slice(1).trim().toLowerCase();
  const hits = list.filter((q) => q.shortcode.toLowerCase().replace(/^\//, '').includes(term));
  return hits.sort((a, b) => {
    const as = a.shortcode.toLowerCase().replace(/^\//, '').startsWith(term) ? 0 : 1;
    const bs = b.shortcode.toLowerCase().replace(/^\//, '').startsWith(term) ? 0 : 1;
    return as - bs;
  });
}

/** Minutes within which an own text message may be edited (server rule EDIT_WINDOW_MINUTES). */
export const EDIT_WINDOW_MINUTES = 15;
const TEXT_TYPES = ['conversation', 'extendedTextMessage', 'chat', ''];

/** True for a plain text message (no media). */
export function isTextMessage(m: Pick<Message, 'mediaType' | 'mediaUrl'>): boolean {
  return TEXT_TYPES.includes(m.mediaType ?? '') && !m.mediaUrl;
}

/** Whether `userId` may edit `m`: an own text message, not deleted, sent less than 15 minutes ago. */
export function canEditMessage(m: Message, userId: number | undefined, now: number = Date.now()): boolean {
  if (!m.fromMe || m.isDeleted || !isTextMessage(m)) return false;
  if (m.userId !== undefined && m.userId !== null && m.userId !== userId) return false;
  const at = new Date(m.createdAt).getTime();
  return Number.isFinite(at) && now - at < EDIT_WINDOW_MINUTES * 60_000;
}

/** Whether `userId` may delete `m`: an own message (or any, for an admin), not deleted yet. */
export function canDeleteMessage(m: Message, userId: number | undefined, admin: boolean): boolean {
  if (!m.fromMe || m.isDeleted) return false;
  return admin || m.userId === undefined || m.userId === null || m.userId === userId;
}

/** `mm:ss` of a number of seconds (minutes may exceed 59). */
export function formatTimer(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
}

/** Recordings smaller than this are discarded (spec §4 "Voice recording", §9). */
export const MIN_RECORDING_BYTES = 10_000;

/** Audio playback rates, cycled by the player's rate button (spec §2). */
export const PLAYBACK_RATES = [0.5, 1, 1.5, 2] as const;

/** The rate after `rate` in PLAYBACK_RATES (wrapping; an unknown rate goes to 1). */
export function nextPlaybackRate(rate: number): number {
  const i = PLAYBACK_RATES.indexOf(rate as (typeof PLAYBACK_RATES)[number]);
  if (i < 0) return 1;
  return PLAYBACK_RATES[(i + 1) % PLAYBACK_RATES.length];
}

// ------------------------------------------------------------------------------------------ vCards

/** A contact of a vCard: its display name and number (digits; the `waid` parameter when present). */
export interface VCardContact {
  name: string;
  number: string;
}

function unescapeVCard(v: string): string {
  return v.replace(/\\n/gi, ' ').replace(/\\([,;\\])/g, '$1').trim();
}

/** Parses one or more vCards (`BEGIN:VCARD ... END:VCARD`) into name + number pairs; cards without a number are kept with ''. */
export function parseVCards(text: string | null | undefined): VCardContact[] {
  if (!text || !/BEGIN:VCARD/i.test(text)) return [];
  const cards = text.split(/BEGIN:VCARD/i).slice(1);
  const out: VCardContact[] = [];
  for (const card of cards) {
    // Unfold folded lines (RFC 6350 §3.2).
    const lines = card.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
    let name = '';
    let structured = '';
    let number = '';
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const head = line.slice(0, colon);
      const value = line.slice(colon + 1);
      const prop = head.split(';')[0].split('.').pop()?.toUpperCase();
      if (prop === 'FN' && !name) name = unescapeVCard(value);
      else if (prop === 'N' && !structured) structured = unescapeVCard(value.split(';').filter(Boolean).reverse().join(' '));
      else if (prop === 'TEL' && !number) {
        const waid = /waid=(\d+)/i.exec(head)?.[1];
        number = waid ?? value.replace(/\D/g, '');
      }
    }
    out.push({ name: name || structured || number, number });
  }
  return out;
}

/** The contact cards of a contact message: vCards in the body, else in dataJson (`vcard`/`vcards`). */
export function contactCardsOf(m: Pick<Message, 'body' | 'dataJson'>): VCardContact[] {
  const fromBody = parseVCards(m.body);
  if (fromBody.length) return fromBody;
  const json = parseJson(m.dataJson);
  const texts: string[] = [];
  walk(json, (k, v) => {
    if ((k === 'vcard' || k === 'vcards') && typeof v === 'string') texts.push(v);
    if (k === 'vcards' && Array.isArray(v)) for (const x of v) if (typeof x === 'string') texts.push(x);
  });
  return texts.flatMap((t) => parseVCards(t));
}

// ------------------------------------------------------------------------------------------ locations

/** A location: latitude, longitude and an optional name or address. */
export interface GeoPoint {
  latitude: number;
  longitude: number;
  name?: string;
}

function parseJson(raw: string | null | undefined): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function walk(v: unknown, visit: (key: string, value: unknown, owner: Record<string, unknown>) => void, depth = 0): void {
  if (!v || typeof v !== 'object' || depth > 8) return;
  if (Array.isArray(v)) {
    for (const x of v) walk(x, visit, depth + 1);
    return;
  }
  const o = v as Record<string, unknown>;
  for (const [k, x] of Object.entries(o)) {
    visit(k, x, o);
    walk(x, visit, depth + 1);
  }
}

const LAT_KEYS = ['degreesLatitude', 'latitude', 'lat'];
const LNG_KEYS = ['degreesLongitude', 'longitude', 'lng', 'long', 'lon'];

const validLat = (n: number) => Number.isFinite(n) && n >= -90 && n <= 90;
const validLng = (n: number) => Number.isFinite(n) && n >= -180 && n <= 180;

/**
 * The location of a location message: the first object of dataJson with latitude/longitude keys
 * (`degreesLatitude`/`latitude`/`lat` and `degreesLongitude`/`longitude`/`lng`), else a `lat,long` pair (or
 * a maps link `q=lat,long`) in the body. Undefined when none is found.
 */
export function locationOf(m: Pick<Message, 'body' | 'dataJson'>): GeoPoint | undefined {
  let found: GeoPoint | undefined;
  walk(parseJson(m.dataJson), (_k, _v, owner) => {
    if (found) return;
    const latKey = LAT_KEYS.find((k) => owner[k] !== undefined && owner[k] !== null && validLat(Number(owner[k])));
    const lngKey = LNG_KEYS.find((k) => owner[k] !== undefined && owner[k] !== null && validLng(Number(owner[k])));
    if (latKey && lngKey) {
      const name = [owner.name, owner.address].find((x) => typeof x === 'string' && x.trim()) as string | undefined;
      found = { latitude: Number(owner[latKey]), longitude: Number(owner[lngKey]), ...(name ? { name } : {}) };
    }
  });
  if (found) return found;
  let body = m.body ?? '';
  try {
    body = decodeURIComponent(body.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    /* keep the raw body */
  }
  const pair = /(-?\d{1,2}(?:\.\d+)?)\s*[,;|]\s*(-?\d{1,3}(?:\.\d+)?)/.exec(body);
  if (pair) {
    const latitude = Number(pair[1]);
    const longitude = Number(pair[2]);
    if (validLat(latitude) && validLng(longitude) && (pair[1].includes('.') || pair[2].includes('.'))) return { latitude, longitude };
  }
  return undefined;
}

/** A link to a map centred on `p`. */
export function mapLink(p: GeoPoint): string {
  return `https://maps.google.com/maps?q=${p.latitude},${p.longitude}&z=17`;
}

export { initials } from '@atendo/web-kit';
