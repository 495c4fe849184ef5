import { api, apiUrl } from '@atendo/web-api';

/**
 * The external send API's wire constants (plugins/messages-api contract: SEND_PATH, MEDIA_FIELD,
 * MEDIA_MAX_BYTES), repeated here so the page does not load the server's schema library.
 */
export const SEND_PATH = '/api/messages/send';
export const MEDIA_FIELD = 'medias';
export const MEDIA_MAX_BYTES = 16 * 1024 * 1024;

/** The answer of a send: the spec's success text, the stored message's id, the ticket's id and the number used. */
export interface SendAnswer {
  message: string;
  messageId: number;
  ticketId: number;
  number: string;
}

/** The text form: token, number, body, userId, queueId, sendSignature (spec "API send payload"); issue 34: bulk. */
export interface TextForm {
  token: string;
  number: string;
  body: string;
  userId: string;
  queueId: string;
  sendSignature: boolean;
  /** Part of a bulk send: an opted-out contact is skipped (409 ERR_OPTED_OUT). Sent only when true. */
  bulk?: boolean;
}

/** The media form: token, number, body (the caption), userId and one file. */
export interface MediaForm {
  token: string;
  number: string;
  body: string;
  userId: string;
  file: File | null;
}

/** The endpoint as another system calls it: the API's absolute URL plus SEND_PATH. */
export function endpointUrl(): string {
  const base = apiUrl();
  try {
    return new URL(`${base}${SEND_PATH}`, typeof window !== 'undefined' ? window.location.href : 'http://localhost/').href;
  } catch {
    return `${base}${SEND_PATH}`;
  }
}

/** Which fields of a form are missing or wrong (keys of `messagesApi.errors`), in form order. */
export function formErrors(form: { token: string; number: string; body: string; userId: string; queueId?: string; file?: File | null }, kind: 'text' | 'media'): { field: string; key: string }[] {
  const out: { field: string; key: string }[] = [];
  if (!form.token.trim()) out.push({ field: 'token', key: 'messagesApi.errors.token' });
  if (!form.number.trim()) out.push({ field: 'number', key: 'messagesApi.errors.number' });
  else if (form.number.replace(/\D/g, '').length < 8) out.push({ field: 'number', key: 'messagesApi.errors.numberInvalid' });
  if (kind === 'text' && !form.body.trim()) out.push({ field: 'body', key: 'messagesApi.errors.body' });
  if (form.userId.trim() && !/^\d{1,10}$/.test(form.userId.trim())) out.push({ field: 'userId', key: 'messagesApi.errors.id' });
  if (form.queueId?.trim() && !/^\d{1,10}$/.test(form.queueId.trim())) out.push({ field: 'queueId', key: 'messagesApi.errors.id' });
  if (kind === 'media') {
    if (!form.file) out.push({ field: 'file', key: 'messagesApi.errors.file' });
    else if (form.file.size > MEDIA_MAX_BYTES) out.push({ field: 'file', key: 'messagesApi.errors.fileSize' });
  }
  return out;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token.trim()}` });

/**
 * `POST /api/messages/send` as JSON `{number, body, userId?, queueId?, sendSignature, bulk?}` with the typed
 * connection token (not the session's: the call is what another system would make). Rejects with the
 * API's error (401 ERR_INVALID_API_TOKEN, 403 ERR_FEATURE_NOT_IN_PLAN, 400 ERR_INVALID_NUMBER, 409
 * ERR_OPTED_OUT for a bulk send to an opted-out contact, ...).
 */
export function sendText(form: TextForm): Promise<SendAnswer> {
  const body: Record<string, unknown> = { number: form.number.trim(), body: form.body, sendSignature: form.sendSignature };
  if (form.bulk) body.bulk = true;
  if (form.userId.trim()) body.userId = Number(form.userId);
  if (form.queueId.trim()) body.queueId = Number(form.queueId);
  return api.post<SendAnswer>(SEND_PATH, body, { auth: false, headers: bearer(form.token) });
}

/** The same call as multipart: number, body, userId and the file in `medias`. */
export function sendMedia(form: MediaForm): Promise<SendAnswer> {
  const data = new FormData();
  data.append('number', form.number.trim());
  data.append('body', form.body);
  if (form.userId.trim()) data.append('userId', form.userId.trim());
  if (form.file) data.append(MEDIA_FIELD, form.file, form.file.name);
  return api.post<SendAnswer>(SEND_PATH, data, { auth: false, headers: bearer(form.token) });
}

/** The curl lines the page documents (the token stays a placeholder). */
export function curlExamples(url: string): { text: string; media: string } {
  return {
    text: [
      `curl -X POST '${url}' \\`,
      `  -H 'Authorization: Bearer <token>' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d '{"number": "5511999999999", "body": "Olá!", "userId": 1, "queueId": 1, "sendSignature": false}'`,
    ].join('\n'),
    media: [
      `curl -X POST '${url}' \\`,
      `  -H 'Authorization: Bearer <token>' \\`,
      `  -F 'number=5511999999999' \\`,
      `  -F 'body=Segue o arquivo' \\`,
      `  -F '${MEDIA_FIELD}=@/caminho/arquivo.pdf'`,
    ].join('\n'),
  };
}
