import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Modal, SelectField } from '@atendo/web-ui';
import { useQueues, useUsersList } from '../lib/api';
import { useErrorToast } from '../lib/errors';
import type { Ticket } from '../types';
import { DialogActions, DialogForm } from './Dialogs';

/** What a transfer asks for: a department (required) and optionally a user of it. */
export interface TransferChoice {
  queueId: number;
  userId: number | null;
}

/**
 * The transfer dialog (spec 2-tickets.md §4 "Transfer"): a department is required ('Selecione uma fila');
 * the user list (GET /users/list, with each user's queues) shows the users of the chosen department.
 * Choosing a user transfers to that user (status open, or group for a group ticket); choosing only a
 * department leaves the ticket pending in it with no user.
 */
export function TransferTicketModal({ ticket, busy = false, onSubmit, onClose }: { ticket: Ticket | null; busy?: boolean; onSubmit: (choice: TransferChoice) => void; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  const open = Boolean(ticket);
  const queues = useQueues(open);
  const users = useUsersList(open);
  useErrorToast(queues.error);
  useErrorToast(users.error);
  const [queueId, setQueueId] = useState('');
  const [userId, setUserId] = useState('');
  const [error, setError] = useState<string | false>(false);

  useEffect(() => {
    setQueueId(ticket?.queueId ? String(ticket.queueId) : '');
    setUserId('');
    setError(false);
  }, [ticket?.id, ticket?.queueId]);

  const usersOfQueue = useMemo(() => {
    const id = Number(queueId);
    if (!id) return [];
    return (users.data ?? []).filter((u) => (u.queues ?? []).some((q) => q.id === id));
  }, [users.data, queueId]);

  return (
    <Modal open={open} title={t('transfer.title')} onClose={onClose} closeLabel={t('common.close')}>
      <DialogForm
        data-testid="transfer-form"
        onSubmit={(e) => {
          e.preventDefault();
          const q = Number(queueId);
          if (!q) {
            setError(t('validation.queueRequired'));
            return;
          }
          onSubmit({ queueId: q, userId: userId ? Number(userId) : null });
        }}
      >
        <SelectField
          label={t('transfer.queue')}
          value={queueId}
          error={error}
          data-testid="transfer-queue"
          onChange={(e) => {
            setQueueId(e.target.value);
            setUserId('');
            setError(false);
          }}
        >
          <option value="">{t('validation.queueRequired')}</option>
          {(queues.data ?? []).map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
            </option>
          ))}
        </SelectField>
        <SelectField label={t('transfer.user')} value={userId} onChange={(e) => setUserId(e.target.value)} disabled={!queueId} data-testid="transfer-user">
          <option value="">{t('transfer.noUser')}</option>
          {usersOfQueue.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
            </option>
          ))}
        </SelectField>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={busy || queues.isLoading} data-testid="transfer-submit">
            {t('transfer.submit')}
          </Button>
        </DialogActions>
      </DialogForm>
    </Modal>
  );
}
