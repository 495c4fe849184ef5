import { useCallback, useEffect, useReducer, useRef } from 'react';
import { toastError, useSocketEvent } from '@atendo/web-api';
import { fetchMessages } from './api';
import { belongsToConversation, initialMessagesState, messagesReducer } from './messages-state';
import type { AppMessageEvent, Ticket } from './types';

/**
 * The message list of a ticket's conversation: page 1 on open (the GET marks the ticket read server-side),
 * older pages on demand, and the live `company-{cid}-appMessage` events (create: appended when it belongs to
 * this conversation's tickets; update: replaced by id — acks, edits, deletes, reactions; delete: removed).
 */
export function useConversationMessages(ticket: Pick<Ticket, 'id' | 'contactId' | 'whatsappId' | 'isGroup' | 'companyId'> | undefined, companyId: number | undefined) {
  const [state, dispatch] = useReducer(messagesReducer, initialMessagesState);
  const ticketId = ticket?.id;
  const busy = useRef(false);
  const generation = useRef(0);
  const stateRef = useRef(state);
  stateRef.current = state;

  const load = useCallback(
    async (page: number) => {
      if (ticketId === undefined) return;
      const gen = generation.current;
      busy.current = true;
      dispatch({ type: 'loading' });
      try {
        const answer = await fetchMessages(ticketId, page);
        if (gen !== generation.current) return;
        dispatch({ type: 'page', page, messages: Array.isArray(answer?.messages) ? answer.messages : [], hasMore: Boolean(answer?.hasMore) });
      } catch (err) {
        if (gen !== generation.current) return;
        dispatch({ type: 'failed' });
        toastError(err);
      } finally {
        if (gen === generation.current) busy.current = false;
      }
    },
    [ticketId],
  );

  useEffect(() => {
    generation.current += 1;
    busy.current = false;
    dispatch({ type: 'reset' });
    if (ticketId !== undefined) void load(1);
  }, [ticketId, load]);

  const loadOlder = useCallback(() => {
    const s = stateRef.current;
    if (busy.current || !s.hasMore || s.page < 1) return;
    void load(s.page + 1);
  }, [load]);

  const ticketRef = useRef(ticket);
  ticketRef.current = ticket;
  useSocketEvent<AppMessageEvent>(companyId ? `company-${companyId}-appMessage` : null, (data) => {
    const t = ticketRef.current;
    if (!t || !data?.message) return;
    if (data.action === 'create') {
      if (belongsToConversation(t, data.message, data.ticket)) dispatch({ type: 'upsert', message: data.message });
    } else if (data.action === 'update') {
      dispatch({ type: 'update', message: data.message });
    } else if (data.action === 'delete') {
      dispatch({ type: 'remove', id: data.message.id });
    }
  });

  // After a reconnect (a disconnect seen while open), fetch the newest page again: messages pushed while
  // offline are merged in.
  const dropped = useRef(false);
  useSocketEvent(companyId ? 'disconnect' : null, () => {
    dropped.current = true;
  });
  useSocketEvent(companyId ? 'connect' : null, () => {
    if (!dropped.current) return;
    dropped.current = false;
    if (stateRef.current.page > 0 && !busy.current) void load(1);
  });

  return { state, dispatch, loadOlder, reload: () => load(1) };
}
