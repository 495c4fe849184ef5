import {
  PermanentError,
  type AdapterConnection,
  type AdapterContext,
  type ContactProfile,
  type Envelope,
  type NormalizeOptions,
  type SendCommand,
  type SendResult,
} from '@atendo/sdk';
import { GraphClient, graphErrorOf } from './graph';
import { arr, buildEnvelope, idOf, isoFromMs, MalformedItem, perItem, rec, requireId, str, type EnvelopeContent, type Rec, type Resolve } from './normalize';
import { splitText } from './text';

/**
 * The Messenger Platform event grammar, shared by Messenger (`object: "page"`) and Instagram
 * (`object: "instagram"`): `entry[].messaging[]` (and `entry[].standby[]` under the handover protocol), each
 * event with `sender.id`, `recipient.id`, `timestamp` (ms) and one of `message`, `message_edit`, `postback`,
 * `reaction`, `delivery`, `read` (GRAPH_API.md §2 "Body envelopes").
 *
 * Mapping (one event -> envelopes):
 * - `message` -> kind `message` (one per attachment: the first keeps the `mid`, further ones get `mid:<i>`;
 *   the text rides on the first as its caption); `is_echo` (or sender = the account) -> direction `out`,
 *   thread = the recipient; `is_deleted` -> kind `delete`; `quick_reply` -> content `interactive`;
 *   `reply_to.mid` -> `replyTo`.
 * - `message_edit` -> kind `edit` (`edit.text` only when the payload has the text: Instagram may send just
 *   `mid` + `num_edit`, then `edit` is absent and the pipeline may fetch the message).
 * - `postback` -> kind `message`, content `interactive` (`title`, `payload`, `referral`).
 * - `reaction` -> kind `reaction`, `reaction.emoji` = the emoji ('' for `unreact`).
 * - `delivery` -> kind `status` `delivered`, one envelope per listed `mid`; without `mids`, one envelope with
 *   `externalId` `watermark:<ms>`; both carry `status.watermark` (everything sent before it is delivered).
 * - `read` -> kind `status` `read`: Instagram `read.mid` -> that message; Messenger `read.watermark` -> one
 *   `watermark:<ms>` envelope with `status.watermark`.
 * - anything else (optin, standalone referral, handover, policy events) -> skipped as `unhandled`.
 */
export type MessagingChannel = 'facebook' | 'instagram';

/** The account ids (`entry[].id`: page id / Instagram account id) a Messenger-grammar body addresses. */
export function messagingAccountIds(raw: unknown): string[] {
  const ids = new Set<string>();
  for (const e of arr(rec(raw)?.entry)) {
    const id = idOf(rec(e)?.id);
    if (id) ids.add(id);
  }
  return [...ids];
}

/** Emoji for Messenger reaction names when the payload carries none. */
const REACTION_EMOJI: Record<string, string> = { smile: '😆', angry: '😠', sad: '😢', wow: '😮', love: '❤️', like: '👍', dislike: '👎' };

/** Normalizes a Messenger-grammar webhook body (see the module comment). Pure; never throws. */
export function normalizeMessaging(channel: MessagingChannel, raw: unknown, resolve: Resolve, opts: NormalizeOptions = {}): Envelope[] {
  const body = rec(raw);
  const entries = body?.entry;
  if (!Array.isArray(entries)) {
    opts.onSkip?.('malformed', { reason: 'body has no entry array' });
    return [];
  }
  const out: Envelope[] = [];
  entries.forEach((entry, entryIndex) => {
    out.push(
      ...perItem(opts.onSkip, { entryIndex }, () => {
        const e = rec(entry);
        if (!e) throw new MalformedItem('entry is not an object');
        const accountId = requireId(e.id, 'entry.id');
        const target = resolve(accountId);
        if (!target) {
          opts.onSkip?.('unknown_account', { channel, accountId });
          return [];
        }
        const events = [...arr(e.messaging), ...arr(e.standby)];
        if (!Array.isArray(e.messaging) && !Array.isArray(e.standby)) {
          if (Array.isArray(e.changes)) opts.onSkip?.('unhandled', { entryIndex, accountId, reason: 'changes (comments/mentions) are not messages' });
          else throw new MalformedItem('entry has neither messaging nor standby');
        }
        const res: Envelope[] = [];
        events.forEach((ev, eventIndex) => {
          res.push(...perItem(opts.onSkip, { entryIndex, eventIndex, accountId }, () => eventEnvelopes(channel, target, accountId, ev, opts)));
        });
        return res;
      }),
    );
  });
  return out;
}

interface Target {
  companyId: number;
  connectionId: number;
}

function eventEnvelopes(channel: MessagingChannel, target: Target, accountId: string, raw: unknown, opts: NormalizeOptions): Envelope[] {
  const ev = rec(raw);
  if (!ev) throw new MalformedItem('event is not an object');
  const senderId = requireId(rec(ev.sender)?.id, 'sender.id');
  const recipientId = idOf(rec(ev.recipient)?.id);
  const occurredAt = isoFromMs(ev.timestamp);
  const message = rec(ev.message);
  const fromBusiness = senderId === accountId || message?.is_echo === true;
  const contactId = fromBusiness ? recipientId : senderId;
  if (!contactId) throw new MalformedItem('recipient.id is missing');
  const base = {
    companyId: target.companyId,
    connectionId: target.connectionId,
    channel,
    occurredAt,
    thread: { externalId: contactId, isGroup: false },
    sender: { externalId: senderId },
    raw: ev,
  } as const;
  const direction: 'in' | 'out' = fromBusiness ? 'out' : 'in';

  if (message) {
    const mid = requireId(message.mid, 'message.mid');
    if (message.is_deleted === true) return [buildEnvelope({ ...base, direction, kind: 'delete', externalId: mid })];
    const replyMid = idOf(rec(message.reply_to)?.mid);
    return messageContents(message).map((content, i) =>
      buildEnvelope({
        ...base,
        direction,
        kind: 'message',
        externalId: i === 0 ? mid : `${mid}:${i}`,
        content,
        replyTo: replyMid && i === 0 ? { externalId: replyMid } : undefined,
      }),
    );
  }

  const edit = rec(ev.message_edit);
  if (edit) {
    const mid = requireId(edit.mid, 'message_edit.mid');
    const text = typeof edit.text === 'string' ? edit.text : undefined;
    const num = idOf(edit.num_edit);
    return [
      buildEnvelope({
        ...base,
        direction,
        kind: 'edit',
        externalId: mid,
        edit: text !== undefined ? { text } : undefined,
        content: text !== undefined ? { type: 'text', text } : undefined,
        keySuffix: num !== undefined ? `edit${num}` : String(ev.timestamp),
      }),
    ];
  }

  const postback = rec(ev.postback);
  if (postback) {
    const title = str(postback.title);
    const payload = str(postback.payload);
    const ref = rec(postback.referral);
    const mid = idOf(postback.mid) ?? `postback:${senderId}:${String(ev.timestamp)}`;
    return [
      buildEnvelope({
        ...base,
        direction,
        kind: 'message',
        externalId: mid,
        content: {
          type: 'interactive',
          text: title ?? payload ?? '',
          interactive: { title, payload },
          providerType: 'postback',
          referral: ref ? { ref: str(ref.ref), source: str(ref.source), type: str(ref.type), adId: idOf(ref.ad_id) } : undefined,
        },
      }),
    ];
  }

  const reaction = rec(ev.reaction);
  if (reaction) {
    const mid = requireId(reaction.mid, 'reaction.mid');
    const action = str(reaction.action) ?? 'react';
    const name = str(reaction.reaction);
    const emoji = action === 'unreact' ? '' : (str(reaction.emoji) ?? (name ? (REACTION_EMOJI[name] ?? name) : ''));
    return [buildEnvelope({ ...base, direction, kind: 'reaction', externalId: mid, reaction: { emoji }, keySuffix: `${senderId}:${String(ev.timestamp)}` })];
  }

  const delivery = rec(ev.delivery);
  if (delivery) return receipts('delivered', delivery, base);
  const read = rec(ev.read);
  if (read) return receipts('read', read, base);

  opts.onSkip?.('unhandled', { accountId, event: Object.keys(ev).filter((k) => !['sender', 'recipient', 'timestamp'].includes(k)).slice(0, 5) });
  return [];
}

/** Delivery / read receipts: per `mid` (`mids[]` or `mid`), else one watermark envelope. */
function receipts(state: 'delivered' | 'read', r: Rec, base: Omit<Parameters<typeof buildEnvelope>[0], 'direction' | 'kind' | 'externalId'>): Envelope[] {
  const watermark = r.watermark !== undefined ? isoFromMs(r.watermark, 'watermark') : undefined;
  const mids = [...arr(r.mids), r.mid].map(idOf).filter((m): m is string => Boolean(m));
  // Receipts are about OUR messages: the thread is the contact (the sender of the receipt), direction out.
  const common = { ...base, direction: 'out' as const, kind: 'status' as const, keySuffix: state };
  if (mids.length) return [...new Set(mids)].map((mid) => buildEnvelope({ ...common, externalId: mid, status: { state, watermark } }));
  if (!watermark) throw new MalformedItem(`${state} has neither mids nor watermark`);
  return [buildEnvelope({ ...common, externalId: `watermark:${String(r.watermark)}`, status: { state, watermark } })];
}

/** The contents of one `message`: one per attachment (text as the first one's caption), or the text alone. */
function messageContents(m: Rec): EnvelopeContent[] {
  const text = typeof m.text === 'string' ? m.text : undefined;
  const quick = rec(m.quick_reply);
  if (quick) return [{ type: 'interactive', text: text ?? '', interactive: { title: text, payload: str(quick.payload) }, providerType: 'quick_reply' }];
  const atts = arr(m.attachments).map(rec).filter((a): a is Rec => Boolean(a));
  if (!atts.length) {
    if (text !== undefined) return [{ type: 'text', text }];
    return [{ type: 'unsupported', providerType: m.is_unsupported === true ? 'unsupported' : 'empty' }];
  }
  const contents = atts.map(attachmentContent);
  if (text !== undefined && text.length) contents[0] = { ...contents[0], text };
  return contents;
}

/** One attachment as content. Unknown or payload-less attachments are `unsupported` with their type. */
function attachmentContent(a: Rec): EnvelopeContent {
  const type = str(a.type) ?? 'unknown';
  const p = rec(a.payload) ?? {};
  const url = str(p.url);
  const title = str(p.title);
  const media = (t: 'image' | 'video' | 'audio' | 'document' | 'sticker', providerType?: string): EnvelopeContent =>
    url ? { type: t, media: { url }, providerType, text: undefined } : { type: 'unsupported', providerType: type };
  const link = (): EnvelopeContent => (url ? { type: 'text', text: title ?? url, link: { url, title }, providerType: type } : { type: 'unsupported', providerType: type });
  switch (type) {
    case 'image':
      return p.sticker_id !== undefined ? media('sticker', 'sticker') : media('image');
    case 'animated_image_share':
      return media('image', type);
    case 'video':
      return media('video');
    case 'audio':
      return media('audio');
    case 'file':
      return media('document');
    case 'reel':
    case 'ig_reel':
      return { ...media('video', type), ...(url && title ? { text: title } : {}) };
    case 'story_mention':
    case 'share':
      // Instagram: the payload URL is the story / shared post's media asset (expires; download it).
      return media('image', type);
    case 'ig_post':
    case 'post':
    case 'fallback':
      return link();
    case 'like_heart':
      return { type: 'sticker', text: '❤️', providerType: type };
    case 'location': {
      const c = rec(p.coordinates);
      const lat = Number(c?.lat);
      const long = Number(c?.long);
      if (!Number.isFinite(lat) || !Number.isFinite(long)) return { type: 'unsupported', providerType: type };
      return { type: 'location', location: { latitude: lat, longitude: long, name: title, url } };
    }
    default:
      // template, product, appointment_booking, unsupported_type, ephemeral (view-once), ...
      return { type: 'unsupported', providerType: type };
  }
}

// ------------------------------------------------------------------------------------------ sending

/** Per-channel send rules. */
export interface MessagingSendProfile {
  channel: MessagingChannel;
  /** Send API path for a connection: Messenger `{PAGE_ID}/messages`, Instagram `me/messages`. */
  path(conn: AdapterConnection): string;
  /** Longest text of one message: Messenger 2000 characters, Instagram 1000 UTF-8 bytes. */
  maxTextChars?: number;
  maxTextBytes?: number;
  /** Reactions of ours can be sent (`sender_action: react`; Instagram only). */
  reactions?: boolean;
}

/** Attachment type of the Send API for a media type. */
export function messagingAttachmentType(mimeType: string): 'image' | 'video' | 'audio' | 'file' {
  const t = mimeType.toLowerCase();
  if (t.startsWith('image/')) return 'image';
  if (t.startsWith('video/')) return 'video';
  if (t.startsWith('audio/')) return 'audio';
  return 'file';
}

/** Checks the parts every Meta send needs; throws PermanentError (dead-lettered, reported as failed). */
export function requireSendable(conn: AdapterConnection, cmd: SendCommand): { token: string; account: string } {
  if (!conn.accessToken) throw new PermanentError('the connection has no access token');
  if (!conn.externalAccountId) throw new PermanentError('the connection has no Meta account id');
  if (typeof cmd.to !== 'string' || !/^\+?[A-Za-z0-9._:@-]{1,128}$/.test(cmd.to)) throw new PermanentError('the recipient id is missing or invalid');
  return { token: conn.accessToken, account: conn.externalAccountId };
}

/**
 * Sends through the Messenger/Instagram Send API (GRAPH_API.md §3.1, §3.2): `POST {path}` with
 * `{recipient: {id}, messaging_type: 'RESPONSE', message, reply_to?: {mid}}`; resolves with the
 * `message_id` (or `id`, the graph.instagram.com flavour).
 *
 * - Text longer than the channel's limit is split into several messages (on whitespace where possible).
 * - Media goes as `attachment: {type: image|video|audio|file, payload: {url, is_reusable: false}}` with the
 *   command's signed media URL; a caption (a body other than the file name) follows as a text message.
 * - `quotedWid` becomes `reply_to: {mid}` on the first message.
 * The first call's failure is thrown (classified Graph error). Once it succeeded the message exists, so
 * failures of the follow-up parts (caption, further text chunks) are logged, not thrown: a retry would send
 * the first part twice.
 */
export async function sendMessaging(profile: MessagingSendProfile, conn: AdapterConnection, cmd: SendCommand, ctx: AdapterContext): Promise<SendResult> {
  const { token } = requireSendable(conn, cmd);
  const client = new GraphClient({ baseUrl: ctx.graphUrl, timeoutMs: ctx.timeoutMs });
  const path = profile.path(conn);
  const base = { recipient: { id: cmd.to }, messaging_type: 'RESPONSE' };
  const replyTo = cmd.quotedWid ? { reply_to: { mid: cmd.quotedWid } } : {};
  const call = async (message: Rec, withReply: boolean): Promise<string> => {
    const res = await client.request<{ message_id?: unknown; id?: unknown }>({ method: 'POST', path, token, json: { ...base, message, ...(withReply ? replyTo : {}) } });
    const id = idOf(res.message_id) ?? idOf(res.id);
    if (!id) throw new PermanentError('the Send API answered without a message id');
    return id;
  };
  if (cmd.reaction) {
    // Instagram: `sender_action: react|unreact` with the only reaction the API takes, `love` (GRAPH_API.md §3.2).
    if (!profile.reactions) throw new PermanentError(`${profile.channel} does not take reactions`);
    const react = cmd.reaction.emoji ? { sender_action: 'react', payload: { message_id: cmd.reaction.wid, reaction: 'love' } } : { sender_action: 'unreact', payload: { message_id: cmd.reaction.wid } };
    const res = await client.request<{ message_id?: unknown; id?: unknown }>({ method: 'POST', path, token, json: { recipient: { id: cmd.to }, ...react } });
    return { externalId: idOf(res.message_id) ?? idOf(res.id) ?? `reaction:${cmd.reaction.wid}` };
  }
  const body = typeof cmd.body === 'string' ? cmd.body : '';
  const chunks = splitText(body, { maxChars: profile.maxTextChars, maxBytes: profile.maxTextBytes });
  let first: string;
  let rest: string[];
  if (cmd.media) {
    const url = cmd.media.url;
    if (!url || !/^https?:\/\//i.test(url)) throw new PermanentError('the media has no public URL to send');
    first = await call({ attachment: { type: messagingAttachmentType(cmd.media.mimeType ?? ''), payload: { url, is_reusable: false } } }, true);
    rest = body.trim() && body.trim() !== cmd.media.fileName ? chunks : [];
  } else {
    if (!chunks.length) throw new PermanentError('nothing to send: empty body and no media');
    first = await call({ text: chunks[0] }, true);
    rest = chunks.slice(1);
  }
  for (const part of rest) {
    try {
      await call({ text: part }, false);
    } catch (err) {
      ctx.log.warn({ channel: profile.channel, connectionId: conn.id, messageId: cmd.messageId, graph: graphErrorOf(err) ?? String(err) }, 'follow-up part of a message failed; not retried');
      break;
    }
  }
  return { externalId: first };
}

/**
 * A contact's profile through the Graph user-profile endpoints: Messenger `GET /{psid}?fields=first_name,
 * last_name,profile_pic`, Instagram `GET /{igsid}?fields=name,username,profile_pic`.
 */
export async function fetchMessagingProfile(channel: MessagingChannel, conn: AdapterConnection, externalId: string, ctx: AdapterContext): Promise<ContactProfile> {
  if (!conn.accessToken) throw new PermanentError('the connection has no access token');
  if (typeof externalId !== 'string' || !/^[A-Za-z0-9._-]{1,128}$/.test(externalId)) throw new PermanentError('invalid contact id');
  const client = new GraphClient({ baseUrl: ctx.graphUrl, timeoutMs: ctx.timeoutMs });
  const fields = channel === 'facebook' ? 'first_name,last_name,profile_pic' : 'name,username,profile_pic';
  const r = await client.request<Rec>({ method: 'GET', path: encodeURIComponent(externalId), token: conn.accessToken, query: { fields } });
  const firstName = str(r.first_name);
  const lastName = str(r.last_name);
  const username = str(r.username);
  const joined = [firstName, lastName].filter(Boolean).join(' ');
  const name = channel === 'facebook' ? joined || str(r.name) : (str(r.name) ?? username);
  const out: ContactProfile = {};
  if (name) out.name = name;
  if (firstName) out.firstName = firstName;
  if (lastName) out.lastName = lastName;
  if (username) out.username = username;
  const pic = str(r.profile_pic);
  if (pic) out.pictureUrl = pic;
  return out;
}
