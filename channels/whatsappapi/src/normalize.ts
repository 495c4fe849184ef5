import { createHash } from 'node:crypto';
import type { Envelope, NormalizeOptions } from '@atendo/sdk';
import {
  arr,
  buildEnvelope,
  envelopeErrorOf,
  idOf,
  isoFromSeconds,
  MalformedItem,
  perItem,
  rec,
  requireId,
  str,
  type EnvelopeContent,
  type Rec,
  type Resolve,
} from '@atendo/channel-meta-common';

/**
 * WhatsApp Cloud API webhooks (`object: "whatsapp_business_account"`) to envelopes (GRAPH_API.md §2,
 * fixtures `whatsapp-cloud/`). Events live in `entry[].changes[]` with `field: "messages"`; the connection
 * is found by `value.metadata.phone_number_id`.
 *
 * - `value.messages[]` -> kind `message` (text, image/video/audio/document/sticker with caption, location,
 *   contacts -> vCard 3.0 texts, interactive button/list replies and template quick-reply buttons ->
 *   `interactive`, `unsupported`/`unknown` -> `unsupported` with the provider's type), except
 *   `reaction` -> kind `reaction` (emoji '' when removed), `edit` -> kind `edit` (new text or caption, and
 *   the new content), `revoke` -> kind `delete`. `context.id` -> `replyTo`; `context.forwarded` ->
 *   `content.forwarded`. Sender name from `value.contacts[].profile.name`.
 * - `value.statuses[]` -> kind `status` (`sent`, `delivered`, `read`, `played`, `failed` with the first
 *   error's code/title/detail and whether it is retryable), direction `out`, key suffix = the state.
 * - `value.errors[]` -> kind `connection`, `connection.status: 'account_error'` with the error (an
 *   account-level problem such as 130429; no message id, so `externalId` is the phone-number id and the key
 *   suffix a hash of the error).
 * - `value.message_echoes[]` (coexistence numbers) -> kind `message`, direction `out`, thread = `to`.
 * Other fields (account updates, templates) are skipped as `unhandled`.
 */
export function whatsappAccountIds(raw: unknown): string[] {
  const ids = new Set<string>();
  for (const e of arr(rec(raw)?.entry)) {
    for (const c of arr(rec(e)?.changes)) {
      const id = idOf(rec(rec(rec(c)?.value)?.metadata)?.phone_number_id);
      if (id) ids.add(id);
    }
  }
  return [...ids];
}

interface Target {
  companyId: number;
  connectionId: number;
}

/** Normalizes one webhook body. Pure (given `opts.receivedAt`); never throws: bad items are reported through `opts.onSkip`. */
export function normalizeWhatsapp(raw: unknown, resolve: Resolve, opts: NormalizeOptions = {}): Envelope[] {
  const entries = rec(raw)?.entry;
  if (!Array.isArray(entries)) {
    opts.onSkip?.('malformed', { reason: 'body has no entry array' });
    return [];
  }
  const out: Envelope[] = [];
  entries.forEach((entry, entryIndex) => {
    out.push(
      ...perItem(opts.onSkip, { entryIndex }, () => {
        const e = rec(entry);
        if (!e || !Array.isArray(e.changes)) throw new MalformedItem('entry has no changes array');
        const res: Envelope[] = [];
        e.changes.forEach((change, changeIndex) => {
          res.push(...perItem(opts.onSkip, { entryIndex, changeIndex }, () => changeEnvelopes(change, resolve, opts, { entryIndex, changeIndex })));
        });
        return res;
      }),
    );
  });
  return out;
}

function changeEnvelopes(change: unknown, resolve: Resolve, opts: NormalizeOptions, at: Record<string, number>): Envelope[] {
  const c = rec(change);
  if (!c) throw new MalformedItem('change is not an object');
  const value = rec(c.value);
  if (c.field !== 'messages') {
    opts.onSkip?.('unhandled', { ...at, field: typeof c.field === 'string' ? c.field.slice(0, 64) : null });
    return [];
  }
  if (!value) throw new MalformedItem('change.value is missing');
  const phoneId = requireId(rec(value.metadata)?.phone_number_id, 'metadata.phone_number_id');
  const target = resolve(phoneId);
  if (!target) {
    opts.onSkip?.('unknown_account', { channel: 'whatsappapi', accountId: phoneId });
    return [];
  }
  const names = new Map<string, string>();
  for (const ct of arr(value.contacts)) {
    const r = rec(ct);
    const waId = idOf(r?.wa_id);
    const name = str(rec(r?.profile)?.name);
    if (waId && name) names.set(waId, name);
  }
  const out: Envelope[] = [];
  arr(value.messages).forEach((m, i) => out.push(...perItem(opts.onSkip, { ...at, message: i }, () => messageEnvelopes(target, m, names, 'in'))));
  arr(value.message_echoes).forEach((m, i) => out.push(...perItem(opts.onSkip, { ...at, echo: i }, () => messageEnvelopes(target, m, names, 'out'))));
  arr(value.statuses).forEach((s, i) => out.push(...perItem(opts.onSkip, { ...at, status: i }, () => statusEnvelopes(target, s))));
  arr(value.errors).forEach((er, i) => out.push(...perItem(opts.onSkip, { ...at, error: i }, () => accountErrorEnvelopes(target, phoneId, er, opts))));
  return out;
}

function base(target: Target) {
  return { companyId: target.companyId, connectionId: target.connectionId, channel: 'whatsappapi' as const };
}

function messageEnvelopes(target: Target, raw: unknown, names: Map<string, string>, direction: 'in' | 'out'): Envelope[] {
  const m = rec(raw);
  if (!m) throw new MalformedItem('message is not an object');
  const id = requireId(m.id, 'message.id');
  const from = requireId(m.from, 'message.from');
  const groupId = idOf(m.group_id);
  const contact = direction === 'in' ? from : requireId(m.to, 'message_echoes.to');
  const thread = groupId ? { externalId: groupId, isGroup: true } : { externalId: contact, isGroup: false };
  const sender = { externalId: from, name: direction === 'in' ? names.get(from) : undefined, phone: /^\d{5,20}$/.test(from) ? from : undefined };
  const common = { ...base(target), direction, occurredAt: isoFromSeconds(m.timestamp), thread, sender, raw: m };
  const type = str(m.type) ?? 'unknown';
  const context = rec(m.context);

  if (type === 'reaction') {
    const r = rec(m.reaction);
    const targetId = requireId(r?.message_id, 'reaction.message_id');
    return [buildEnvelope({ ...common, kind: 'reaction', externalId: targetId, reaction: { emoji: str(r?.emoji) ?? '' }, keySuffix: id })];
  }
  if (type === 'revoke') {
    const original = requireId(rec(m.revoke)?.original_message_id, 'revoke.original_message_id');
    return [buildEnvelope({ ...common, kind: 'delete', externalId: original })];
  }
  if (type === 'edit') {
    const ed = rec(m.edit);
    const original = requireId(ed?.original_message_id, 'edit.original_message_id');
    const inner = rec(ed?.message);
    if (!inner) throw new MalformedItem('edit.message is missing');
    const content = contentOf(inner);
    return [buildEnvelope({ ...common, kind: 'edit', externalId: original, edit: { text: content.text ?? '' }, content, keySuffix: id })];
  }
  const content = contentOf(m);
  if (context?.forwarded === true || context?.frequently_forwarded === true) content.forwarded = true;
  const quoted = idOf(context?.id);
  return [buildEnvelope({ ...common, kind: 'message', externalId: id, content, replyTo: quoted ? { externalId: quoted } : undefined })];
}

/** The content of a message object (also used for the new content of an edit). */
function contentOf(m: Rec): EnvelopeContent {
  const type = str(m.type) ?? 'unknown';
  switch (type) {
    case 'text': {
      const body = rec(m.text)?.body;
      if (typeof body !== 'string') throw new MalformedItem('text.body is missing');
      return { type: 'text', text: body };
    }
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const md = rec(m[type]);
      if (!md) throw new MalformedItem(`${type} object is missing`);
      const mediaId = idOf(md.id);
      const url = str(md.url);
      if (!mediaId && !url) throw new MalformedItem(`${type} has neither id nor url`);
      return {
        type,
        text: str(md.caption),
        media: {
          id: mediaId,
          url,
          mimeType: str(md.mime_type),
          fileName: str(md.filename),
          sha256: str(md.sha256),
          voice: type === 'audio' && typeof md.voice === 'boolean' ? md.voice : undefined,
        },
        providerType: type === 'sticker' && md.animated === true ? 'animated_sticker' : undefined,
      };
    }
    case 'location': {
      const l = rec(m.location);
      const latitude = Number(l?.latitude);
      const longitude = Number(l?.longitude);
      if (!l || typeof l.latitude !== 'number' || typeof l.longitude !== 'number' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
        throw new MalformedItem('location has no coordinates');
      }
      return { type: 'location', location: { latitude, longitude, name: str(l.name), address: str(l.address), url: str(l.url) } };
    }
    case 'contacts': {
      const cards = arr(m.contacts).map(rec).filter((c): c is Rec => Boolean(c));
      if (!cards.length) throw new MalformedItem('contacts is empty');
      const vcards = cards.map(toVcard);
      const names = cards.map(displayName).filter(Boolean);
      return { type: 'contact', text: names.join(', '), vcards };
    }
    case 'interactive': {
      const it = rec(m.interactive);
      const kind = str(it?.type) ?? 'unknown';
      const reply = rec(it?.[kind]);
      if (kind === 'nfm_reply') {
        const body = str(reply?.body);
        return { type: 'interactive', text: body ?? '', interactive: { id: str(reply?.name), title: body, payload: str(reply?.response_json) }, providerType: kind };
      }
      if (!reply) throw new MalformedItem(`interactive.${kind} is missing`);
      const title = str(reply.title);
      return {
        type: 'interactive',
        text: title ?? '',
        interactive: { id: idOf(reply.id), title, description: str(reply.description) },
        providerType: kind,
      };
    }
    case 'button': {
      const b = rec(m.button);
      const text = str(b?.text);
      return { type: 'interactive', text: text ?? '', interactive: { title: text, payload: str(b?.payload) }, providerType: 'button' };
    }
    default: {
      // unsupported (131051), unknown (older payloads), order, system, request_welcome, ...
      const declared = type === 'unsupported' ? str(rec(m.unsupported)?.type) : undefined;
      return { type: 'unsupported', providerType: declared ?? type };
    }
  }
}

const STATES = new Set(['sent', 'delivered', 'read', 'played', 'failed']);

function statusEnvelopes(target: Target, raw: unknown): Envelope[] {
  const s = rec(raw);
  if (!s) throw new MalformedItem('status is not an object');
  const id = requireId(s.id, 'status.id');
  const state = str(s.status);
  if (!state || !STATES.has(state)) throw new MalformedItem(`unknown status ${String(s.status).slice(0, 20)}`);
  const recipient = requireId(s.recipient_id ?? s.recipient_participant_id, 'status.recipient_id');
  const isGroup = s.recipient_type === 'group';
  const error = state === 'failed' ? (envelopeErrorOf(arr(s.errors)[0]) ?? { retryable: false }) : undefined;
  return [
    buildEnvelope({
      ...base(target),
      direction: 'out',
      kind: 'status',
      occurredAt: isoFromSeconds(s.timestamp),
      thread: { externalId: recipient, isGroup },
      externalId: id,
      status: { state: state as 'sent' | 'delivered' | 'read' | 'played' | 'failed', error },
      keySuffix: state,
      raw: s,
    }),
  ];
}

function accountErrorEnvelopes(target: Target, phoneId: string, raw: unknown, opts: NormalizeOptions): Envelope[] {
  const error = envelopeErrorOf(raw);
  if (!error) throw new MalformedItem('error is not an object');
  const hash = createHash('sha256').update(JSON.stringify(raw)).digest('hex').slice(0, 16);
  return [
    buildEnvelope({
      ...base(target),
      direction: 'in',
      kind: 'connection',
      occurredAt: opts.receivedAt ?? new Date().toISOString(),
      thread: { externalId: phoneId, isGroup: false },
      externalId: phoneId,
      connection: { status: 'account_error', reason: error.title, error },
      keySuffix: `${error.code ?? 'error'}:${hash}`,
      raw,
    }),
  ];
}

// ------------------------------------------------------------------------------------------ vCards

/** vCard 3.0 text value escaping (backslash, comma, semicolon, newline). */
function esc(v: unknown): string {
  return String(v ?? '')
    .replace(/\\/g, '\\\\')
    .replace(/\r?\n/g, '\\n')
    .replace(/([,;])/g, '\\$1');
}

/** A parameter value (`type=`): letters, digits and dashes only. */
function param(v: unknown): string | undefined {
  const s = typeof v === 'string' ? v.replace(/[^A-Za-z0-9-]/g, '') : '';
  return s || undefined;
}

function displayName(c: Rec): string {
  const n = rec(c.name);
  return str(n?.formatted_name) ?? [str(n?.first_name), str(n?.last_name)].filter(Boolean).join(' ') ?? '';
}

/**
 * One WhatsApp `contacts[]` card as vCard 3.0 text, lines joined with '\n' like the vCards WhatsApp itself
 * sends (Baileys): N, FN, ORG, TITLE, TEL (with `waid`), EMAIL, ADR, URL, BDAY.
 */
export function toVcard(c: Rec): string {
  const n = rec(c.name) ?? {};
  const fn = displayName(c) || str(arr(c.phones).map(rec)[0]?.phone) || 'Contact';
  const lines = ['BEGIN:VCARD', 'VERSION:3.0'];
  lines.push(`N:${[n.last_name, n.first_name, n.middle_name, n.prefix, n.suffix].map(esc).join(';')}`);
  lines.push(`FN:${esc(fn)}`);
  const org = rec(c.org);
  if (org && (str(org.company) || str(org.department))) lines.push(`ORG:${[org.company, org.department].filter((x) => x !== undefined).map(esc).join(';')}`);
  if (org && str(org.title)) lines.push(`TITLE:${esc(org.title)}`);
  for (const p of arr(c.phones).map(rec)) {
    if (!p || !str(p.phone)) continue;
    const t = param(p.type);
    const waid = idOf(p.wa_id);
    lines.push(`TEL${t ? `;type=${t}` : ''}${waid && /^\d+$/.test(waid) ? `;waid=${waid}` : ''}:${esc(p.phone)}`);
  }
  for (const e of arr(c.emails).map(rec)) {
    if (!e || !str(e.email)) continue;
    const t = param(e.type);
    lines.push(`EMAIL${t ? `;type=${t}` : ''}:${esc(e.email)}`);
  }
  for (const a of arr(c.addresses).map(rec)) {
    if (!a) continue;
    const t = param(a.type);
    lines.push(`ADR${t ? `;type=${t}` : ''}:;;${[a.street, a.city, a.state, a.zip, a.country].map(esc).join(';')}`);
  }
  for (const u of arr(c.urls).map(rec)) {
    if (!u || !str(u.url)) continue;
    const t = param(u.type);
    lines.push(`URL${t ? `;type=${t}` : ''}:${esc(u.url)}`);
  }
  if (str(c.birthday)) lines.push(`BDAY:${esc(c.birthday)}`);
  lines.push('END:VCARD');
  return lines.join('\n');
}
