import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { isAdmin, toastError, useSessionUser } from '@atendo/web-api';
import { Button, Loading, Modal, Muted, SelectField } from '@atendo/web-ui';
import { fetchQueues, fetchTicketLog, fetchUsers } from './api';
import { ContactPicker } from './ContactPicker';
import { formatDateTime } from './format';
import { ConvIcon, type ConvIconName } from './icons';
import { DialogActions } from './parts';
import type { ContactListItem, Queue, TicketLogEntry } from './types';
import './i18n';

/** The dialogs of the conversation: queue step, transfer, resolve, ticket log, forward, edit message. */

const Form = styled.form`
  display: grid;
  gap: ${(p) => p.theme.space(2)};
`;

const ErrorText = styled.div`
  color: ${(p) => p.theme.colors.danger};
  font-size: ${(p) => p.theme.font.size.sm};
`;

/** The company's queues (`GET /queue`), cached for the page. */
export function useQueues(enabled = true) {
  return useQuery({ queryKey: ['inbox', 'queues'], queryFn: ({ signal }) => fetchQueues(signal), enabled, staleTime: 60_000 });
}

/** The queues the signed-in user may pick: all the company's for admins, else the user's own. */
function useMyQueues(open: boolean): { queues: Queue[]; loading: boolean } {
  const user = useSessionUser();
  const admin = isAdmin(user);
  const all = useQueues(open && (admin || !user?.queues?.length));
  if (!admin && user?.queues?.length) return { queues: user.queues, loading: false };
  return { queues: all.data ?? [], loading: all.isPending };
}

/**
 * The queue step of accepting or reopening a ticket that has no queue (spec §4): pick one of the user's
 * queues ('Selecione uma fila' when none is chosen).
 */
export function QueueSelectModal({ open, title, onClose, onConfirm, busy }: { open: boolean; title: string; onClose: () => void; onConfirm: (queueId: number) => void; busy?: boolean }) {
  const { t } = useTranslation('inbox');
  const { queues, loading } = useMyQueues(open);
  const [queueId, setQueueId] = useState('');
  const [error, setError] = useState(false);
  useEffect(() => {
    if (open) {
      setQueueId('');
      setError(false);
    }
  }, [open]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!queueId) {
      setError(true);
      return;
    }
    onConfirm(Number(queueId));
  };
  return (
    <Modal open={open} title={title} onClose={onClose} closeLabel={t('conversation.close')}>
      <Form onSubmit={submit} data-testid="queue-step">
        {loading ? <Loading label={t('conversation.loading')} /> : null}
        <SelectField
          label={t('conversation.queueStep.label')}
          value={queueId}
          onChange={(e) => {
            setQueueId(e.target.value);
            setError(false);
          }}
          error={error ? t('conversation.queueStep.required') : undefined}
          data-testid="queue-step-select"
        >
          <option value="">{t('conversation.queueStep.placeholder')}</option>
          {queues.map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
            </option>
          ))}
        </SelectField>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('conversation.cancel')}
          </Button>
          <Button type="submit" disabled={busy} data-testid="queue-step-confirm">
            {t('conversation.confirm')}
          </Button>
        </DialogActions>
      </Form>
    </Modal>
  );
}

/** What the transfer dialog submits: a department, and optionally a user. */
export interface TransferChoice {
  queueId: number;
  userId: number | null;
}

/** The transfer dialog (spec §4 "Transfer"): department required, user optional. */
export function TransferModal({ open, onClose, onConfirm, busy, currentQueueId }: { open: boolean; onClose: () => void; onConfirm: (c: TransferChoice) => void; busy?: boolean; currentQueueId?: number | null }) {
  const { t } = useTranslation('inbox');
  const queues = useQueues(open);
  const users = useQuery({ queryKey: ['inbox', 'users'], queryFn: ({ signal }) => fetchUsers(signal), enabled: open, staleTime: 60_000 });
  const [queueId, setQueueId] = useState('');
  const [userId, setUserId] = useState('');
  const [error, setError] = useState(false);
  useEffect(() => {
    if (open) {
      setQueueId(currentQueueId ? String(currentQueueId) : '');
      setUserId('');
      setError(false);
    }
  }, [open, currentQueueId]);
  useEffect(() => {
    if (queues.error) toastError(queues.error);
  }, [queues.error]);
  useEffect(() => {
    if (users.error) toastError(users.error);
  }, [users.error]);
  // Users of the chosen department first (when the list says which queues they serve).
  const userList = (users.data ?? []).filter((u) => !queueId || !u.queues || u.queues.some((q) => q.id === Number(queueId)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!queueId) {
      setError(true);
      return;
    }
    onConfirm({ queueId: Number(queueId), userId: userId ? Number(userId) : null });
  };
  return (
    <Modal open={open} title={t('conversation.transfer.title')} onClose={onClose} closeLabel={t('conversation.close')}>
      <Form onSubmit={submit} data-testid="transfer-form">
        <SelectField
          label={t('conversation.transfer.queue')}
          value={queueId}
          onChange={(e) => {
            setQueueId(e.target.value);
            setError(false);
          }}
          error={error ? t('conversation.queueStep.required') : undefined}
          data-testid="transfer-queue"
        >
          <option value="">{t('conversation.queueStep.placeholder')}</option>
          {(queues.data ?? []).map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
            </option>
          ))}
        </SelectField>
        <SelectField label={t('conversation.transfer.user')} value={userId} onChange={(e) => setUserId(e.target.value)} data-testid="transfer-user">
          <option value="">{t('conversation.transfer.noUser')}</option>
          {userList.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
            </option>
          ))}
        </SelectField>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('conversation.cancel')}
          </Button>
          <Button type="submit" disabled={busy} data-testid="transfer-confirm">
            {t('conversation.transfer.submit')}
          </Button>
        </DialogActions>
      </Form>
    </Modal>
  );
}

/** The resolve dialog (spec §4): close without farewell message, or close normally. */
export function ResolveDialog({ open, onClose, onResolve, busy }: { open: boolean; onClose: () => void; onResolve: (withFarewell: boolean) => void; busy?: boolean }) {
  const { t } = useTranslation('inbox');
  return (
    <Modal open={open} title={t('conversation.resolve.title')} onClose={onClose} closeLabel={t('conversation.close')}>
      <Muted>{t('conversation.resolve.message')}</Muted>
      <DialogActions>
        <Button variant="text" onClick={onClose}>
          {t('conversation.cancel')}
        </Button>
        <Button variant="secondary" onClick={() => onResolve(false)} disabled={busy} data-testid="resolve-without-farewell">
          {t('conversation.resolve.withoutFarewell')}
        </Button>
        <Button onClick={() => onResolve(true)} disabled={busy} data-testid="resolve-normal">
          {t('conversation.resolve.normal')}
        </Button>
      </DialogActions>
    </Modal>
  );
}

const LOG_ICONS: Record<string, ConvIconName> = {
  create: 'note',
  chatBot: 'bot',
  queue: 'swap',
  open: 'check',
  access: 'person',
  transfered: 'forward',
  receivedTransfer: 'reply',
  pending: 'undo',
  closed: 'done',
  reopen: 'history',
};

const Timeline = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 60vh;
  overflow-y: auto;
  li {
    display: flex;
    gap: 12px;
    padding: 10px 0;
    border-bottom: 1px solid ${(p) => p.theme.colors.border};
  }
  .icon { display: inline-flex; align-items: center; justify-content: center; flex: none; width: 32px; height: 32px; border-radius: 50%; background: ${(p) => p.theme.colors.primarySoft}; color: ${(p) => p.theme.colors.primary}; }
  .when { font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
`;

const LOG_TYPES = new Set(Object.keys(LOG_ICONS));

/** The text of a ticket log entry (spec §3: created, chatbot started, queue set, started, accessed, transferred, received transfer). */
export function logEntryText(e: TicketLogEntry, t: (k: string, o?: Record<string, unknown>) => string): string {
  const key = LOG_TYPES.has(e.type) ? e.type : 'other';
  return t(`conversation.log.types.${key}`, { user: e.user?.name ?? t('conversation.log.system'), queue: e.queue?.name ?? t('conversation.noDepartment'), type: e.type });
}

/** The ticket log timeline (`GET /tickets-log/:id`). */
export function TicketLogModal({ open, ticketId, onClose }: { open: boolean; ticketId: number; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  const log = useQuery({ queryKey: ['inbox', 'ticketLog', ticketId], queryFn: ({ signal }) => fetchTicketLog(ticketId, signal), enabled: open, staleTime: 0 });
  useEffect(() => {
    if (log.error) toastError(log.error);
  }, [log.error]);
  return (
    <Modal open={open} title={t('conversation.log.title')} onClose={onClose} closeLabel={t('conversation.close')}>
      {log.isPending ? <Loading label={t('conversation.loading')} /> : null}
      {log.data && !log.data.length ? <Muted>{t('conversation.log.empty')}</Muted> : null}
      {log.data?.length ? (
        <Timeline data-testid="ticket-log">
          {log.data.map((e) => (
            <li key={e.id} data-log-type={e.type}>
              <span className="icon">
                <ConvIcon name={LOG_ICONS[e.type] ?? 'history'} size={16} />
              </span>
              <div>
                <div>{logEntryText(e, t)}</div>
                <div className="when">{formatDateTime(e.createdAt)}</div>
              </div>
            </li>
          ))}
        </Timeline>
      ) : null}
    </Modal>
  );
}

/** The forward dialog: pick the contact the selected messages go to. */
export function ForwardModal({ open, count, onClose, onConfirm, busy }: { open: boolean; count: number; onClose: () => void; onConfirm: (c: ContactListItem) => void; busy?: boolean }) {
  const { t } = useTranslation('inbox');
  const [contact, setContact] = useState<ContactListItem | null>(null);
  const [error, setError] = useState(false);
  useEffect(() => {
    if (open) {
      setContact(null);
      setError(false);
    }
  }, [open]);
  return (
    <Modal open={open} title={t('conversation.forward.title', { count })} onClose={onClose} closeLabel={t('conversation.close')}>
      <div data-testid="forward-dialog">
        {open ? (
          <ContactPicker
            onPick={(c) => {
              setContact(c);
              setError(false);
            }}
            selectedId={contact?.id}
            autoFocus
          />
        ) : null}
        {contact ? <Muted style={{ marginTop: 8 }}>{t('conversation.forward.to', { name: contact.name })}</Muted> : null}
        {error ? <ErrorText role="alert">{t('conversation.forward.contactRequired')}</ErrorText> : null}
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('conversation.cancel')}
          </Button>
          <Button
            onClick={() => {
              if (!contact) setError(true);
              else onConfirm(contact);
            }}
            disabled={busy}
            data-testid="forward-confirm"
          >
            {t('conversation.forward.submit')}
          </Button>
        </DialogActions>
      </div>
    </Modal>
  );
}

const EditBox = styled.textarea`
  width: 100%;
  min-height: 100px;
  padding: 10px;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  resize: vertical;
`;

/** Editing the text of an own message. */
export function EditMessageModal({ open, initial, onClose, onSave, busy }: { open: boolean; initial: string; onClose: () => void; onSave: (body: string) => void; busy?: boolean }) {
  const { t } = useTranslation('inbox');
  const [body, setBody] = useState(initial);
  useEffect(() => {
    if (open) setBody(initial);
  }, [open, initial]);
  return (
    <Modal open={open} title={t('conversation.edit.title')} onClose={onClose} closeLabel={t('conversation.close')}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (body.trim()) onSave(body.trim());
        }}
      >
        <EditBox value={body} onChange={(e) => setBody(e.target.value)} aria-label={t('conversation.edit.label')} data-testid="edit-text" />
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('conversation.cancel')}
          </Button>
          <Button type="submit" disabled={busy || !body.trim()} data-testid="edit-save">
            {t('conversation.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
