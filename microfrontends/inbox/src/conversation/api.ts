import { api } from '@atendo/web-api';
import type {
  Contact,
  ContactListItem,
  Message,
  MessagesPage,
  QuickMessage,
  Queue,
  Ticket,
  TicketLogEntry,
  TicketNote,
  UserListItem,
} from './types';

/**
 * The calls of the conversation view (spec 2-tickets.md §7; wire-shapes §4), through the shared `api`
 * client (bearer token, refresh on 403). Every function rejects with the client's HttpError; callers show
 * it with `toastError`.
 */

/** `GET /tickets/u/:uuid`: the ticket with contact, queue, user, tags and connection. */
export const fetchTicket = (uuid: string, signal?: AbortSignal) => api.get<Ticket>(`/tickets/u/${encodeURIComponent(uuid)}`, { signal });

/** `GET /messages/:ticketId?pageNumber`: 20 messages (page 1 the newest), ascending; marks the ticket read. */
export const fetchMessages = (ticketId: number, pageNumber: number, signal?: AbortSignal) =>
  api.get<MessagesPage>(`/messages/${ticketId}`, { query: { pageNumber }, signal });

/** Body of a JSON send (`POST /messages/:ticketId`). */
export interface SendTextBody {
  body?: string;
  isPrivate?: boolean;
  signMessage?: boolean;
  quotedMsg?: { id: number } | null;
  vCard?: { name: string; number: string };
}

/** `POST /messages/:ticketId` (JSON): a text, private note or contact card; answers the created message. */
export const sendText = (ticketId: number, body: SendTextBody) =>
  api.post<Message | undefined>(`/messages/${ticketId}`, { read: 1, fromMe: true, mediaUrl: '', ...body });

/** Options of a media send. */
export interface SendMediaOptions {
  caption?: string;
  isPrivate?: boolean;
  signMessage?: boolean;
  quotedMsgId?: number | null;
  /** A voice note recorded here: the server converts it to the channel's voice-note format. */
  voice?: boolean;
}

/**
 * The multipart body of a media send: every file in `medias`, one `body` per file (the caption on the
 * first, '' for the others, so the caption is not repeated), `fromMe`, `isPrivate`, `signMessage` and
 * the quoted message id.
 */
export function mediaFormData(files: (File | Blob)[], opts: SendMediaOptions = {}): FormData {
  const form = new FormData();
  files.forEach((f, i) => {
    const name = f instanceof File ? f.name : `file-${i + 1}`;
    form.append('medias', f, name);
  });
  files.forEach((_f, i) => form.append('body', i === 0 ? (opts.caption ?? '') : ''));
  form.append('fromMe', 'true');
  form.append('isPrivate', opts.isPrivate ? 'true' : 'false');
  if (opts.signMessage !== undefined) form.append('signMessage', opts.signMessage ? 'true' : 'false');
  if (opts.quotedMsgId) form.append('quotedMsg', String(opts.quotedMsgId));
  if (opts.voice) form.append('voice', 'true');
  return form;
}

/** `POST /messages/:ticketId` (multipart `medias`): one request for all files; answers the last message. */
export const sendMedia = (ticketId: number, files: (File | Blob)[], opts: SendMediaOptions = {}) =>
  api.post<Message | undefined>(`/messages/${ticketId}`, mediaFormData(files, opts));

/** `PUT /messages/:id` {body}: edits an own text message (15 minutes). */
export const editMessage = (id: number, body: string) => api.put<Message>(`/messages/${id}`, { body });

/** `POST /messages/:id/resend`: a failed send of ours goes again (pending); answers the message. */
export const resendMessage = (id: number) => api.post<Message>(`/messages/${id}/resend`, {});

/** `DELETE /messages/:id`. */
export const deleteMessage = (id: number) => api.delete<Message>(`/messages/${id}`);

/** `POST /message/forward` {messageId, contactId, signMessage}. */
export const forwardMessage = (messageId: number, contactId: number, signMessage: boolean) =>
  api.post<Message>('/message/forward', { messageId, contactId, signMessage });

/** Body of `PUT /tickets/:id`. */
export interface UpdateTicketBody {
  status?: 'pending' | 'open' | 'group' | 'closed';
  userId?: number | null;
  queueId?: number | null;
  sendFarewellMessage?: boolean;
}

/** `PUT /tickets/:id`: a transition; answers the ticket (or, on a reopen conflict, the other active one). */
export const updateTicket = (id: number, body: UpdateTicketBody) => api.put<Ticket>(`/tickets/${id}`, body);

/** `DELETE /tickets/:id` (admin). */
export const deleteTicket = (id: number) => api.delete<{ message: string }>(`/tickets/${id}`);

/** `POST /tickets` {contactId, queueId, whatsappId}: opens (or finds) a ticket for a contact. */
export const createTicket = (body: { contactId: number; queueId: number | null; whatsappId: number | null; userId?: number; status?: 'open' }) =>
  api.post<Ticket>('/tickets', body);

/** `GET /tickets-log/:id`: the ticket's timeline, oldest first. */
export const fetchTicketLog = (id: number, signal?: AbortSignal) => api.get<TicketLogEntry[]>(`/tickets-log/${id}`, { signal });

/** `GET /queue`: the company's queues. */
export const fetchQueues = (signal?: AbortSignal) => api.get<Queue[]>('/queue', { signal });

/** `GET /users/list`: the company's users (short form). */
export const fetchUsers = (signal?: AbortSignal) => api.get<UserListItem[]>('/users/list', { signal });

/** `GET /quick-messages/list`: the '/' shortcut list. */
export const fetchQuickMessages = (signal?: AbortSignal) => api.get<QuickMessage[]>('/quick-messages/list', { signal });

/** `GET /contacts?searchParam`: contacts matching a name or number. */
export const searchContacts = (searchParam: string, signal?: AbortSignal) =>
  api.get<{ contacts: ContactListItem[]; hasMore: boolean }>('/contacts', { query: { searchParam, pageNumber: 1 }, signal });

/** `GET /contacts/:id`: the contact with extra info and tags. */
export const fetchContact = (id: number, signal?: AbortSignal) => api.get<Contact>(`/contacts/${id}`, { signal });

/** A contact's consent, opt-out and anonymization state (plugins/compliance, issue 34; admins only). */
export interface ContactPrivacy {
  contactId: number;
  lgpdAcceptedAt: string | null;
  anonymizedAt: string | null;
  optedOutAt: string | null;
  optOutKeyword: string | null;
}

/** `GET /contacts/:id/privacy` (admin): the contact's opt-out and anonymization state. */
export const fetchContactPrivacy = (id: number, signal?: AbortSignal) => api.get<ContactPrivacy>(`/contacts/${id}/privacy`, { signal });

/**
 * `POST /contacts/:id/opt-out` (admin, `optedOut` true: the customer asked by other means) or `DELETE
 * /contacts/:id/opt-out` (false: reversed at the customer's request); both audited by the API.
 */
export const setContactOptOut = (id: number, optedOut: boolean) =>
  optedOut ? api.post<Omit<ContactPrivacy, 'lgpdAcceptedAt'>>(`/contacts/${id}/opt-out`, {}) : api.delete<Omit<ContactPrivacy, 'lgpdAcceptedAt'>>(`/contacts/${id}/opt-out`);

/** `GET /contacts/profile/:number`: the contact id of a number (0 when unknown). */
export const contactByNumber = (number: string) => api.get<{ contactId: number; urlPicture?: string | null }>(`/contacts/profile/${encodeURIComponent(number)}`);

/** `POST /contacts` {name, number}. */
export const createContact = (body: { name: string; number: string }) => api.post<Contact>('/contacts', body);

/** `PUT /contacts/:id` {name, email, number?, extraInfo?}: `extraInfo`, when given, replaces the list. */
export const updateContact = (id: number, body: { name: string; email: string; number?: string; extraInfo?: { name: string; value: string }[] }) => api.put<Contact>(`/contacts/${id}`, body);

/** `PUT /contacts/toggleAcceptAudio/:id`: flips whether the contact may send audio; answers the contact. */
export const toggleAcceptAudio = (id: number) => api.put<Contact>(`/contacts/toggleAcceptAudio/${id}`);

/** `PUT /contacts/block/:id` {active}. */
export const setContactActive = (id: number, active: boolean) => api.put<Contact>(`/contacts/block/${id}`, { active });

/** `PUT /contacts/toggleDisableBot/:id`: flips the bot switch; answers the contact. */
export const toggleDisableBot = (id: number) => api.put<Contact>(`/contacts/toggleDisableBot/${id}`);

/** `GET /ticket-notes/list?ticketId&contactId`: newest first. */
export const fetchNotes = (ticketId: number, contactId: number, signal?: AbortSignal) =>
  api.get<TicketNote[]>('/ticket-notes/list', { query: { ticketId, contactId }, signal });

/** `POST /ticket-notes` {note, ticketId, contactId}. */
export const addNote = (body: { note: string; ticketId: number; contactId: number }) => api.post<TicketNote>('/ticket-notes', body);

/** `DELETE /ticket-notes/:id`. */
export const deleteNote = (id: number) => api.delete<{ message: string }>(`/ticket-notes/${id}`);

/** `PUT /messages/:id/reaction` {emoji}: the caller's reaction ('' removes it); answers the message. */
export const reactToMessage = (id: number, emoji: string) => api.put<Message>(`/messages/${id}/reaction`, { emoji });
