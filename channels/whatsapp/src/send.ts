import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { PermanentError, type SendCommand } from '@atendo/sdk';
import type { AnyMessageContent } from '@whiskeysockets/baileys';
import { isGroupJid, isLidJid, jidUser, toJid } from './jid';

/**
 * Building a Baileys send from a `message.send` command (pure except for the media file check).
 *
 * The command is the SDK's `SendCommand`; its optional `remoteJid` / `lid` (the contact's stored JIDs),
 * `mediaType` ('contactMessage' = `body` is a vCard) and `isForwarded` are honoured when present.
 */

/** One path segment of an upload path (same rule as the kernel's upload store). */
const SEGMENT = /^[^/\\\x00-\x1f\x7f.][^/\\\x00-\x1f\x7f]{0,254}$/;

/**
 * The absolute file of an upload `path` (relative to the company's folder `{uploadsDir}/company{id}`), or
 * undefined when the path leaves that folder or is not a plain relative path.
 */
export function uploadFile(uploadsDir: string, companyId: number, path: string): string | undefined {
  if (typeof path !== 'string' || !path || path.length > 1000) return undefined;
  const segments = path.split('/');
  if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s))) return undefined;
  const base = resolve(uploadsDir, `company${companyId}`);
  const abs = resolve(base, ...segments);
  return abs.startsWith(base + sep) ? abs : undefined;
}

/**
 * The recipient JID: the stored `remoteJid` when it is a usable JID of the same kind (group or not); else
 * the contact's LID when `to` is that LID's digits (a contact known only by its LID: its number is no phone
 * number); else built from `to` (`digits@s.whatsapp.net`, `groupId@g.us`); else the LID. PermanentError
 * when none is usable.
 */
export function recipientJid(cmd: SendCommand): string {
  const isGroup = Boolean(cmd.isGroup);
  const stored = cmd.remoteJid ? toJid(cmd.remoteJid) : undefined;
  if (stored && isGroupJid(stored) === isGroup) return stored;
  if (!isGroup && cmd.lid) {
    const lid = toJid(cmd.lid);
    if (lid && isLidJid(lid) && jidUser(lid) === String(cmd.to ?? '').replace(/\D/g, '')) return lid;
  }
  const built = toJid(cmd.to, isGroup);
  if (built) return built;
  if (!isGroup && cmd.lid) {
    const lid = toJid(cmd.lid);
    if (lid) return lid;
  }
  throw new PermanentError(`invalid WhatsApp recipient: ${JSON.stringify(String(cmd.to ?? '').slice(0, 40))}`);
}

/** The first display name of a vCard (`FN:`), for a contact card's `displayName`. */
function vcardName(vcard: string): string {
  const m = /^FN[^:]*:(.*)$/m.exec(vcard);
  return (m?.[1] ?? 'Contact').trim() || 'Contact';
}

/**
 * The Baileys content of a command: media from the stored upload (image/video/audio by MIME type, anything
 * else as a document, `body` as the caption), a contact card for `mediaType: 'contactMessage'`, else text.
 * PermanentError for an empty command, a media path outside the company's uploads or a missing file.
 */
export async function buildContent(cmd: SendCommand, uploadsDir: string | undefined): Promise<AnyMessageContent> {
  const body = typeof cmd.body === 'string' ? cmd.body : '';
  if (cmd.reaction) {
    // A reaction of ours to a message of the chat ('' removes it).
    const { wid, emoji } = cmd.reaction;
    if (typeof wid !== 'string' || !wid) throw new PermanentError('reaction without a message id');
    return { react: { text: String(emoji ?? ''), key: { remoteJid: recipientJid(cmd), id: wid, fromMe: Boolean(cmd.reaction.fromMe) } } } as AnyMessageContent;
  }
  const forwarded = cmd.isForwarded ? { contextInfo: { isForwarded: true, forwardingScore: 1 } } : {};
  if (cmd.media) {
    const abs = uploadsDir ? uploadFile(uploadsDir, cmd.companyId, cmd.media.path) : undefined;
    if (!abs) throw new PermanentError('media path is not a file of the company uploads');
    const info = await stat(abs).catch(() => undefined);
    if (!info?.isFile()) throw new PermanentError('media file not found');
    const mimetype = String(cmd.media.mimeType || 'application/octet-stream');
    const fileName = String(cmd.media.fileName || 'file');
    const source = { url: abs };
    const caption = body ? { caption: body } : {};
    if (mimetype.startsWith('image/') && mimetype !== 'image/svg+xml') return { image: source, mimetype, ...caption, ...forwarded } as AnyMessageContent;
    if (mimetype.startsWith('video/')) return { video: source, mimetype, ...caption, ...forwarded } as AnyMessageContent;
    if (mimetype.startsWith('audio/')) {
      // Voice notes (OGG/Opus, what the tickets plugin converts browser recordings to) go as push-to-talk.
      const ptt = /ogg|opus/.test(mimetype);
      return { audio: source, mimetype: ptt ? 'audio/ogg; codecs=opus' : mimetype, ptt, ...forwarded } as AnyMessageContent;
    }
    return { document: source, mimetype, fileName, ...caption, ...forwarded } as AnyMessageContent;
  }
  if (cmd.mediaType === 'contactMessage' && /BEGIN:VCARD/i.test(body)) {
    return { contacts: { displayName: vcardName(body), contacts: [{ vcard: body }] } } as AnyMessageContent;
  }
  if (!body.trim()) throw new PermanentError('nothing to send: empty body and no media');
  return { text: body, ...forwarded } as AnyMessageContent;
}

/**
 * The WhatsApp message id of a send command, derived from its stable key (`sendKey`): `3EB0` and 18 upper-case hex
 * digits of the key's SHA-256, the shape of the ids WhatsApp Web itself makes. The same command sent twice (a crash
 * between the provider's answer and our record of it) carries the same id, so the recipient keeps one message.
 */
export function stableMessageId(key: string): string {
  return `3EB0${createHash('sha256').update(`atendo:${key}`).digest('hex').slice(0, 18).toUpperCase()}`;
}
