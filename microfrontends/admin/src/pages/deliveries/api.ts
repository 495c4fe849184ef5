import { api } from '@atendo/web-api';

/**
 * The deliveries screen's calls. Shapes: plugins/tickets/src/routes/delivery.ts (failed sends) and
 * kernel/core/src/routes/dead-letters.ts (dead letters).
 */

/** A failed send (GET /messages/failed). */
export interface FailedSend {
  id: number;
  ticketId: number;
  contactId: number | null;
  contactName: string | null;
  channel: string;
  body: string;
  mediaType: string;
  sendError: string;
  sendErrorDetail: string | null;
  createdAt: string;
}

/** A dead letter (GET /dead-letters): `bus:<n>` a consumer gave up on it, `outbox:<n>` the bus refused it. */
export interface DeadLetter {
  id: string;
  kind: 'bus' | 'outbox';
  queue: string | null;
  topic: string;
  messageId: string;
  companyId: number | null;
  error: string | null;
  attempt: number;
  deadAt: string;
  redriving: boolean;
  payload: unknown;
}

/** A page of either list. */
export interface Paged<T> {
  records: T[];
  count: number;
  hasMore: boolean;
}

export const deliveryKeys = {
  all: ['admin', 'deliveries'] as const,
  failed: (page: number) => ['admin', 'deliveries', 'failed', page] as const,
  dead: (page: number) => ['admin', 'deliveries', 'dead', page] as const,
};

export const fetchFailedSends = (pageNumber: number, signal?: AbortSignal) => api.get<Paged<FailedSend>>('/messages/failed', { query: { pageNumber }, signal });
export const resendOne = (id: number) => api.post<unknown>(`/messages/${id}/resend`, {});
/** `POST /messages/failed/resend {ids?}`: `skippedOptedOut` counts the failed sends to opted-out contacts, not resent (issue 34). */
export const resendAll = (ids?: number[]) => api.post<{ resent: number; skippedOptedOut?: number }>('/messages/failed/resend', ids ? { ids } : {});
export const fetchDeadLetters = (pageNumber: number, signal?: AbortSignal) => api.get<Paged<DeadLetter>>('/dead-letters', { query: { pageNumber }, signal });
export const redrive = (ids?: string[]) => api.post<{ redriven: number }>('/dead-letters/redrive', ids ? { ids } : {});
