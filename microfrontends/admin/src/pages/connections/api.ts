import { api } from '@atendo/web-api';
import type { Channel, Connection } from '@atendo/plugin-connections/contract';
import type { WeekSchedule } from '../../lib/schedules';

export type { Channel, Connection };

/**
 * The connections screen's API calls (plugins/connections and plugins/whatsapp-sessions; spec 2-tickets.md
 * §2 "Connections page", §7 "Connections"; wire-shapes "GET /whatsapp", "POST /whatsapp", §5
 * whatsappSession events).
 */

/** `company-{id}-whatsapp` payloads. */
export type WhatsappEvent = { action: 'update'; whatsapp: Connection } | { action: 'delete'; whatsappId: number };
/** `company-{id}-whatsappSession` payloads: the session's status, qrcode, retries, updatedAt… */
export interface SessionEvent {
  action: 'update';
  session: Partial<Connection> & { id: number };
}
/** `importMessages-{id}` payloads (history import progress; `this` -1 while preparing). */
export type ImportEvent = { action: 'update'; status: { this: number; all: number; date?: string } } | { action: 'refresh' };

/** Body of POST and PUT /whatsapp (the fields this screen edits). */
export interface ConnectionInput {
  name: string;
  channel?: Channel;
  isDefault: boolean;
  allowGroup: boolean;
  groupAsTicket: 'enabled' | 'disabled';
  queueIds: number[];
  token: string | null;
  greetingMessage: string | null;
  complationMessage: string | null;
  outOfHoursMessage: string | null;
  ratingMessage: string | null;
  inactiveMessage: string | null;
  expiresInactiveMessage: string | null;
  maxUseBotQueues: number;
  timeUseBotQueues: number;
  timeSendQueue: number;
  sendIdQueue: number | null;
  expiresTicket: number;
  whenExpiresTicket: '0' | '1';
  timeInactiveMessage: number;
  timeCreateNewTicket: number;
  maxUseBotQueuesNPS: number;
  expiresTicketNPS: number;
  integrationId: number | null;
  promptId: number | null;
  facebookPageUserId?: string | null;
  facebookUserToken?: string | null;
  schedules?: WeekSchedule[];
}

export const connectionKeys = { one: (id: number) => ['admin', 'connection', id] as const, history: (id: number) => ['admin', 'connection', id, 'status-history'] as const };

/** One status change (`GET /whatsapp/:id/status-history`, plugins/connections). */
export interface StatusHistoryEntry {
  id: number;
  status: string;
  previousStatus: string | null;
  /** Why, when known: a Baileys DisconnectReason name or `livenessProbe`. */
  reason: string | null;
  retries: number;
  createdAt: string;
}

/** `GET /whatsapp/:id/status-history?limit=` (admins): the connection's status changes, newest first. */
export function fetchStatusHistory(id: number, limit = 50, signal?: AbortSignal): Promise<StatusHistoryEntry[]> {
  return api.get<{ records: StatusHistoryEntry[] }>(`/whatsapp/${id}/status-history`, { query: { limit }, signal }).then((r) => (Array.isArray(r?.records) ? r.records : []));
}

/** Close reasons the status history names (others are shown as sent). */
export const KNOWN_REASONS = ['livenessProbe', 'connectionLost', 'connectionClosed', 'connectionReplaced', 'loggedOut', 'badSession', 'multideviceMismatch', 'forbidden', 'unavailableService', 'restartRequired', 'unknown'] as const;

/** `GET /whatsapp/:id?session=0` (admins get `token`). */
export function fetchConnection(id: number, signal?: AbortSignal): Promise<Connection & { token?: string }> {
  return api.get<Connection & { token?: string }>(`/whatsapp/${id}`, { query: { session: 0 }, signal });
}

export const createConnection = (body: ConnectionInput) => api.post<Connection>('/whatsapp', body);
export const updateConnection = (id: number, body: ConnectionInput) => api.put<Connection>(`/whatsapp/${id}`, body);
/** Greeting media WhatsApp sends (plugins/connections GREETING_MEDIA_*; the server checks the content). */
export const GREETING_MEDIA_ACCEPT = 'image/*,audio/*,video/*,application/pdf,.doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp';
export const GREETING_MEDIA_MAX_BYTES = 16 * 1024 * 1024;
/** `POST /whatsapp/:id/media-upload` (multipart `file`): the greeting media. */
export function uploadGreetingMedia(id: number, file: File): Promise<Connection> {
  const form = new FormData();
  form.append('file', file, file.name);
  return api.post<Connection>(`/whatsapp/${id}/media-upload`, form);
}
/** `DELETE /whatsapp/:id/media-upload`: removes the greeting media. */
export const removeGreetingMedia = (id: number) => api.delete<Connection>(`/whatsapp/${id}/media-upload`);
export const deleteConnection = (id: number) => api.delete<{ message: string }>(`/whatsapp/${id}`);
/** `POST /whatsappsession/:id`: start the session again (try again). */
export const startSession = (id: number) => api.post<{ message: string }>(`/whatsappsession/${id}`);
/** `PUT /whatsappsession/:id`: clear the stored session and start again (new QR). */
export const resetSession = (id: number) => api.put<{ message: string }>(`/whatsappsession/${id}`);
/** `DELETE /whatsappsession/:id`: log out. */
export const disconnectSession = (id: number) => api.delete<{ message: string }>(`/whatsappsession/${id}`);
/** `POST /whatsapp-restart/`: restart every WhatsApp session of the company. */
/**
 * `POST /whatsappsession/:id/pairing-code` `{phoneNumber}`: pair by phone number; the session then pushes
 * status `PAIRING` with the code in `qrcode`.
 */
export const requestPairingCode = (id: number, phoneNumber: string) => api.post<{ message: string }>(`/whatsappsession/${id}/pairing-code`, { phoneNumber });
/** `ABCD1234` shown as `ABCD-1234`, as WhatsApp shows it. */
export const formatPairingCode = (code: string) => (code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code);
export const restartAll = () => api.post<{ message: string }>('/whatsapp-restart/');

/** Time-to-send-queue options in minutes (spec 2-tickets.md §9; 0 = disabled). */
export const SEND_QUEUE_MINUTES = [0, 5, 10, 15, 20, 25, 30, 60] as const;
/** The channels of the "new connection" menu and the plan flag each needs. */
export const NEW_CHANNELS: { channel: Channel; feature: 'useWhatsapp' | 'useFacebook' | 'useInstagram' }[] = [
  { channel: 'whatsapp', feature: 'useWhatsapp' },
  { channel: 'whatsappapi', feature: 'useWhatsapp' },
  { channel: 'facebook', feature: 'useFacebook' },
  { channel: 'instagram', feature: 'useInstagram' },
];

/** An external-API token: 30 random upper-case letters and digits, generated here (spec 2-tickets.md §9). */
export function generateToken(length = 30): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** Statuses that need the admin's attention (the side menu's warning badge uses the same list). */
export const ATTENTION = ['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING'];

/** `dd/MM/yy HH:mm` (spec 2-tickets.md §2 "last update"). */
export function shortDateTime(iso: string | undefined | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${String(d.getFullYear()).slice(-2)} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
