import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { isAdmin, toastError, useSessionUser } from '@atendo/web-api';
import { Button, Modal, SelectField } from '@atendo/web-ui';
import { DialogActions } from '@atendo/web-kit';
import { contactsKey, fetchConnections, fetchQueues, openTicket, otherTicket, type Contact, type OtherTicket } from './api';

/**
 * The open-ticket action (spec 2-tickets.md §2 "open-ticket action", §4 "Creating a ticket for a contact
 * already served"): the connection (connected ones; empty = the company's default) and the queue (the
 * viewer's queues; admins any queue or none; required unless admin: 'Selecione uma fila'), then `POST
 * /tickets` and `onOpened(uuid)` (the page goes to /tickets/{uuid}). A 409 ERR_OTHER_OPEN_TICKET is answered
 * as in the inbox: the viewer's own ticket opens (`onOpened`), another user's is described (`onOther`).
 */
export function OpenTicketDialog({ contact, onClose, onOpened, onOther }: { contact: Contact; onClose: () => void; onOpened: (uuid: string) => void; onOther: (facts: OtherTicket) => void }) {
  const { t } = useTranslation('agent');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const connections = useQuery({ queryKey: [...contactsKey, 'connections'], queryFn: ({ signal }) => fetchConnections(signal), staleTime: 30_000 });
  const allQueues = useQuery({ queryKey: [...contactsKey, 'queues'], queryFn: ({ signal }) => fetchQueues(signal), staleTime: 30_000, enabled: admin });
  const [whatsappId, setWhatsappId] = useState('');
  const [queueId, setQueueId] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (connections.error) toastError(connections.error);
  }, [connections.error]);
  useEffect(() => {
    if (allQueues.error) toastError(allQueues.error);
  }, [allQueues.error]);
  const queues = useMemo(() => (admin && allQueues.data?.length ? allQueues.data : (me?.queues ?? [])), [admin, allQueues.data, me?.queues]);
  const usable = (connections.data ?? []).filter((c) => !c.status || c.status === 'CONNECTED');

  const submit = async () => {
    if (!queueId && !admin) {
      setError(t('contacts.ticket.queueRequired'));
      return;
    }
    if (!me || busy) return;
    setBusy(true);
    try {
      const ticket = await openTicket({ contactId: contact.id, queueId: queueId ? Number(queueId) : null, whatsappId: whatsappId ? Number(whatsappId) : null, userId: me.id, status: 'open' });
      onOpened(ticket.uuid);
    } catch (err) {
      const facts = otherTicket(err);
      if (facts && facts.userId === me.id && facts.uuid) onOpened(facts.uuid);
      else if (facts) onOther(facts);
      else toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open title={t('contacts.ticket.title')} onClose={onClose} closeLabel={t('common.close')}>
      <form
        data-testid="open-ticket-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <p>{t('contacts.ticket.contact', { name: contact.name })}</p>
        <SelectField label={t('contacts.ticket.connection')} value={whatsappId} onChange={(e) => setWhatsappId(e.target.value)} data-testid="open-ticket-connection">
          <option value="">{t('contacts.ticket.defaultConnection')}</option>
          {usable.map((c) => (
            <option key={c.id} value={String(c.id)}>
              {c.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={t('contacts.ticket.queue')}
          value={queueId}
          onChange={(e) => {
            setQueueId(e.target.value);
            setError(undefined);
          }}
          error={error}
          data-testid="open-ticket-queue"
        >
          <option value="">{admin ? t('contacts.ticket.noQueue') : ''}</option>
          {queues.map((q) => (
            <option key={q.id} value={String(q.id)}>
              {q.name}
            </option>
          ))}
        </SelectField>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={busy} data-testid="open-ticket-submit">
            {t('contacts.ticket.submit')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
