import { useEffect } from 'react';
import { toastError } from '@atendo/web-api';
import type { OtherTicketFacts } from '../types';

/** Shows `toastError(error)` once for each new error of a query (spec 1-platform.md §8). */
export function useErrorToast(error: unknown): void {
  useEffect(() => {
    if (error) toastError(error);
  }, [error]);
}

interface ErrorWithData {
  response?: { status?: number; data?: Record<string, unknown> };
  data?: Record<string, unknown>;
  status?: number;
}

/**
 * The facts of the ticket already serving a contact, from a POST /tickets 409 ERR_OTHER_OPEN_TICKET
 * answer: Atendo's `{error, ticketId, uuid, userId, user, queue}` or the product family's JSON-encoded
 * ticket in `error`. Undefined for any other error.
 */
export function otherTicketFacts(err: unknown): OtherTicketFacts | undefined {
  const e = (err && typeof err === 'object' ? err : {}) as ErrorWithData;
  const data = e.response?.data ?? e.data;
  if (!data || typeof data !== 'object') return undefined;
  if (data.code === 'ERR_OTHER_OPEN_TICKET' || data.error === 'ERR_OTHER_OPEN_TICKET') {
    const nested = (data.ticket && typeof data.ticket === 'object' ? data.ticket : {}) as OtherTicketFacts;
    return {
      ticketId: (data.ticketId as number | undefined) ?? nested.id ?? nested.ticketId,
      uuid: (data.uuid as string | undefined) ?? nested.uuid,
      userId: (data.userId as number | null | undefined) ?? nested.userId ?? null,
      user: (data.user as OtherTicketFacts['user']) ?? nested.user ?? null,
      queue: (data.queue as OtherTicketFacts['queue']) ?? nested.queue ?? null,
    };
  }
  if (typeof data.error === 'string' && data.error.trim().startsWith('{')) {
    try {
      const t = JSON.parse(data.error) as OtherTicketFacts & { id?: number };
      if (t && typeof t === 'object' && (t.uuid || t.id)) return { ticketId: t.id, uuid: t.uuid, userId: t.userId ?? null, user: t.user ?? null, queue: t.queue ?? null };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
