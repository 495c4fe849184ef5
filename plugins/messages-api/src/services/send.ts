import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { AppError, type AuditService, type IdentityService, type StoredFile, type UploadService } from '@atendo/sdk';
import type { TicketsService } from '@atendo/plugin-tickets/contract';
import type { ConnectionsService, ConnectionRef } from '@atendo/plugin-connections/contract';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import { MEDIA_FIELD, MEDIA_MAX_BYTES, type SendAnswer } from '../contract';

/** What a media message may carry (checked on the sniffed type): images, audio, video, documents, text. */
const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'audio/*', 'video/*', 'application/pdf', 'application/zip', 'text/plain', 'text/csv',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'];
const MEDIA_AREA = 'messages';

export interface SendDeps {
  identity: IdentityService;
  uploads: UploadService;
  tickets: TicketsService;
  connections: ConnectionsService;
  contacts: ContactsService;
  /** The kernel's audit log (issue 34): every send is recorded with the API token as its actor. */
  audit?: AuditService;
}

/** The bearer token of a request ('' when absent). */
export function bearerOf(req: FastifyRequest): string {
  const h = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : '';
}

/** The rate-limit key of a request: a hash of its token (never the token itself). */
export function tokenKey(req: FastifyRequest): string {
  return `api-token:${createHash('sha256').update(bearerOf(req)).digest('hex').slice(0, 32)}`;
}

/**
 * A token's fingerprint in the audit log (issue 34): the first 8 hex digits of its SHA-256, never the token.
 * The connections plugin records the same fingerprint when a token is created or revoked.
 */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 8);
}

/**
 * The number as digits with the country code (libphonenumber-js): `+55 (11) 98765-4321`, `5511987654321`
 * and `11987654321` (Brazil assumed without a country code) give `5511987654321`. 400 ERR_INVALID_NUMBER.
 */
export function normaliseNumber(raw: string): string {
  const text = String(raw ?? '').trim();
  const digits = text.replace(/\D/g, '');
  if (!digits) throw new AppError('ERR_INVALID_NUMBER');
  const intl = parsePhoneNumberFromString(`+${digits}`);
  const p = intl?.isValid() ? intl : parsePhoneNumberFromString(digits, 'BR');
  if (!p?.isValid()) throw new AppError('ERR_INVALID_NUMBER');
  return p.number.replace(/^\+/, '');
}

/**
 * The token's connection and company: 401 ERR_INVALID_API_TOKEN (missing, malformed or unknown token),
 * 403 ERR_FEATURE_NOT_IN_PLAN (the company's plan lacks useExternalApi), 403 ERR_NO_PERMISSION (the
 * company is inactive), 403 ERR_SUBSCRIPTION_EXPIRED (its due date has passed).
 */
export async function authenticate(d: SendDeps, req: FastifyRequest): Promise<ConnectionRef> {
  const token = bearerOf(req);
  const ref = token ? await d.connections.findByApiToken(token) : undefined;
  if (!ref) throw new AppError('ERR_INVALID_API_TOKEN');
  const plan = await d.identity.getCompanyPlan(ref.companyId);
  if (!plan?.useExternalApi) throw new AppError('ERR_FEATURE_NOT_IN_PLAN', "This company's plan does not include useExternalApi", { extra: { feature: 'useExternalApi' } });
  const company = await d.identity.getCompany(ref.companyId);
  if (!company || company.status === false) throw new AppError('ERR_NO_PERMISSION', 'The company is inactive');
  // A company past its due date is closed like its users' sessions are (company 1 never expires).
  if (company.id !== 1 && company.dueDate && String(company.dueDate).slice(0, 10) < new Date().toISOString().slice(0, 10)) {
    throw new AppError('ERR_SUBSCRIPTION_EXPIRED', "The company's subscription has expired");
  }
  return ref;
}

export interface SendInput {
  number: string;
  body: string;
  userId: number | null;
  queueId: number | null;
  sendSignature: boolean;
  /** Part of a bulk send: an opted-out contact is skipped (409 ERR_OPTED_OUT). */
  bulk: boolean;
  media?: StoredFile;
}

const idOf = (v: unknown): number | null => {
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 2147483647) throw new AppError('ERR_VALIDATION', 'userId and queueId must be positive integers');
  return n;
};
const boolOf = (v: unknown) => v === true || v === 'true';

/** A JSON body as a send input. */
export function fromJson(b: { number: string; body: string; userId?: unknown; queueId?: unknown; sendSignature?: unknown; bulk?: unknown }): SendInput {
  return { number: b.number, body: b.body, userId: idOf(b.userId), queueId: idOf(b.queueId), sendSignature: boolOf(b.sendSignature), bulk: boolOf(b.bulk) };
}

/**
 * Reads a multipart send (fields number, body, userId, queueId, sendSignature, bulk; one file in `medias`, at
 * most MEDIA_MAX_BYTES, type sniffed: 413 ERR_PAYLOAD_TOO_LARGE, 415 ERR_UPLOAD_TYPE). The file is stored
 * in the company's `messages` uploads; `cleanup` removes it when the send fails.
 */
export async function fromMultipart(d: SendDeps, companyId: number, req: FastifyRequest): Promise<{ input: SendInput; cleanup: () => Promise<void> }> {
  const fields: Record<string, string> = {};
  let media: StoredFile | undefined;
  const cleanup = async () => {
    if (media) await d.uploads.remove(companyId, media.path).catch(() => undefined);
  };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== MEDIA_FIELD || media) {
          part.file.resume();
          throw new AppError('ERR_VALIDATION', `Send one file in the multipart field "${MEDIA_FIELD}"`);
        }
        media = await d.uploads.save(companyId, MEDIA_AREA, part, { allow: MEDIA_TYPES, maxBytes: MEDIA_MAX_BYTES });
        continue;
      }
      fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value ?? '');
    }
    if (!media) throw new AppError('ERR_VALIDATION', `A file is required in "${MEDIA_FIELD}"`);
    if (!fields.number) throw new AppError('ERR_VALIDATION', 'number is required');
    return { input: { number: fields.number, body: fields.body ?? '', userId: idOf(fields.userId), queueId: idOf(fields.queueId), sendSignature: boolOf(fields.sendSignature), bulk: boolOf(fields.bulk), media }, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * Sends through the token's connection: the contact of the normalised number (found or created), its
 * active ticket on that connection (found or opened, with the queue and user given: `tickets.findOrOpen`),
 * then the text or the media (caption: the body, else the file name) through the tickets service's
 * outbound path. With a user the message is the user's (signed with `*Name:*` when `sendSignature`);
 * without one it is a system message of the API. A `bulk` send to a contact who opted out (issue 34) is
 * skipped: 409 ERR_OPTED_OUT, nothing stored. Each send is audited (entity `api-token`, the connection's
 * id, action `send`, actor `api` labelled with the connection and the token's fingerprint; `req` gives the
 * address). Errors: 400 ERR_INVALID_NUMBER / ERR_VALIDATION, 404 ERR_NO_USER_FOUND / ERR_NO_QUEUE_FOUND
 * (ids of another company), 409 ERR_OPTED_OUT, plus the tickets service's.
 */
export async function send(d: SendDeps, ref: ConnectionRef, input: SendInput, req?: FastifyRequest): Promise<SendAnswer> {
  const companyId = ref.companyId;
  const number = normaliseNumber(input.number);
  if (!input.media && !input.body.trim()) throw new AppError('ERR_VALIDATION', 'body is required');
  if (input.bulk && (await d.contacts.optedOutNumbers?.(companyId, [number]))?.has(number)) throw new AppError('ERR_OPTED_OUT');
  const user = input.userId !== null ? await d.identity.getUser(companyId, input.userId) : undefined;
  if (input.userId !== null && !user) throw new AppError('ERR_NO_USER_FOUND');
  if (!d.tickets.findOrOpen) throw new AppError('ERR_INTERNAL', 'the tickets service cannot open tickets');
  const contact = await d.contacts.findOrCreate(companyId, { number, name: number, channel: ref.channel });
  const ticket = await d.tickets.findOrOpen(companyId, { contactId: contact.id, whatsappId: ref.id, queueId: input.queueId, userId: input.userId });
  const opts = user && (ticket.status === 'open' || ticket.status === 'group') ? { userId: user.id } : { fromBot: true, handlerId: 'messages-api' };
  const sign = (text: string) => (user && input.sendSignature && text ? `*${user.name}:*\n${text}` : text);
  const message = input.media
    ? await d.tickets.sendMedia(companyId, ticket.id, { path: input.media.path, fileName: input.media.fileName, caption: sign(input.body.trim() || input.media.fileName) }, opts)
    : await d.tickets.sendText(companyId, ticket.id, sign(input.body), opts);
  const label = `#${ref.id} · ${tokenFingerprint(req ? bearerOf(req) : '')}`;
  await d.audit?.record({ companyId, req: req ? { ip: req.ip } : undefined, actor: { kind: 'api', label }, entity: 'api-token', entityId: ref.id, action: 'send', after: { messageId: message.id, ticketId: ticket.id, bulk: input.bulk } });
  return { message: 'Mensagem enviada com sucesso', messageId: message.id, ticketId: ticket.id, number };
}
