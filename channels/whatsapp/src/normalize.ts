import { createHash } from 'node:crypto';
import { ENVELOPE_SCHEMA_VERSION, envelopeId, idempotencyKey, type Envelope, type SkipReason } from '@atendo/sdk';
import { isGroupJid, isIgnoredJid, isLidJid, isPnJid, jidUser, normalizeJid } from './jid';

/**
 * Pure normalization of Baileys (WhatsApp Web) events into envelopes (DESIGN.md §4). No I/O, no clock when
 * `receivedAt` is given, no Baileys import: it reads the events as Baileys emits them live (protobuf
 * objects, `Uint8Array` bytes, `Long` int64) and as they are serialized (base64 strings, int64 as strings,
 * numbers or `{low, high, unsigned}`), see fixtures/channels/SOURCES.md at the repository root.
 *
 * Events handled (argument shapes of `sock.ev`):
 * - `messages.upsert` `{messages: WAMessage[], type}`: messages (text, media, location, contacts,
 *   interactive replies; `direction: 'out'` for `fromMe`), reactions (`reactionMessage`), deletes
 *   (`protocolMessage` REVOKE) and edits (`editedMessage` / `protocolMessage` MESSAGE_EDIT).
 * - `messages.update` `WAMessageUpdate[]`: delivery statuses, revoke stubs (delete), edits.
 * - `messages.reaction` `{key, reaction}[]`, `message-receipt.update` `{key, receipt}[]` (group receipts).
 * - `presence.update` `{id, presences}` (typing), `connection.update` (connection state).
 *
 * Addressing: a 1:1 thread's `externalId` is the contact's phone digits when a phone JID is known (the chat
 * JID or its `remoteJidAlt` / `senderPn`), else the LID's user part; a group thread's `externalId` is the
 * group id (user part of `…@g.us`). Senders keep both forms where present: `jid` (phone JID), `phone`
 * (digits), `lid` (`…@lid`). Status broadcasts, broadcast lists and newsletters are skipped.
 *
 * Idempotency keys (`whatsapp:<connectionId>:<kind>:<externalId>[:suffix]`) are built so that the two ways
 * Baileys reports one fact give one key: a revoke seen in `messages.upsert` and in `messages.update` →
 * `delete:<id>`; an edit → `edit:<id>:<hash of the new text>`; a reaction → `reaction:<reacted id>:<id of
 * the reaction message>`; a status → `status:<id>:<state>[:<reader>]`.
 */

/** Per-call context: the connection the events belong to, and optional facts that keep the call pure. */
export interface NormalizeContext {
  companyId: number;
  connectionId: number;
  /** ISO time the events were received; used for events without a timestamp (default: now). */
  receivedAt?: string;
  /** Our own account (`sock.user`): names the sender of our own messages when known. */
  me?: { id?: string | null; lid?: string | null; name?: string | null };
  /** Called for every item left out, with loggable ids (never message text). */
  onSkip?(reason: SkipReason, detail: Record<string, unknown>): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;
type Party = NonNullable<Envelope['sender']>;
type Content = NonNullable<Envelope['content']>;
type MediaRef = NonNullable<Content['media']>;

// ---------------------------------------------------------------------------------------------------
// Scalars

/** An int64 as Baileys hands it over (number, digit string, bigint or `Long` `{low, high, unsigned}`) as a number. */
export function int64(v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') return /^\s*-?\d{1,20}\s*$/.test(v) ? Number(v) : undefined;
  if (typeof v === 'object') {
    const l = v as { low?: unknown; high?: unknown; unsigned?: unknown };
    if (typeof l.low === 'number' && typeof l.high === 'number') {
      const high = l.unsigned ? l.high >>> 0 : l.high;
      return high * 4294967296 + (l.low >>> 0);
    }
  }
  return undefined;
}

/** Bytes as base64: `Uint8Array`/`Buffer`, a base64 string (kept), or BufferJSON's `{type: 'Buffer', data}`. */
export function base64(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (typeof v === 'object') {
    const b = v as { type?: unknown; data?: unknown };
    if (b.type === 'Buffer' && typeof b.data === 'string') return b.data;
    if (b.type === 'Buffer' && Array.isArray(b.data)) return Buffer.from(b.data as number[]).toString('base64');
  }
  return undefined;
}

/**
 * A JSON-safe copy of a Baileys object (for `raw` / the message's `dataJson`): bytes as base64 strings,
 * int64 (`Long`, bigint) as numbers, no functions, `undefined`/`null` members dropped. Bounded depth.
 */
export function jsonSafe(v: unknown, depth = 0): unknown {
  if (depth > 24) return undefined;
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'function' || typeof v === 'symbol') return undefined;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => jsonSafe(x, depth + 1) ?? null);
  const o = v as Obj;
  if (typeof o.low === 'number' && typeof o.high === 'number' && Object.keys(o).every((k) => k === 'low' || k === 'high' || k === 'unsigned')) return int64(o);
  if (o.type === 'Buffer' && (typeof o.data === 'string' || Array.isArray(o.data))) return base64(o);
  const out: Obj = {};
  for (const k of Object.keys(o)) {
    const x = jsonSafe(o[k], depth + 1);
    if (x !== undefined) out[k] = x;
  }
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** ISO time of `seconds` (or `ms` when `isMs`); undefined for missing or absurd values. */
function isoOf(v: unknown, isMs = false): string | undefined {
  const n = int64(v);
  if (n === undefined || n <= 0) return undefined;
  const ms = isMs ? n : n * 1000;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) || ms > 8.64e15 ? undefined : d.toISOString();
}

// ---------------------------------------------------------------------------------------------------
// Addressing

/** A party from candidate JIDs (phone JID and/or LID in any order); undefined when none is usable. */
export function partyOf(candidates: unknown[], name?: unknown): Party | undefined {
  let pn: string | undefined;
  let lid: string | undefined;
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const n = normalizeJid(c);
    if (!n) continue;
    if (!pn && isPnJid(n)) pn = n;
    else if (!lid && isLidJid(n)) lid = n;
  }
  if (!pn && !lid) return undefined;
  const party: Party = { externalId: jidUser(pn ?? lid) };
  const displayName = str(name);
  if (displayName) party.name = displayName;
  if (pn) {
    party.phone = jidUser(pn);
    party.jid = pn;
  }
  if (lid) party.lid = lid;
  return party;
}

/** The alternative JIDs of a key's chat (1:1): Baileys 7 `remoteJidAlt`, older `senderPn` / `senderLid`. */
const chatAlts = (key: Obj): unknown[] => [key.remoteJid, key.remoteJidAlt, key.senderPn, key.senderLid];
/** The alternative JIDs of a key's participant (groups): `participantAlt`, older `participantPn` / `participantLid`. */
const participantAlts = (key: Obj): unknown[] => [key.participant, key.participantAlt, key.participantPn, key.participantLid];

interface Addressing {
  thread: Envelope['thread'];
  /** Who sent the message the key names (undefined for our own 1:1 messages when `me` is unknown). */
  sender?: Party;
  direction: 'in' | 'out';
}

/** Thread, sender and direction of a message key; undefined for chats we do not serve or malformed keys. */
function addressing(key: Obj | undefined, ctx: NormalizeContext, pushName?: unknown): Addressing | undefined {
  const remote = key?.remoteJid;
  if (typeof remote !== 'string' || isIgnoredJid(remote)) return undefined;
  const fromMe = key?.fromMe === true;
  const direction = fromMe ? 'out' : 'in';
  const me = () => partyOf([ctx.me?.id, ctx.me?.lid], ctx.me?.name);
  if (isGroupJid(remote)) {
    const id = jidUser(remote);
    if (!id) return undefined;
    const sender = partyOf(participantAlts(key!), fromMe ? (ctx.me?.name ?? pushName) : pushName) ?? (fromMe ? me() : undefined);
    return { thread: { externalId: id, isGroup: true }, sender, direction };
  }
  const contact = partyOf(chatAlts(key!), fromMe ? undefined : pushName);
  if (!contact) return undefined;
  return { thread: { externalId: contact.externalId, isGroup: false }, sender: fromMe ? me() : contact, direction };
}

// ---------------------------------------------------------------------------------------------------
// Message content

/** Wrappers whose `.message` holds the real content (unwrapped before reading the content). */
const WRAPPERS = [
  'ephemeralMessage',
  'viewOnceMessage',
  'viewOnceMessageV2',
  'viewOnceMessageV2Extension',
  'documentWithCaptionMessage',
  'deviceSentMessage',
  'groupMentionedMessage',
  'botInvokeMessage',
  'lottieStickerMessage',
  'associatedChildMessage',
] as const;
/** Keys that travel beside the content and are not content themselves. */
const SIDE_KEYS = new Set(['messageContextInfo', 'senderKeyDistributionMessage', 'fastRatchetKeySenderKeyDistributionMessage']);

/** Removes the wrappers (`ephemeralMessage`, `viewOnceMessage*`, `documentWithCaptionMessage`, ...). */
export function unwrapMessage(message: unknown): Obj | undefined {
  let m = message && typeof message === 'object' ? (message as Obj) : undefined;
  for (let i = 0; m && i < 8; i++) {
    const w = WRAPPERS.find((k) => m![k] && typeof m![k] === 'object' && m![k].message);
    if (!w) break;
    m = m[w].message as Obj;
  }
  return m;
}

/** The content key of an (unwrapped) message: its first non-empty member that is not a side key. */
function contentKey(m: Obj): string | undefined {
  return Object.keys(m).find((k) => !SIDE_KEYS.has(k) && m[k] !== null && m[k] !== undefined && m[k] !== '');
}

/** The text of a message body: conversation, extended text, or a media caption. */
export function textOf(message: unknown): string | undefined {
  const m = unwrapMessage(message);
  if (!m) return undefined;
  if (typeof m.conversation === 'string') return m.conversation;
  for (const k of ['extendedTextMessage']) if (typeof m[k]?.text === 'string') return m[k].text as string;
  for (const k of ['imageMessage', 'videoMessage', 'documentMessage']) if (typeof m[k]?.caption === 'string') return m[k].caption as string;
  return undefined;
}

const MEDIA_TYPES: Record<string, 'image' | 'video' | 'audio' | 'document' | 'sticker'> = {
  imageMessage: 'image',
  videoMessage: 'video',
  ptvMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
};

/**
 * What a Baileys download needs, JSON-safe: `messageType` (the content key, e.g. `imageMessage`),
 * `mediaType` (Baileys' media type for `downloadContentFromMessage`), `url`, `directPath`, `mediaKey`,
 * `fileEncSha256`, `fileSha256` (base64), `mediaKeyTimestamp` (seconds), `fileLength` (bytes).
 * `session.ts` rebuilds a downloadable message from it (`messageFromDownloadHint`).
 */
export interface BaileysDownloadHint {
  messageType: string;
  mediaType: 'image' | 'video' | 'audio' | 'document' | 'sticker';
  url?: string;
  directPath?: string;
  mediaKey?: string;
  fileEncSha256?: string;
  fileSha256?: string;
  mediaKeyTimestamp?: number;
  fileLength?: number;
}

function mediaOf(messageType: string, v: Obj): MediaRef {
  const mediaType = MEDIA_TYPES[messageType];
  const hint: BaileysDownloadHint = { messageType, mediaType };
  const set = <K extends keyof BaileysDownloadHint>(k: K, val: BaileysDownloadHint[K] | undefined) => {
    if (val !== undefined) hint[k] = val;
  };
  set('url', str(v.url));
  set('directPath', str(v.directPath));
  set('mediaKey', base64(v.mediaKey));
  set('fileEncSha256', base64(v.fileEncSha256));
  set('fileSha256', base64(v.fileSha256));
  set('mediaKeyTimestamp', int64(v.mediaKeyTimestamp));
  set('fileLength', int64(v.fileLength));
  const media: MediaRef = { downloadHint: hint };
  if (str(v.url)) media.url = v.url;
  if (str(v.mimetype)) media.mimeType = v.mimetype;
  if (mediaType === 'document' && str(v.fileName ?? v.title)) media.fileName = String(v.fileName ?? v.title);
  const size = int64(v.fileLength);
  if (size !== undefined && size >= 0 && Number.isInteger(size)) media.size = size;
  const seconds = int64(v.seconds);
  if ((mediaType === 'audio' || mediaType === 'video') && seconds !== undefined && seconds >= 0) media.durationSeconds = seconds;
  if (mediaType === 'audio') media.voice = v.ptt === true;
  const sha = base64(v.fileSha256);
  if (sha) media.sha256 = sha;
  return media;
}

/** Whether a `protocolMessage.type` (number or enum name; absent = 0) is REVOKE / MESSAGE_EDIT. */
const isRevoke = (t: unknown) => t === undefined || t === null || t === 0 || t === 'REVOKE';
const isEditType = (t: unknown) => t === 14 || t === 'MESSAGE_EDIT';

/** An edit carried by a message: the edited message's id, the new text and when (ms), if it is one. */
function editOf(message: Obj, ownId: string | undefined): { targetId?: string; text: string; atMs?: number } | undefined {
  const inner = message.editedMessage?.message as Obj | undefined;
  const pm = (inner?.protocolMessage ?? message.protocolMessage) as Obj | undefined;
  if (pm && isEditType(pm.type)) {
    return { targetId: str(pm.key?.id) ?? ownId, text: textOf(pm.editedMessage) ?? '', atMs: int64(pm.timestampMs) };
  }
  if (inner) return { targetId: ownId, text: textOf(inner) ?? '' };
  return undefined;
}

/** Short stable hash of an edit's text (keeps the idempotency key of one edit equal on both event paths). */
const textHash = (t: string) => createHash('sha256').update(t).digest('hex').slice(0, 16);

/** Content of an ordinary message, with reply and forward facts; undefined when there is nothing to show. */
function contentOf(m: Obj): { content: Content; replyTo?: string } | undefined {
  const key = contentKey(m);
  if (!key) return undefined;
  const v = (m[key] ?? {}) as Obj;
  const ctxInfo = (typeof v === 'object' && v ? v.contextInfo : undefined) as Obj | undefined;
  let content: Content;
  switch (key) {
    case 'conversation':
      content = { type: 'text', text: String(m.conversation) };
      break;
    case 'extendedTextMessage':
      content = { type: 'text', text: String(v.text ?? '') };
      break;
    case 'imageMessage':
    case 'videoMessage':
    case 'ptvMessage':
    case 'audioMessage':
    case 'documentMessage':
    case 'stickerMessage': {
      content = { type: MEDIA_TYPES[key], media: mediaOf(key, v) };
      if (typeof v.caption === 'string' && v.caption !== '') content.text = v.caption;
      break;
    }
    case 'locationMessage':
    case 'liveLocationMessage': {
      const latitude = Number(v.degreesLatitude);
      const longitude = Number(v.degreesLongitude);
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return undefined;
      const location: NonNullable<Content['location']> = { latitude, longitude };
      if (str(v.name)) location.name = v.name;
      if (str(v.address)) location.address = v.address;
      if (str(v.url)) location.url = v.url;
      content = { type: 'location', location };
      if (str(v.comment ?? v.caption)) content.text = String(v.comment ?? v.caption);
      if (key === 'liveLocationMessage') content.providerType = key;
      break;
    }
    case 'contactMessage':
      content = { type: 'contact', vcards: str(v.vcard) ? [v.vcard] : [] };
      if (str(v.displayName)) content.text = v.displayName;
      break;
    case 'contactsArrayMessage': {
      const list = (Array.isArray(v.contacts) ? v.contacts : []) as Obj[];
      content = { type: 'contact', vcards: list.map((c) => c?.vcard).filter((x): x is string => typeof x === 'string' && x !== '') };
      const names = list.map((c) => c?.displayName).filter((x): x is string => typeof x === 'string' && x !== '');
      if (str(v.displayName) || names.length) content.text = str(v.displayName) ?? names.join(', ');
      break;
    }
    case 'buttonsResponseMessage':
      content = { type: 'interactive', providerType: key, interactive: pick({ id: v.selectedButtonId, title: v.selectedDisplayText }) };
      if (str(v.selectedDisplayText)) content.text = v.selectedDisplayText;
      break;
    case 'templateButtonReplyMessage':
      content = { type: 'interactive', providerType: key, interactive: pick({ id: v.selectedId, title: v.selectedDisplayText }) };
      if (str(v.selectedDisplayText)) content.text = v.selectedDisplayText;
      break;
    case 'listResponseMessage':
      content = { type: 'interactive', providerType: key, interactive: pick({ id: v.singleSelectReply?.selectedRowId, title: v.title, description: v.description }) };
      if (str(v.title)) content.text = v.title;
      break;
    case 'interactiveResponseMessage':
      content = {
        type: 'interactive',
        providerType: key,
        interactive: pick({ id: v.nativeFlowResponseMessage?.name, title: v.body?.text, payload: v.nativeFlowResponseMessage?.paramsJson }),
      };
      if (str(v.body?.text)) content.text = v.body.text;
      break;
    case 'pollCreationMessage':
    case 'pollCreationMessageV2':
    case 'pollCreationMessageV3':
      content = { type: 'unsupported', providerType: key };
      if (str(v.name)) content.text = v.name;
      break;
    default:
      content = { type: 'unsupported', providerType: key };
      if (typeof v === 'object' && v && str(v.text ?? v.caption)) content.text = String(v.text ?? v.caption);
  }
  const out: { content: Content; replyTo?: string } = { content };
  if (ctxInfo && typeof ctxInfo === 'object') {
    if (ctxInfo.isForwarded === true || (int64(ctxInfo.forwardingScore) ?? 0) > 0) content.forwarded = true;
    if (str(ctxInfo.stanzaId)) out.replyTo = ctxInfo.stanzaId;
    // Click-to-WhatsApp ads and link cards: the ad's link and kind.
    const ad = ctxInfo.externalAdReply as Obj | undefined;
    if (ad && typeof ad === 'object') {
      const url = str(ad.sourceUrl) ?? str(ad.mediaUrl);
      if (url) content.link = { url, ...(str(ad.title) ? { title: ad.title as string } : {}) };
      content.referral = { source: 'ad', ...pick({ type: ad.mediaType, adId: ad.sourceId, ref: ad.ref }) };
    }
  }
  return out;
}

/** The defined string members of `o` (for optional schema objects). */
function pick<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: string } {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'string' && v !== '') out[k] = v;
  return out as { [K in keyof T]?: string };
}

// ---------------------------------------------------------------------------------------------------
// Envelope assembly

type Draft = Omit<Envelope, 'schemaVersion' | 'id' | 'idempotencyKey' | 'companyId' | 'connectionId' | 'channel'>;

function envelope(ctx: NormalizeContext, draft: Draft, suffix?: string): Envelope {
  const key = idempotencyKey('whatsapp', ctx.connectionId, draft.kind, draft.externalId, suffix);
  const out: Envelope = {
    schemaVersion: ENVELOPE_SCHEMA_VERSION,
    id: envelopeId(key),
    idempotencyKey: key,
    companyId: ctx.companyId,
    connectionId: ctx.connectionId,
    channel: 'whatsapp',
    ...draft,
  };
  if (!out.sender) delete out.sender;
  return out;
}

const receivedAt = (ctx: NormalizeContext) => ctx.receivedAt ?? new Date().toISOString();

/** One WAMessage (a `messages.upsert` item) to zero or one envelope. */
export function normalizeMessage(msg: Obj, ctx: NormalizeContext): Envelope[] {
  const key = msg?.key as Obj | undefined;
  const id = str(key?.id);
  const skip = (reason: SkipReason, why: string) => {
    ctx.onSkip?.(reason, { event: 'messages.upsert', id, why });
    return [];
  };
  if (!key || !id) return skip('malformed', 'no key id');
  const addr = addressing(key, ctx, msg.pushName);
  if (!addr) return skip('unhandled', 'chat not served (status, broadcast, newsletter) or no usable JID');
  const message = unwrapMessage(msg.message);
  if (!message) return skip('unhandled', 'no message (stub or undecryptable)');
  const occurredAt = isoOf(msg.messageTimestamp) ?? receivedAt(ctx);
  const raw = jsonSafe(msg);
  const base = { direction: addr.direction, thread: addr.thread, sender: addr.sender, raw };

  const edit = editOf(message, id);
  if (edit) {
    if (!edit.targetId) return skip('malformed', 'edit without target');
    return [envelope(ctx, { ...base, kind: 'edit', occurredAt: isoOf(edit.atMs, true) ?? occurredAt, externalId: edit.targetId, edit: { text: edit.text } }, textHash(edit.text))];
  }
  if (message.protocolMessage) {
    const pm = message.protocolMessage as Obj;
    const target = str(pm.key?.id);
    if (isRevoke(pm.type) && target) return [envelope(ctx, { ...base, kind: 'delete', occurredAt, externalId: target })];
    return skip('unhandled', `protocolMessage type ${String(pm.type)}`);
  }
  if (message.reactionMessage) {
    const r = message.reactionMessage as Obj;
    const target = str(r.key?.id);
    if (!target) return skip('malformed', 'reaction without target');
    return [
      envelope(
        ctx,
        { ...base, kind: 'reaction', occurredAt: isoOf(r.senderTimestampMs, true) ?? occurredAt, externalId: target, reaction: { emoji: typeof r.text === 'string' ? r.text : '' } },
        id,
      ),
    ];
  }
  const c = contentOf(message);
  if (!c) return skip('unhandled', 'no content');
  const draft: Draft = { ...base, kind: 'message', occurredAt, externalId: id, content: c.content };
  if (c.replyTo) draft.replyTo = { externalId: c.replyTo };
  return [envelope(ctx, draft)];
}

/** `proto.WebMessageInfo.Status` (number or enum name) as a status state; undefined for ERROR-less pending. */
function statusState(s: unknown): 'sent' | 'delivered' | 'read' | 'played' | 'failed' | undefined {
  switch (s) {
    case 0:
    case 'ERROR':
      return 'failed';
    case 2:
    case 'SERVER_ACK':
      return 'sent';
    case 3:
    case 'DELIVERY_ACK':
      return 'delivered';
    case 4:
    case 'READ':
      return 'read';
    case 5:
    case 'PLAYED':
      return 'played';
    default:
      return undefined;
  }
}

/** One `messages.update` item: status, revoke stub (delete) or edit. */
function normalizeUpdate(item: Obj, ctx: NormalizeContext): Envelope[] {
  const key = item?.key as Obj | undefined;
  const update = item?.update as Obj | undefined;
  const id = str(key?.id);
  if (!key || !id || !update || typeof update !== 'object') {
    ctx.onSkip?.('malformed', { event: 'messages.update', id });
    return [];
  }
  const addr = addressing(key, ctx);
  if (!addr) {
    ctx.onSkip?.('unhandled', { event: 'messages.update', id, why: 'chat not served' });
    return [];
  }
  const occurredAt = isoOf(update.messageTimestamp) ?? receivedAt(ctx);
  const raw = jsonSafe(item);
  const base = { direction: addr.direction, thread: addr.thread, raw };
  const out: Envelope[] = [];
  if (update.message === null && (update.messageStubType === 1 || update.messageStubType === 'REVOKE')) {
    out.push(envelope(ctx, { ...base, kind: 'delete', occurredAt, externalId: id }));
  } else if (update.message && typeof update.message === 'object') {
    const edit = editOf(update.message as Obj, id);
    if (edit?.targetId) out.push(envelope(ctx, { ...base, kind: 'edit', occurredAt: isoOf(edit.atMs, true) ?? occurredAt, externalId: edit.targetId, edit: { text: edit.text } }, textHash(edit.text)));
  }
  const state = update.status !== undefined && update.status !== null ? statusState(update.status) : undefined;
  if (state) {
    const status: NonNullable<Envelope['status']> = { state };
    if (state === 'failed') status.error = { title: 'WhatsApp reported the message as failed', retryable: false };
    out.push(envelope(ctx, { ...base, kind: 'status', occurredAt, externalId: id, status }, state));
  }
  if (!out.length) ctx.onSkip?.('unhandled', { event: 'messages.update', id, keys: Object.keys(update) });
  return out;
}

/** One `messages.reaction` item: the outer key is the reacted message, `reaction.key` the reaction's own. */
function normalizeReaction(item: Obj, ctx: NormalizeContext): Envelope[] {
  const target = str(item?.key?.id);
  const r = item?.reaction as Obj | undefined;
  const own = r?.key as Obj | undefined;
  if (!target || !r) {
    ctx.onSkip?.('malformed', { event: 'messages.reaction', id: target });
    return [];
  }
  const addr = addressing(own && own.remoteJid ? own : item.key, ctx);
  if (!addr) {
    ctx.onSkip?.('unhandled', { event: 'messages.reaction', id: target, why: 'chat not served' });
    return [];
  }
  const occurredAt = isoOf(r.senderTimestampMs, true) ?? receivedAt(ctx);
  const suffix = str(own?.id) ?? `${addr.sender?.externalId ?? 'me'}:${int64(r.senderTimestampMs) ?? ''}`;
  return [
    envelope(
      ctx,
      { direction: addr.direction, thread: addr.thread, sender: addr.sender, kind: 'reaction', occurredAt, externalId: target, reaction: { emoji: typeof r.text === 'string' ? r.text : '' }, raw: jsonSafe(item) },
      suffix,
    ),
  ];
}

/** One `message-receipt.update` item (group receipts): a status of the message, per reader. */
function normalizeReceipt(item: Obj, ctx: NormalizeContext): Envelope[] {
  const key = item?.key as Obj | undefined;
  const receipt = item?.receipt as Obj | undefined;
  const id = str(key?.id);
  const addr = key ? addressing(key, ctx) : undefined;
  if (!id || !receipt || !addr) {
    ctx.onSkip?.(id && receipt ? 'unhandled' : 'malformed', { event: 'message-receipt.update', id });
    return [];
  }
  const [state, at] =
    receipt.playedTimestamp != null ? (['played', receipt.playedTimestamp] as const)
    : receipt.readTimestamp != null ? (['read', receipt.readTimestamp] as const)
    : receipt.receiptTimestamp != null ? (['delivered', receipt.receiptTimestamp] as const)
    : ([undefined, undefined] as const);
  if (!state) {
    ctx.onSkip?.('unhandled', { event: 'message-receipt.update', id, why: 'no timestamp' });
    return [];
  }
  const reader = partyOf([receipt.userJid]);
  return [
    envelope(
      ctx,
      { direction: addr.direction, thread: addr.thread, sender: reader, kind: 'status', occurredAt: isoOf(at) ?? receivedAt(ctx), externalId: id, status: { state }, raw: jsonSafe(item) },
      `${state}:${reader?.externalId ?? ''}`,
    ),
  ];
}

const TYPING_STATES = new Set(['composing', 'recording', 'paused', 'available', 'unavailable']);

/** `presence.update` `{id, presences}`: one typing envelope per participant. */
function normalizePresence(data: Obj, ctx: NormalizeContext): Envelope[] {
  const chat = str(data?.id);
  const addr = chat ? addressing({ remoteJid: chat, fromMe: false }, ctx) : undefined;
  if (!chat || !addr || !data.presences || typeof data.presences !== 'object') {
    ctx.onSkip?.(chat ? 'unhandled' : 'malformed', { event: 'presence.update', id: chat });
    return [];
  }
  const occurredAt = receivedAt(ctx);
  const out: Envelope[] = [];
  for (const [jid, p] of Object.entries(data.presences as Obj)) {
    const state = (p as Obj)?.lastKnownPresence;
    if (!TYPING_STATES.has(state)) continue;
    const sender = partyOf([jid]);
    const mine = Boolean(ctx.me && [ctx.me.id, ctx.me.lid].some((m) => m && normalizeJid(m) === normalizeJid(jid)));
    out.push(
      envelope(
        ctx,
        { direction: mine ? 'out' : 'in', thread: addr.thread, sender, kind: 'typing', occurredAt, externalId: addr.thread.externalId, typing: { state }, raw: jsonSafe({ id: chat, jid, presence: p }) },
        `${sender?.externalId ?? ''}:${state}:${Date.parse(occurredAt)}`,
      ),
    );
  }
  return out;
}

/** Names of Baileys' `DisconnectReason` codes. */
export const DISCONNECT_REASONS: Record<number, string> = {
  401: 'loggedOut',
  403: 'forbidden',
  408: 'connectionLost',
  411: 'multideviceMismatch',
  428: 'connectionClosed',
  440: 'connectionReplaced',
  500: 'badSession',
  503: 'unavailableService',
  515: 'restartRequired',
};

/** The HTTP-like status code of a `lastDisconnect.error` (a Boom, live or JSON-serialized). */
export function disconnectCode(error: unknown): number | undefined {
  const e = error as Obj | undefined;
  const code = e?.output?.statusCode ?? e?.output?.payload?.statusCode ?? e?.statusCode ?? e?.data?.reason;
  const n = typeof code === 'string' ? Number(code) : code;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** `connection.update`: qr -> `qrcode`, connecting -> `OPENING`, open -> `CONNECTED`, close -> `DISCONNECTED`. */
function normalizeConnection(data: Obj, ctx: NormalizeContext): Envelope[] {
  let status: string | undefined;
  const connection: NonNullable<Envelope['connection']> = { status: '' };
  if (str(data?.qr)) {
    status = 'qrcode';
    connection.qrcode = data.qr;
  } else if (data?.connection === 'connecting') status = 'OPENING';
  else if (data?.connection === 'open') status = 'CONNECTED';
  else if (data?.connection === 'close') {
    status = 'DISCONNECTED';
    const err = data.lastDisconnect?.error as Obj | undefined;
    const code = disconnectCode(err);
    if (code !== undefined) {
      connection.reason = DISCONNECT_REASONS[code] ?? String(code);
      const error: NonNullable<NonNullable<Envelope['connection']>['error']> = { code: String(code), retryable: code !== 401 && code !== 403 && code !== 500 && code !== 411 };
      if (str(err?.output?.payload?.error)) error.title = err!.output.payload.error;
      if (str(err?.output?.payload?.message ?? err?.message)) error.detail = String(err!.output?.payload?.message ?? err!.message);
      connection.error = error;
    }
  }
  if (!status) {
    ctx.onSkip?.('unhandled', { event: 'connection.update', keys: Object.keys(data ?? {}) });
    return [];
  }
  connection.status = status;
  const date = data.lastDisconnect?.date;
  const occurredAt = (date instanceof Date ? date.toISOString() : typeof date === 'string' && !Number.isNaN(Date.parse(date)) ? new Date(date).toISOString() : undefined) ?? receivedAt(ctx);
  const self = String(ctx.connectionId);
  return [
    envelope(
      ctx,
      { direction: 'in', thread: { externalId: self, isGroup: false }, kind: 'connection', occurredAt, externalId: self, connection, raw: jsonSafe(data) },
      `${status}:${Date.parse(occurredAt)}`,
    ),
  ];
}

/** The events `normalizeEvent` understands. */
export const NORMALIZED_EVENTS = ['messages.upsert', 'messages.update', 'messages.reaction', 'message-receipt.update', 'presence.update', 'connection.update'] as const;

/**
 * One Baileys event (name and argument, as `sock.ev` emits it) to envelopes. Unknown events and items that
 * cannot be used give no envelope (reported through `ctx.onSkip`); it never throws.
 */
export function normalizeEvent(event: string, data: unknown, ctx: NormalizeContext): Envelope[] {
  try {
    const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
    switch (event) {
      case 'messages.upsert':
        return list((data as Obj)?.messages).flatMap((m) => normalizeMessage(m, ctx));
      case 'messages.update':
        return list(data).flatMap((u) => normalizeUpdate(u, ctx));
      case 'messages.reaction':
        return list(data).flatMap((r) => normalizeReaction(r, ctx));
      case 'message-receipt.update':
        return list(data).flatMap((r) => normalizeReceipt(r, ctx));
      case 'presence.update':
        return normalizePresence(data as Obj, ctx);
      case 'connection.update':
        return normalizeConnection(data as Obj, ctx);
      default:
        ctx.onSkip?.('unhandled', { event });
        return [];
    }
  } catch (err) {
    ctx.onSkip?.('malformed', { event, error: (err as Error)?.message });
    return [];
  }
}
