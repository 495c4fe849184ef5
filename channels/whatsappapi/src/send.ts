import { readFile } from 'node:fs/promises';
import { PermanentError, type AdapterConnection, type AdapterContext, type SendCommand, type SendResult } from '@atendo/sdk';
import { GraphClient, graphErrorOf, idOf, requireSendable, splitText } from '@atendo/channel-meta-common';

/** Longest text body of one Cloud API message (characters). */
export const WHATSAPP_MAX_TEXT = 4096;
/** Longest media caption (characters). */
export const WHATSAPP_MAX_CAPTION = 1024;

type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

/**
 * The Cloud API message type for a media type: only JPEG/PNG are images, WebP is a sticker, MP4/3GPP are
 * videos, AAC/AMR/MPEG/MP4/OGG are audio; anything else goes as a document (which accepts any file).
 */
export function whatsappMediaKind(mimeType: string): MediaKind {
  const t = mimeType.toLowerCase().split(';')[0].trim();
  if (t === 'image/jpeg' || t === 'image/png') return 'image';
  if (t === 'image/webp') return 'sticker';
  if (t === 'video/mp4' || t === 'video/3gpp') return 'video';
  if (['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'].includes(t)) return 'audio';
  return 'document';
}

interface CloudAnswer {
  messages?: { id?: unknown }[];
}

/**
 * The `to` of a send: the WhatsApp id the person writes from when the contact has one (`remoteJid`
 * `digits@s.whatsapp.net`, stored from its last message: the 12-digit `wa_id` of a Brazilian number saved
 * with the 9th digit, issue 33 item 5), else the contact's number.
 */
export function recipientOf(cmd: Pick<SendCommand, 'to' | 'isGroup' | 'remoteJid'>): string {
  const m = !cmd.isGroup && cmd.remoteJid ? /^(\d{5,20})@s\.whatsapp\.net$/.exec(cmd.remoteJid) : null;
  return m ? m[1] : cmd.to;
}

/**
 * Sends a command through `POST /{phone-number-id}/messages` (GRAPH_API.md §3.3) and resolves with the
 * `wamid`. Text: `type: text` (`preview_url` when the body has a link), split at 4096 characters. Media:
 * our stored file is uploaded first (`POST /{phone-number-id}/media`, multipart) and sent by id; without a
 * readable file it is sent by `link` (the command's signed URL). The body is the caption of images, videos
 * and documents (up to 1024 characters; audio and stickers take none, so a body there follows as text).
 * `quotedWid` becomes `context.message_id`. Group commands use `recipient_type: group`.
 * Failures of the first call are thrown as classified Graph errors; follow-up parts only log (see
 * `sendMessaging` for why).
 */
export async function sendWhatsapp(conn: AdapterConnection, cmd: SendCommand, ctx: AdapterContext): Promise<SendResult> {
  const { token, account } = requireSendable(conn, cmd);
  const client = new GraphClient({ baseUrl: ctx.graphUrl, timeoutMs: ctx.timeoutMs });
  const path = `${encodeURIComponent(account)}/messages`;
  const envelope = {
    messaging_product: 'whatsapp',
    recipient_type: cmd.isGroup ? 'group' : 'individual',
    to: recipientOf(cmd),
  };
  const context = cmd.quotedWid ? { context: { message_id: cmd.quotedWid } } : {};
  const call = async (message: Record<string, unknown>, withContext: boolean): Promise<string> => {
    const res = await client.request<CloudAnswer>({ method: 'POST', path, token, json: { ...envelope, ...(withContext ? context : {}), ...message } });
    const id = idOf(res.messages?.[0]?.id);
    if (!id) throw new PermanentError('the Cloud API answered without a message id');
    return id;
  };
  const textMessage = (body: string) => ({ type: 'text', text: { body, preview_url: /https?:\/\/\S/i.test(body) } });
  const body = typeof cmd.body === 'string' ? cmd.body : '';

  if (cmd.reaction) {
    // `type: reaction` (no context allowed); an empty emoji removes ours (GRAPH_API.md §3.3).
    const res = await client.request<CloudAnswer>({ method: 'POST', path, token, json: { ...envelope, type: 'reaction', reaction: { message_id: cmd.reaction.wid, emoji: cmd.reaction.emoji ?? '' } } });
    return { externalId: idOf(res.messages?.[0]?.id) ?? `reaction:${cmd.reaction.wid}` };
  }
  let first: string;
  let rest: string[] = [];
  if (cmd.media) {
    const kind = whatsappMediaKind(cmd.media.mimeType ?? '');
    const ref = await mediaRef(client, token, account, cmd, ctx);
    const captioned = kind === 'image' || kind === 'video' || kind === 'document';
    const caption = body.trim() && body.trim() !== cmd.media.fileName ? body : '';
    const obj: Record<string, unknown> = { ...ref };
    if (captioned && caption && Array.from(caption).length <= WHATSAPP_MAX_CAPTION) obj.caption = caption;
    else if (caption) rest = splitText(caption, { maxChars: WHATSAPP_MAX_TEXT });
    if (kind === 'document' && cmd.media.fileName) obj.filename = cmd.media.fileName;
    first = await call({ type: kind, [kind]: obj }, true);
  } else {
    const chunks = splitText(body, { maxChars: WHATSAPP_MAX_TEXT });
    if (!chunks.length) throw new PermanentError('nothing to send: empty body and no media');
    first = await call(textMessage(chunks[0]), true);
    rest = chunks.slice(1);
  }
  for (const part of rest) {
    try {
      await call(textMessage(part), false);
    } catch (err) {
      ctx.log.warn({ channel: 'whatsappapi', connectionId: conn.id, messageId: cmd.messageId, graph: graphErrorOf(err) ?? String(err) }, 'follow-up part of a message failed; not retried');
      break;
    }
  }
  return { externalId: first };
}

/** `{id}` after uploading our stored file, else `{link}`; PermanentError when there is neither. */
async function mediaRef(client: GraphClient, token: string, account: string, cmd: SendCommand, ctx: AdapterContext): Promise<{ id: string } | { link: string }> {
  const media = cmd.media!;
  if (media.absolutePath) {
    let bytes: Buffer | undefined;
    try {
      bytes = await readFile(media.absolutePath);
    } catch (err) {
      ctx.log.warn({ connectionId: cmd.connectionId, messageId: cmd.messageId, code: (err as NodeJS.ErrnoException)?.code }, 'stored media not readable; sending by link');
    }
    if (bytes) {
      const form = new FormData();
      form.set('messaging_product', 'whatsapp');
      form.set('type', media.mimeType);
      form.set('file', new Blob([Uint8Array.from(bytes)], { type: media.mimeType }), media.fileName || 'file');
      const res = await client.request<{ id?: unknown }>({ method: 'POST', path: `${encodeURIComponent(account)}/media`, token, form });
      const id = idOf(res.id);
      if (!id) throw new PermanentError('the media upload answered without an id');
      return { id };
    }
  }
  if (media.url && /^https?:\/\//i.test(media.url)) return { link: media.url };
  throw new PermanentError('the media has neither a readable file nor a public URL');
}
