import { useCallback, useEffect, useRef, useState, type JSX } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { HttpError, isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, EmptyState, Loading } from '@atendo/web-ui';
import './i18n';
import { contactByNumber, createContact, createTicket, deleteMessage, editMessage, fetchTicket, forwardMessage, reactToMessage, resendMessage } from './api';
import { ContactDrawer } from './ContactDrawer';
import { deleteIsLocalOnly, type VCardContact } from './format';
import { ConversationHeader } from './Header';
import { MessageInput } from './MessageInput';
import { MessageList, type MessageListHandle } from './MessageList';
import { EditMessageModal, ForwardModal } from './modals';
import { navigateTo, ticketPath } from './navigation';
import { ConfirmDialog, InfoDialog } from './parts';
import { readSignature } from './prefs';
import type { Contact, ContactEvent, ContactListItem, Message, PresenceEvent, Ticket, TicketEvent } from './types';
import { useConversationMessages } from './useMessages';
import { ticketChannelOf } from '@atendo/sdk/wire';

export { conversationResources } from './i18n';

/** The reactions each channel takes from us (Instagram's API takes only ❤️; Messenger none). */
export const REACTIONS_BY_CHANNEL: Record<string, readonly string[]> = {
  whatsapp: ['👍', '❤️', '😂', '😮', '😢', '🙏'],
  whatsappapi: ['👍', '❤️', '😂', '😮', '😢', '🙏'],
  instagram: ['❤️'],
};

/** A signed text's signature line (`*Name:*` and a line break): the edit box shows the text without it (the server keeps it). */
export const SIGNATURE_LINE = /^\*[^*\n]{1,100}:\*\n/;

/** Pause between forwarded messages (spec §9: 900 ms). */
export const FORWARD_PAUSE_MS = 900;
/** A presence indicator clears itself after this long without news. */
const PRESENCE_TTL_MS = 30_000;

const Root = styled.div`
  display: flex;
  flex: 1;
  flex-direction: column;
  height: 100%;
  min-height: 0;
  min-width: 0;
  background: ${(p) => p.theme.colors.background};
`;

const Body = styled.div`
  flex: 1;
  display: flex;
  min-height: 0;
`;

const Main = styled.div`
  flex: 1;
  display: flex;
  flex-direction: column;
  min-width: 0;
  min-height: 0;
`;

const SelectBar = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
  padding: 10px 16px;
  border-top: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surfaceAlt};
  div { display: flex; gap: 8px; }
`;

/** The query key of a conversation's ticket. */
export const conversationTicketKey = (uuid: string) => ['inbox', 'conversation', 'ticket', uuid] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The owner facts of an ERR_OTHER_OPEN_TICKET answer (`POST /tickets`). */
function otherOpenTicket(err: unknown): { uuid?: string; userId?: number | null; user?: { name: string } | null; queue?: { name: string } | null } | undefined {
  if (!(err instanceof HttpError) || err.code !== 'ERR_OTHER_OPEN_TICKET') return undefined;
  return err.data as { uuid?: string; userId?: number | null; user?: { name: string } | null; queue?: { name: string } | null };
}

/**
 * One ticket's conversation (spec 2-tickets.md §2 "Conversation view", §4, §5, §9), for the ticket with
 * `ticketUuid`: the header with the status actions, the message list (infinite scroll upwards, live
 * updates), the message input and the contact drawer. `onClose` leaves it (back to /tickets; default:
 * navigate there). A ticket that cannot be loaded shows the error and leaves.
 */
export function Conversation({ ticketUuid, onClose }: { ticketUuid: string; onClose?: () => void }): JSX.Element {
  const { t } = useTranslation('inbox');
  const user = useSessionUser();
  const admin = isAdmin(user);
  const companyId = user?.companyId;
  const client = useQueryClient();
  const key = conversationTicketKey(ticketUuid);
  const ticketQuery = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchTicket(ticketUuid, signal), retry: false, staleTime: 0, refetchOnWindowFocus: false });
  const ticket = ticketQuery.data;
  const list = useRef<MessageListHandle>(null);
  const { state, dispatch, loadOlder } = useConversationMessages(ticket, companyId);

  const [contactOpen, setContactOpen] = useState(false);
  const [quoted, setQuoted] = useState<Message | null>(null);
  const [selecting, setSelecting] = useState(false);
  const [selected, setSelected] = useState<Set<number>>(() => new Set());
  const [forwardOpen, setForwardOpen] = useState(false);
  const [forwarding, setForwarding] = useState(false);
  const [editing, setEditing] = useState<Message | null>(null);
  const [toDelete, setToDelete] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);
  const [presence, setPresence] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ user: string; queue: string } | null>(null);

  const leave = useCallback(() => {
    if (onClose) onClose();
    else navigateTo('/tickets');
  }, [onClose]);

  // A ticket that cannot be loaded: show why and go back to the list.
  useEffect(() => {
    if (ticketQuery.error) {
      toastError(ticketQuery.error);
      leave();
    }
  }, [ticketQuery.error, leave]);

  // Another ticket: reset the per-ticket state.
  useEffect(() => {
    setQuoted(null);
    setSelecting(false);
    setSelected(new Set());
    setPresence(null);
  }, [ticket?.id]);

  const setTicket = useCallback((next: Ticket) => client.setQueryData<Ticket>(key, (old) => ({ ...old, ...next })), [client, key]);

  useSocketEvent<TicketEvent>(companyId ? `company-${companyId}-ticket` : null, (data) => {
    const current = client.getQueryData<Ticket>(key);
    if (!current || !data) return;
    if (data.action === 'update' && data.ticket?.id === current.id) setTicket(data.ticket);
    else if (data.action === 'delete' && Number(data.ticketId) === current.id) {
      toast.success(t('conversation.delete.success'), { toastId: `ticket-deleted-${current.id}` });
      leave();
    }
  });

  useSocketEvent<ContactEvent>(companyId ? `company-${companyId}-contact` : null, (data) => {
    const current = client.getQueryData<Ticket>(key);
    if (!current || !data || data.action === 'delete' || data.contact?.id !== current.contactId) return;
    setTicket({ ...current, contact: { ...current.contact, ...data.contact } });
  });

  // After a reconnect, the ticket may have changed meanwhile.
  const dropped = useRef(false);
  useSocketEvent(companyId ? 'disconnect' : null, () => {
    dropped.current = true;
  });
  useSocketEvent(companyId ? 'connect' : null, () => {
    if (!dropped.current) return;
    dropped.current = false;
    void ticketQuery.refetch();
  });

  const presenceTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useSocketEvent<PresenceEvent>(companyId ? `company-${companyId}-presence` : null, (data) => {
    const current = client.getQueryData<Ticket>(key);
    if (!current || !data || Number(data.ticketId) !== current.id) return;
    const text = data.presence === 'composing' ? t('conversation.typing') : data.presence === 'recording' ? t('conversation.recording') : null;
    setPresence(text);
    if (presenceTimer.current) clearTimeout(presenceTimer.current);
    if (text) presenceTimer.current = setTimeout(() => setPresence(null), PRESENCE_TTL_MS);
  });
  useEffect(() => () => void (presenceTimer.current && clearTimeout(presenceTimer.current)), []);

  const onSent = useCallback(
    (m: Message | undefined) => {
      if (m && typeof m.id === 'number') dispatch({ type: 'upsert', message: m });
      list.current?.scrollToBottom();
    },
    [dispatch],
  );

  const toggleSelect = useCallback((m: Message) => {
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(m.id)) next.delete(m.id);
      else next.add(m.id);
      return next;
    });
  }, []);

  const startForward = useCallback((m: Message) => {
    setSelecting(true);
    setSelected(new Set([m.id]));
  }, []);

  const cancelSelect = () => {
    setSelecting(false);
    setSelected(new Set());
  };

  const openForward = () => {
    if (!selected.size) {
      toast.error(t('conversation.forward.noneSelected'), { toastId: 'forward-none' });
      return;
    }
    setForwardOpen(true);
  };

  const forward = async (contact: ContactListItem) => {
    setForwarding(true);
    const ids = state.messages.filter((m) => selected.has(m.id)).map((m) => m.id);
    const sign = readSignature();
    try {
      for (let i = 0; i < ids.length; i++) {
        if (i > 0) await sleep(FORWARD_PAUSE_MS);
        await forwardMessage(ids[i], contact.id, sign);
      }
      toast.success(t('conversation.forward.success', { count: ids.length }));
      setForwardOpen(false);
      cancelSelect();
      leave();
    } catch (err) {
      toastError(err);
    } finally {
      setForwarding(false);
    }
  };

  const saveEdit = async (body: string) => {
    const m = editing;
    if (!m) return;
    setBusy(true);
    try {
      const saved = await editMessage(m.id, body);
      if (saved) dispatch({ type: 'update', message: saved });
      setEditing(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const confirmDelete = async () => {
    const m = toDelete;
    if (!m) return;
    setBusy(true);
    try {
      const answer = await deleteMessage(m.id);
      if (m.isPrivate) dispatch({ type: 'remove', id: m.id });
      else if (answer) dispatch({ type: 'update', message: answer });
      setToDelete(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  /** Resends a failed send (the same message, pending again; the socket's update follows the answer). */
  const retry = useCallback(
    async (m: Message) => {
      try {
        const answer = await resendMessage(m.id);
        if (answer) dispatch({ type: 'update', message: answer });
      } catch (err) {
        toastError(err);
      }
    },
    [dispatch],
  );

  const react = useCallback(
    async (m: Message, emoji: string) => {
      try {
        const answer = await reactToMessage(m.id, emoji);
        if (answer) dispatch({ type: 'update', message: answer });
      } catch (err) {
        toastError(err);
      }
    },
    [dispatch],
  );

  const quoteClick = useCallback((id: number) => {
    if (!list.current?.scrollToMessage(id)) toast.info(t('conversation.quotedNotLoaded'), { toastId: 'quoted-not-loaded' });
  }, [t]);

  /** The Chat button of a shared contact: find or create the contact, then open (or find) its ticket. */
  const chatWith = useCallback(
    async (card: VCardContact) => {
      if (!ticket) return;
      try {
        // contactId 0: the number is not a contact yet.
        let contactId = (await contactByNumber(card.number)).contactId;
        if (!contactId) {
          const name = (card.name || '').trim().slice(0, 50);
          contactId = (await createContact({ name: name.length >= 2 ? name : card.number, number: card.number })).id;
        }
        try {
          const created = await createTicket({ contactId, queueId: ticket.queueId, whatsappId: ticket.whatsappId, userId: user?.id, status: 'open' });
          navigateTo(ticketPath(created.uuid));
        } catch (err) {
          const other = otherOpenTicket(err);
          if (!other) throw err;
          if (other.userId !== null && other.userId !== undefined && other.userId !== user?.id) {
            setNotice({ user: other.user?.name ?? '', queue: other.queue?.name ?? t('conversation.noDepartment') });
          } else if (other.uuid) navigateTo(ticketPath(other.uuid));
        }
      } catch (err) {
        toastError(err);
      }
    },
    [ticket, user?.id, t],
  );

  const onContactChange = useCallback(
    (c: Contact) => {
      const current = client.getQueryData<Ticket>(key);
      if (current) setTicket({ ...current, contact: { ...current.contact, ...c } });
    },
    [client, key, setTicket],
  );

  if (ticketQuery.isPending) return <Loading label={t('conversation.loading')} />;
  if (!ticket) return <EmptyState icon="warning" text={t('conversation.loadError')} />;
  // The provider's channel (what it can edit or delete): the connection's (a WhatsApp Cloud ticket may say
  // 'whatsapp' on the wire, its connection 'whatsappapi'), else the ticket's.
  const providerChannel = ticketChannelOf(ticket);

  return (
    <Root data-testid="conversation" data-ticket-id={ticket.id} data-ticket-uuid={ticket.uuid}>
      <ConversationHeader
        ticket={ticket}
        presence={presence}
        onTicketChange={setTicket}
        onLeave={leave}
        onOpenTicket={(uuid) => navigateTo(ticketPath(uuid))}
        onToggleContact={() => setContactOpen((o) => !o)}
        contactOpen={contactOpen}
      />
      <Body>
        <Main>
          <MessageList
            ref={list}
            state={state}
            loadOlder={loadOlder}
            userId={user?.id}
            admin={admin}
            isGroup={ticket.isGroup}
            selectable={selecting}
            selected={selected}
            onToggleSelect={toggleSelect}
            onReply={setQuoted}
            onForward={startForward}
            onEdit={setEditing}
            onDelete={setToDelete}
            onRetry={retry}
            onQuoteClick={quoteClick}
            onChatContact={chatWith}
            onReact={['open', 'group'].includes(ticket.status) ? (m, e) => void react(m, e) : undefined}
            reactionChoices={REACTIONS_BY_CHANNEL[ticketChannelOf(ticket)] ?? []}
            channel={providerChannel}
          />
          {selecting ? (
            <SelectBar data-testid="forward-bar">
              <span>{t('conversation.forward.selected', { count: selected.size })}</span>
              <div>
                <Button variant="text" onClick={cancelSelect}>
                  {t('conversation.cancel')}
                </Button>
                <Button onClick={openForward} data-testid="forward-open">
                  {t('conversation.forward.submit')}
                </Button>
              </div>
            </SelectBar>
          ) : (
            <MessageInput ticketId={ticket.id} status={ticket.status} quoted={quoted} onCancelQuote={() => setQuoted(null)} onSent={onSent} />
          )}
        </Main>
        {contactOpen ? <ContactDrawer ticket={ticket} onClose={() => setContactOpen(false)} onContactChange={onContactChange} /> : null}
      </Body>
      <ForwardModal open={forwardOpen} count={selected.size} onClose={() => setForwardOpen(false)} onConfirm={(c) => void forward(c)} busy={forwarding} />
      <EditMessageModal open={editing !== null} initial={(editing?.body ?? '').replace(SIGNATURE_LINE, '')} onClose={() => setEditing(null)} onSave={(b) => void saveEdit(b)} busy={busy} />
      <ConfirmDialog
        open={toDelete !== null}
        title={t('conversation.deleteMessage.title')}
        message={toDelete && deleteIsLocalOnly(toDelete, providerChannel) ? `${t('conversation.deleteMessage.message')} ${t('conversation.deleteLocalOnly')}` : t('conversation.deleteMessage.message')}
        confirmLabel={t('conversation.deleteMessage.confirm')}
        danger
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setToDelete(null)}
      />
      <InfoDialog
        open={notice !== null}
        title={t('conversation.otherTicket.title')}
        message={notice ? t('conversation.otherTicket.message', { user: notice.user, queue: notice.queue }) : ''}
        onClose={() => setNotice(null)}
      />
    </Root>
  );
}

export default Conversation;
