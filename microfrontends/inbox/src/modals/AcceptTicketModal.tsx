import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Modal, SelectField } from '@atendo/web-ui';
import type { QueueRef, Ticket } from '../types';
import { DialogActions, DialogForm } from './Dialogs';

/**
 * The queue-selection step of accepting (or reopening) a ticket that has no department (spec 2-tickets.md
 * §4 "pending without a queue: accept or reopen opens a queue-selection step"). A queue is required
 * ('Selecione uma fila'); `onSubmit(queueId)` runs the transition. With no department to offer (the
 * company has none yet) there is nothing to choose: the step confirms and `onSubmit(null)` lets the server
 * decide.
 */
export function AcceptTicketModal({ ticket, mode = 'accept', queues, busy = false, onSubmit, onClose }: { ticket: Ticket | null; mode?: 'accept' | 'reopen'; queues: QueueRef[]; busy?: boolean; onSubmit: (queueId: number | null) => void; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  const [queueId, setQueueId] = useState('');
  const [error, setError] = useState<string | false>(false);
  useEffect(() => {
    setQueueId('');
    setError(false);
  }, [ticket?.id]);
  return (
    <Modal open={Boolean(ticket)} title={mode === 'reopen' ? t('accept.reopenTitle') : t('accept.title')} onClose={onClose} closeLabel={t('common.close')}>
      <DialogForm
        data-testid="accept-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!queues.length) {
            onSubmit(null);
            return;
          }
          const id = Number(queueId);
          if (!id) {
            setError(t('validation.queueRequired'));
            return;
          }
          onSubmit(id);
        }}
      >
        {queues.length > 0 && (
          <SelectField label={t('accept.queue')} value={queueId} error={error} onChange={(e) => { setQueueId(e.target.value); setError(false); }} data-testid="accept-queue">
            <option value="">{t('validation.queueRequired')}</option>
            {queues.map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </SelectField>
        )}
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={busy} data-testid="accept-submit">
            {mode === 'reopen' ? t('row.reopen') : t('row.accept')}
          </Button>
        </DialogActions>
      </DialogForm>
    </Modal>
  );
}
