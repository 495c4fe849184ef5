import type { Envelope } from '@atendo/sdk';
import type { Connection } from '@atendo/plugin-connections/contract';
import type { TicketStatus } from '../../model';
import { mediaTypeOf } from '../messages';

/**
 * Pure mapping of a message envelope's content to message columns (wire-shapes §2 "Message"), and the
 * small value helpers the inbound pipeline shares (no I/O here).
 */

/** What a message envelope stores (besides ids): wire-shapes §2 "Message". */
export interface MessageFields {
  body: string;
  mediaType: string;
  mediaPath: string | null;
  mediaName: string | null;
  /** What the ticket list shows as last message. */
  lastMessage: string;
}

const MEDIA_TYPE_OF_CONTENT: Record<string, string> = { image: 'image', video: 'video', audio: 'audio', document: 'application', sticker: 'image' };
const MEDIA_LABEL: Record<string, string> = { image: 'Imagem', video: 'Vídeo', audio: 'Áudio', document: 'Documento', sticker: 'Figurinha' };

/** PostgreSQL text cannot hold NUL characters. */
export const clean = (s: string | undefined | null): string => (s ? s.replace(/\u0000/g, '') : '');
/** `s` without NUL characters, cut at `n` characters; null when empty. */
export const cut = (s: string | null | undefined, n: number): string | null => (s ? clean(s).slice(0, n) : null);

/** A stored-upload path an adapter reported (`{area}/{file}`), or null when it is not a safe relative path. */
export function safeMediaPath(p: string | undefined): string | null {
  if (!p || p.length > 500 || p.startsWith('/') || p.includes('\\') || p.split('/').some((s) => s === '..' || s === '.' || s === '')) return null;
  return p;
}

/** Google Maps link of a point (the product family's location link). */
export function mapsLink(lat: number, lng: number): string {
  return `https://maps.google.com/maps?q=${lat}%2C${lng}&z=17&hl=pt-BR`;
}

/**
 * The message columns of a `message` envelope (pure). Text: `conversation` (`extendedTextMessage` when it
 * replies to a message). Media: body = caption or '', mediaType image/video/audio/application (from the
 * MIME type when known; stickers are images), mediaPath = the file the adapter stored (`media.path`), mediaName
 * = the file name. Location: mediaType `locationMessage`, body `img|link|desc` as the product family's client
 * reads it (no thumbnail: `|https://maps.google.com/...|name and address`). Contact cards: body = the vCard
 * text(s), `contactMessage` (one) or `multi_vcard` (several, joined by a newline). Interactive replies and
 * unsupported kinds: body = the chosen title / text, mediaType = the provider's type name (cut at 50).
 */
export function messageFields(env: Pick<Envelope, 'content' | 'replyTo'>): MessageFields {
  const c = env.content ?? { type: 'unsupported' as const };
  const text = clean(c.text);
  switch (c.type) {
    case 'text':
      return { body: text, mediaType: env.replyTo ? 'extendedTextMessage' : 'conversation', mediaPath: null, mediaName: null, lastMessage: text };
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const m = c.media;
      const mediaType = m?.mimeType && c.type !== 'sticker' ? mediaTypeOf(m.mimeType) : MEDIA_TYPE_OF_CONTENT[c.type];
      const mediaName = cut(m?.fileName, 255);
      return { body: text, mediaType, mediaPath: safeMediaPath(m?.path), mediaName, lastMessage: text || mediaName || MEDIA_LABEL[c.type] };
    }
    case 'location': {
      const l = c.location;
      if (!l) return { body: text, mediaType: 'locationMessage', mediaPath: null, mediaName: null, lastMessage: 'Localização' };
      const desc = clean([l.name, l.address].filter(Boolean).join(' - ')) || text || `${l.latitude}, ${l.longitude}`;
      return { body: `|${mapsLink(l.latitude, l.longitude)}|${desc.replace(/\|/g, '/')}`, mediaType: 'locationMessage', mediaPath: null, mediaName: null, lastMessage: 'Localização' };
    }
    case 'contact': {
      const cards = (c.vcards ?? []).map(clean).filter(Boolean);
      return { body: cards.length ? cards.join('\n') : text, mediaType: cards.length > 1 ? 'multi_vcard' : 'contactMessage', mediaPath: null, mediaName: null, lastMessage: 'Contato' };
    }
    case 'interactive': {
      const i = c.interactive;
      const body = text || clean(i?.title) || clean(i?.payload) || clean(i?.id);
      return { body, mediaType: (c.providerType || 'conversation').slice(0, 50), mediaPath: null, mediaName: null, lastMessage: body };
    }
    default: {
      const body = text || clean(c.link?.url);
      return { body, mediaType: (c.providerType || 'unsupported').slice(0, 50), mediaPath: null, mediaName: null, lastMessage: body };
    }
  }
}

/** `occurredAt` as a Date (now when unparseable). */
export function occurredAt(env: Envelope): Date {
  const t = Date.parse(env.occurredAt);
  return Number.isFinite(t) ? new Date(t) : new Date();
}

/** The status a ticket opened by an inbound message takes: 'group' for groups (unless the connection treats groups as tickets), else 'pending'. */
export function inboundStatus(isGroup: boolean, connection: Pick<Connection, 'groupAsTicket'>): TicketStatus {
  return isGroup && connection.groupAsTicket !== 'enabled' ? 'group' : 'pending';
}
