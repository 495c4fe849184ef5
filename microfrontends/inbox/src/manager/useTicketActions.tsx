import { useCallback, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '../lib/router';
import { toastError, useSessionUser } from '@atendo/web-api';
import { updateTicket, useQueues, type UpdateTicketBody } from '../lib/api';
import type { Viewer } from '../lib/viewer';
import { AcceptTicketModal } from '../modals/AcceptTicketModal';
import { TicketOpenInfoDialog, type OtherTicketInfo } from '../modals/Dialogs';
import { TransferTicketModal, type TransferChoice } from '../modals/TransferTicketModal';
import { useCloseTicket } from '../modals/CloseTicketFlow';
import type { Ticket } from '../types';
import { applyLiveToCache } from './cache';

/** The row actions of the ticket lists and the dialogs they open. */
export interface TicketActions {
  /** Id of the ticket whose call is in flight. */
  busyId: number | null;
  open: (t: Ticket) => void;
  accept: (t: Ticket) => void;
  ignore: (t: Ticket) => void;
  transfer: (t: Ticket) => void;
  close: (t: Ticket) => void;
  reopen: (t: Ticket) => void;
  /** Shows the "ticket already open" information. */
  showOtherOpen: (info: OtherTicketInfo) => void;
  /** The dialogs (render once). */
  dialogs: ReactNode;
}

/** The status an assigned ticket takes: group tickets stay 'group' (spec §4). */
const assignedStatus = (t: Ticket): 'open' | 'group' => (t.isGroup ? 'group' : 'open');

/**
 * The ticket transitions started from the lists (spec 2-tickets.md §4), each a PUT /tickets/:id whose
 * answer is applied to the cached lists at once (the socket event confirms it later); failures are
 * toasted (toastError):
 * - accept: {status open|group, userId: me}; a ticket without a department first asks for one
 *   (AcceptTicketModal) when there are departments to choose (a company without any queue accepts at
 *   once); then the conversation opens and `onAccepted` runs;
 * - ignore: {status closed, sendFarewellMessage false, amountUsedBotQueues 0};
 * - close: the close flow shared with the conversation header (modals/CloseTicketFlow.tsx: the two
 *   choices, and the tag step when the company requires a tag);
 * - reopen: like accept; when the answer is another active ticket of another user, the "ticket already
 *   open" dialog names that user and department, otherwise that ticket opens;
 * - transfer: TransferTicketModal, then {queueId, userId, status: open|group with a user, else pending};
 *   the app lands on /tickets.
 */
export function useTicketActions({ viewer, openUuid, onAccepted }: { viewer: Viewer; openUuid: string | null; onAccepted?: (t: Ticket) => void }): TicketActions {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const user = useSessionUser();
  const [busyId, setBusyId] = useState<number | null>(null);
  const [acceptFor, setAcceptFor] = useState<{ ticket: Ticket; mode: 'accept' | 'reopen' } | null>(null);
  const [transferFor, setTransferFor] = useState<Ticket | null>(null);
  const [other, setOther] = useState<OtherTicketInfo | null>(null);
  // The departments the queue step offers: the user's own, else the company's (loaded ahead, so that a
  // company without any queue - fresh from sign-up - accepts at once, with no step at all).
  const ownQueues = user?.queues ?? [];
  const allQueues = useQueues(!ownQueues.length);
  const acceptQueues = ownQueues.length ? ownQueues : (allQueues.data ?? []);
  /** True when the company is known to have no queue to choose: the queue step is skipped. */
  const noQueueToChoose = !ownQueues.length && allQueues.isSuccess && acceptQueues.length === 0;

  const run = useCallback(
    async (ticket: Ticket, body: UpdateTicketBody, after: (answer: Ticket) => void): Promise<boolean> => {
      setBusyId(ticket.id);
      try {
        const answer = await updateTicket(ticket.id, body);
        if (answer && answer.id === ticket.id) applyLiveToCache(queryClient, viewer, { type: 'upsert', ticket: answer });
        after(answer ?? ticket);
        return true;
      } catch (err) {
        toastError(err);
        return false;
      } finally {
        setBusyId(null);
      }
    },
    [queryClient, viewer],
  );

  /** After accept/reopen: the answer may be another user's active ticket of the same contact. */
  const openAnswer = useCallback(
    (ticket: Ticket, answer: Ticket) => {
      if (answer.id !== ticket.id && answer.userId != null && answer.userId !== viewer.id) {
        setOther({ userName: answer.user?.name ?? null, queueName: answer.queue?.name ?? null });
        return;
      }
      onAccepted?.(answer);
      navigate(`/tickets/${answer.uuid}`);
    },
    [navigate, onAccepted, viewer.id],
  );

  // "Resolver" on a row is the header's close: the two choices, and the tag step under requiredTag.
  const closeFlow = useCloseTicket({
    onClosed: (answer, ticket) => {
      if (answer && answer.id === ticket.id) applyLiveToCache(queryClient, viewer, { type: 'upsert', ticket: answer });
      if (openUuid && ticket.uuid === openUuid) navigate('/tickets');
    },
  });

  const leaveIfOpen = useCallback(
    (ticket: Ticket) => {
      if (openUuid && ticket.uuid === openUuid) navigate('/tickets');
    },
    [navigate, openUuid],
  );

  const closeStart = closeFlow.start;
  const actions = useMemo(
    () => ({
      open: (t: Ticket) => {
        if (t.status !== 'pending') navigate(`/tickets/${t.uuid}`);
      },
      accept: (t: Ticket) => {
        if (t.queueId == null && !t.isGroup && !noQueueToChoose) setAcceptFor({ ticket: t, mode: 'accept' });
        else void run(t, { status: assignedStatus(t), userId: viewer.id }, (a) => openAnswer(t, a));
      },
      ignore: (t: Ticket) => void run(t, { status: 'closed', sendFarewellMessage: false, amountUsedBotQueues: 0 }, () => leaveIfOpen(t)),
      close: (t: Ticket) => closeStart(t),
      reopen: (t: Ticket) => {
        if (t.queueId == null && !t.isGroup && !noQueueToChoose) setAcceptFor({ ticket: t, mode: 'reopen' });
        else void run(t, { status: assignedStatus(t), userId: viewer.id }, (a) => openAnswer(t, a));
      },
      transfer: (t: Ticket) => setTransferFor(t),
    }),
    [closeStart, leaveIfOpen, navigate, noQueueToChoose, openAnswer, run, viewer.id],
  );

  const acceptWithQueue = (queueId: number | null) => {
    const target = acceptFor?.ticket;
    if (!target) return;
    void run(target, { status: assignedStatus(target), userId: viewer.id, ...(queueId !== null ? { queueId } : {}) }, (a) => {
      setAcceptFor(null);
      openAnswer(target, a);
    });
  };

  const doTransfer = (choice: TransferChoice) => {
    const target = transferFor;
    if (!target) return;
    const body: UpdateTicketBody = { queueId: choice.queueId, userId: choice.userId, status: choice.userId ? assignedStatus(target) : 'pending' };
    void run(target, body, (a) => {
      setTransferFor(null);
      if (a.id !== target.id && a.userId != null && a.userId !== viewer.id) setOther({ userName: a.user?.name ?? null, queueName: a.queue?.name ?? null });
      navigate('/tickets');
    });
  };

  const dialogs = (
    <>
      <AcceptTicketModal ticket={acceptFor?.ticket ?? null} mode={acceptFor?.mode} queues={acceptQueues} busy={busyId !== null} onSubmit={acceptWithQueue} onClose={() => setAcceptFor(null)} />
      <TransferTicketModal ticket={transferFor} busy={busyId !== null} onSubmit={doTransfer} onClose={() => setTransferFor(null)} />
      <TicketOpenInfoDialog info={other} onClose={() => setOther(null)} />
      {closeFlow.dialogs}
    </>
  );

  return { busyId, ...actions, showOtherOpen: setOther, dialogs };
}
