import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { HttpError, isAdmin, toastError, useCompanyPlan, useSessionUser } from '@atendo/web-api';
import { navigateTo } from '@atendo/web-kit';
import { Button, IconButton } from '@atendo/web-ui';
import { deleteTicket, updateTicket, type UpdateTicketBody } from './api';
import { ConvIcon } from './icons';
import { QueueSelectModal, TicketLogModal, TransferModal, type TransferChoice } from './modals';
import { useCloseTicket } from '../modals/CloseTicketFlow';
import { TicketTags } from './TicketTags';
import { Avatar, Chip, ConfirmDialog, InfoDialog } from './parts';
import type { Ticket } from './types';
import './i18n';

const Bar = styled.header`
  display: flex;
  align-items: center;
  gap: 12px;
  min-height: 64px;
  padding: 8px 12px;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surface};
  flex-wrap: wrap;
`;

const Who = styled.button`
  display: flex;
  align-items: center;
  gap: 10px;
  min-width: 0;
  flex: 1 1 220px;
  padding: 4px;
  border: none;
  border-radius: ${(p) => p.theme.radius.md};
  background: transparent;
  text-align: left;
  cursor: pointer;
  &:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
  .lines { display: flex; flex-direction: column; min-width: 0; gap: 2px; }
  .name { font-weight: ${(p) => p.theme.font.weight.bold}; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .sub { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
  .presence { color: ${(p) => p.theme.colors.success}; font-style: italic; }
`;

const Actions = styled.div`
  display: flex;
  align-items: center;
  gap: 6px;
  flex-wrap: wrap;
  button { min-height: 34px; }
`;

const STATUS_COLORS: Record<string, string> = { pending: '#B26A00', open: '#2E7D32', group: '#1565C0', closed: '#5F6670' };

export interface ConversationHeaderProps {
  ticket: Ticket;
  /** 'Digitando...' / 'Gravando...' while the contact types or records. */
  presence?: string | null;
  /** The ticket changed (the PUT answer). */
  onTicketChange: (t: Ticket) => void;
  /** Back to /tickets (after return, transfer, close, delete). */
  onLeave: () => void;
  /** Open another ticket (a reopen that answered another ticket of the caller). */
  onOpenTicket: (uuid: string) => void;
  onToggleContact: () => void;
  contactOpen?: boolean;
}

/** Body of an accept or reopen: status open (group for group tickets), the caller, and the chosen queue. */
function assignBody(ticket: Ticket, userId: number, queueId?: number): UpdateTicketBody {
  return { status: ticket.isGroup ? 'group' : 'open', userId, ...(queueId ? { queueId } : {}) };
}

/** The code of an API error. */
const codeOf = (err: unknown) => (err instanceof HttpError ? err.code : (err as { response?: { data?: { error?: string } } })?.response?.data?.error);

/**
 * The conversation header (spec 2-tickets.md §2, §4): contact picture, name and number (as served), status,
 * queue tag, assigned user, presence; and the actions of the ticket's status — pending: accept (queue step
 * when it has none); open/group: return to the queue, transfer, resolve (with or without farewell),
 * delete (admins); closed: reopen (queue step when it has none; a reopen answered by another user's ticket
 * shows who has it). Also the ticket log and the contact drawer.
 */
export function ConversationHeader({ ticket, presence, onTicketChange, onLeave, onOpenTicket, onToggleContact, contactOpen }: ConversationHeaderProps) {
  const { t } = useTranslation('inbox');
  const user = useSessionUser();
  const admin = isAdmin(user);
  // The schedule dialog of a conversation is the /schedules page's, opened for this contact (plan useSchedules).
  const useSchedules = Boolean(useCompanyPlan().data?.plan?.useSchedules);
  const [busy, setBusy] = useState(false);
  const [queueStep, setQueueStep] = useState<null | 'accept' | 'reopen'>(null);
  const [transferOpen, setTransferOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [logOpen, setLogOpen] = useState(false);
  const [notice, setNotice] = useState<{ user: string; queue: string } | null>(null);
  const contact = ticket.contact;
  const me = user?.id;

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (err) {
      if (codeOf(err) === 'ERR_REQUIRED_TAG') toast.warn(t('conversation.requiredTag'), { toastId: 'required-tag' });
      else toastError(err);
    } finally {
      setBusy(false);
    }
  };

  /** A PUT answered with another ticket: who has it (another user) or open it (ours). */
  const otherTicket = (answer: Ticket): void => {
    if (answer.userId !== null && answer.userId !== me) {
      setNotice({ user: answer.user?.name ?? '', queue: answer.queue?.name ?? t('conversation.noDepartment') });
    } else if (answer.uuid) {
      onOpenTicket(answer.uuid);
    }
  };

  /** Accept (pending) or reopen (closed): assigned to the caller, with the chosen queue when asked. */
  const assign = (queueId?: number) =>
    act(async () => {
      if (me === undefined) return;
      const answer = await updateTicket(ticket.id, assignBody(ticket, me, queueId));
      setQueueStep(null);
      if (answer && answer.id !== ticket.id) otherTicket(answer);
      else if (answer) onTicketChange(answer);
    });

  const startAssign = (mode: 'accept' | 'reopen') => {
    if (ticket.queueId === null && !ticket.isGroup) setQueueStep(mode);
    else void assign();
  };

  const returnToQueue = () =>
    act(async () => {
      await updateTicket(ticket.id, { status: 'pending', userId: null });
      onLeave();
    });

  const transfer = (choice: TransferChoice) =>
    act(async () => {
      const body: UpdateTicketBody = choice.userId
        ? { queueId: choice.queueId, userId: choice.userId, status: ticket.isGroup ? 'group' : 'open' }
        : { queueId: choice.queueId, userId: null, status: 'pending' };
      const answer = await updateTicket(ticket.id, body);
      setTransferOpen(false);
      if (answer && answer.id !== ticket.id && answer.userId !== null && answer.userId !== me) {
        setNotice({ user: answer.user?.name ?? '', queue: answer.queue?.name ?? t('conversation.noDepartment') });
        return;
      }
      toast.success(t('conversation.transfer.success'), { toastId: `transfer-${ticket.id}` });
      onLeave();
    });

  // The same close as the ticket row's "Resolver": two choices, and the tag step under requiredTag.
  const closeFlow = useCloseTicket({ onClosed: () => onLeave() });

  const remove = () =>
    act(async () => {
      await deleteTicket(ticket.id);
      setDeleteOpen(false);
      toast.success(t('conversation.delete.success'), { toastId: `ticket-deleted-${ticket.id}` });
      onLeave();
    });

  const status = ticket.status;
  const assigned = status === 'open' || status === 'group';
  return (
    <Bar data-testid="conversation-header" data-status={status}>
      <IconButton label={t('conversation.actions.back')} tone="default" onClick={onLeave}>
        <ConvIcon name="chevronLeft" />
      </IconButton>
      <Who type="button" onClick={onToggleContact} aria-expanded={contactOpen} aria-label={t('conversation.actions.contactInfo')} title={t('conversation.actions.contactInfo')}>
        <Avatar name={contact?.name ?? ''} url={contact?.urlPicture ?? contact?.profilePicUrl} size={44} />
        <span className="lines">
          <span className="name" data-testid="contact-name">
            {contact?.name ?? ''}
          </span>
          <span className="sub">
            {presence ? (
              <span className="presence" data-testid="presence">
                {presence}
              </span>
            ) : (
              <span data-testid="contact-number">{contact?.number ?? ''}</span>
            )}
            <Chip $color={STATUS_COLORS[status] ?? undefined} data-testid="ticket-status">
              {t(`conversation.status.${['pending', 'open', 'group', 'closed'].includes(status) ? status : 'other'}`, { status })}
            </Chip>
            <Chip $color={ticket.queue?.color ?? '#7C7C7C'} data-testid="queue-tag">
              {ticket.queue?.name ?? t('conversation.noQueue')}
            </Chip>
            {ticket.user ? (
              <Chip $outlined data-testid="assigned-user">
                {t('conversation.assignedTo', { name: ticket.user.name })}
              </Chip>
            ) : null}
          </span>
        </span>
      </Who>
      <Actions>
        {status === 'pending' ? (
          <Button onClick={() => startAssign('accept')} disabled={busy} data-testid="action-accept">
            {t('conversation.actions.accept')}
          </Button>
        ) : null}
        {assigned ? (
          <>
            <Button variant="text" onClick={() => void returnToQueue()} disabled={busy} data-testid="action-return">
              <ConvIcon name="undo" size={18} />
              {t('conversation.actions.return')}
            </Button>
            <Button variant="secondary" onClick={() => setTransferOpen(true)} disabled={busy} data-testid="action-transfer">
              <ConvIcon name="swap" size={18} />
              {t('conversation.actions.transfer')}
            </Button>
            <Button onClick={() => closeFlow.start(ticket)} disabled={busy || closeFlow.busy} data-testid="action-resolve">
              <ConvIcon name="done" size={18} />
              {t('conversation.actions.resolve')}
            </Button>
          </>
        ) : null}
        {status === 'closed' ? (
          <Button onClick={() => startAssign('reopen')} disabled={busy} data-testid="action-reopen">
            <ConvIcon name="history" size={18} />
            {t('conversation.actions.reopen')}
          </Button>
        ) : null}
        {admin ? (
          <IconButton label={t('conversation.actions.delete')} tone="default" onClick={() => setDeleteOpen(true)} disabled={busy} data-testid="action-delete">
            <ConvIcon name="trash" />
          </IconButton>
        ) : null}
        <TicketTags ticket={ticket} onTicketChange={onTicketChange} />
        {useSchedules ? (
          <IconButton label={t('conversation.actions.schedule')} tone="default" onClick={() => navigateTo(`/schedules?contactId=${ticket.contactId}`)} data-testid="action-schedule">
            <ConvIcon name="calendar" />
          </IconButton>
        ) : null}
        <IconButton label={t('conversation.actions.log')} tone="default" onClick={() => setLogOpen(true)} data-testid="action-log">
          <ConvIcon name="history" />
        </IconButton>
      </Actions>

      <QueueSelectModal
        open={queueStep !== null}
        title={t('conversation.queueStep.title')}
        onClose={() => setQueueStep(null)}
        onConfirm={(queueId) => void assign(queueId)}
        busy={busy}
      />
      <TransferModal open={transferOpen} onClose={() => setTransferOpen(false)} onConfirm={(c) => void transfer(c)} busy={busy} currentQueueId={ticket.queueId} />
      {closeFlow.dialogs}
      <ConfirmDialog
        open={deleteOpen}
        title={t('conversation.delete.title', { id: ticket.id })}
        message={t('conversation.delete.message')}
        confirmLabel={t('conversation.delete.confirm')}
        danger
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleteOpen(false)}
      />
      {logOpen ? <TicketLogModal open={logOpen} ticketId={ticket.id} onClose={() => setLogOpen(false)} /> : null}
      <InfoDialog
        open={notice !== null}
        title={t('conversation.otherTicket.title')}
        message={notice ? t('conversation.otherTicket.message', { user: notice.user, queue: notice.queue }) : ''}
        onClose={() => setNotice(null)}
      />
    </Bar>
  );
}
