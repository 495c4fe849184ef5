import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { api, HttpError, toastError, useSessionUser } from '@atendo/web-api';
import { Button, Modal, SelectField, Spinner, TextField } from '@atendo/web-ui';
import type { NewNumberValue } from './NewNumberFields';
import { createTicket, inboxKeys, searchContacts, useConnections, useQueues } from '../lib/api';
import { otherTicketFacts, useErrorToast } from '../lib/errors';
import { useDebounced } from '../lib/hooks';
import type { Viewer } from '../lib/viewer';
import type { ContactListItem, OtherTicketFacts, Ticket } from '../types';
import { DialogActions, DialogForm } from './Dialogs';

/** The contact search of the new-ticket dialog starts at this many characters (spec 2-tickets.md §5). */
export const CONTACT_SEARCH_MIN = 3;

/** Channels a new number can be written on (Messenger and Instagram contacts are not phone numbers). */
export const NUMBER_CHANNELS = ['whatsapp', 'whatsappapi'];

/** The new-number fields load with the phone library only when that step is chosen. */
const NewNumberFields = lazy(() => import('./NewNumberFields'));

const Modes = styled.div`
  display: flex;
  gap: 6px;
  button[aria-pressed='true'] { border-color: ${(p) => p.theme.colors.primary}; color: ${(p) => p.theme.colors.primary}; }
`;

/**
 * The contact of a new number: `POST /contacts` {name, number, channel} (name: the given one, else the
 * number); a number that is a contact already (409 ERR_DUPLICATED_CONTACT) is looked up instead.
 */
async function contactForNumber(v: NewNumberValue, channel: string): Promise<ContactListItem> {
  const number = v.number!;
  const name = v.name.trim().length >= 2 ? v.name.trim() : number.international;
  try {
    return await api.post<ContactListItem>('/contacts', { name, number: number.digits, channel });
  } catch (err) {
    if (!(err instanceof HttpError) || err.code !== 'ERR_DUPLICATED_CONTACT') throw err;
    const { contactId } = await api.get<{ contactId: number }>(`/contacts/profile/${number.digits}`);
    if (!contactId) throw err;
    return { id: contactId, name, number: number.digits, channel };
  }
}

const Results = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 200px;
  overflow: auto;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  li button {
    display: block;
    width: 100%;
    padding: 8px 12px;
    border: none;
    background: transparent;
    text-align: left;
    cursor: pointer;
  }
  li button:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;

const Hint = styled.p`
  margin: 0;
  font-size: ${(p) => p.theme.font.size.sm};
  color: ${(p) => p.theme.colors.textMuted};
`;

const Chosen = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
  padding: 8px 12px;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
`;

/**
 * The new-ticket dialog (spec 2-tickets.md §2 "Modals", §4, §5): a contact search (GET /contacts, from 3
 * characters, debounced) or a new number (issue 20 item 5: normalised with libphonenumber-js, name optional;
 * the contact is created on the chosen WhatsApp connection's channel, or found when it exists), the department (the viewer's queues; admins may pick any queue or none;
 * required unless admin: 'Selecione uma fila') and the connection (GET /whatsapp; empty = the default).
 * POST /tickets; on success `onCreated(ticket)`. A 409 ERR_OTHER_OPEN_TICKET goes to `onOtherOpen(facts)`
 * (the caller opens the ticket when its owner is the viewer, else shows who serves it); other errors are
 * toasted.
 */
export function NewTicketModal({ open, viewer, onCreated, onOtherOpen, onClose }: { open: boolean; viewer: Viewer; onCreated: (t: Ticket) => void; onOtherOpen: (facts: OtherTicketFacts) => void; onClose: () => void }) {
  const { t } = useTranslation('inbox');
  const user = useSessionUser();
  const [term, setTerm] = useState('');
  const [contact, setContact] = useState<ContactListItem | null>(null);
  const [queueId, setQueueId] = useState('');
  const [whatsappId, setWhatsappId] = useState('');
  const [errors, setErrors] = useState<{ contact?: string; queue?: string }>({});
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<'existing' | 'new'>('existing');
  const [fresh, setFresh] = useState<NewNumberValue>({ number: undefined, typed: '', name: '' });
  const [tried, setTried] = useState(false);
  const debounced = useDebounced(term.trim());
  const searching = open && !contact && debounced.length >= CONTACT_SEARCH_MIN;

  const contacts = useQuery({ queryKey: inboxKeys.contacts(debounced.toLowerCase()), queryFn: ({ signal }) => searchContacts(debounced, signal), enabled: searching, staleTime: 10_000 });
  const allQueues = useQueues(open && viewer.admin);
  const connections = useConnections(open);
  useErrorToast(contacts.error);
  useErrorToast(allQueues.error);
  useErrorToast(connections.error);

  useEffect(() => {
    if (!open) return;
    setTerm('');
    setContact(null);
    setQueueId('');
    setWhatsappId('');
    setErrors({});
    setMode('existing');
    setTried(false);
  }, [open]);

  const queueOptions = useMemo(() => {
    const mine = user?.queues ?? [];
    return viewer.admin && allQueues.data?.length ? allQueues.data : mine;
  }, [user?.queues, viewer.admin, allQueues.data]);
  const connectionOptions = (connections.data ?? []).filter((c) => (!c.status || c.status === 'CONNECTED') && (mode === 'existing' || NUMBER_CHANNELS.includes(c.channel)));

  const submit = async () => {
    const next: { contact?: string; queue?: string } = {};
    setTried(true);
    if (mode === 'existing' && !contact) next.contact = t('newTicket.contactRequired');
    if (mode === 'new' && !fresh.number) next.contact = t('newContact.invalidNumber');
    if (!queueId && !viewer.admin) next.queue = t('validation.queueRequired');
    setErrors(next);
    if (next.contact || next.queue) return;
    setBusy(true);
    try {
      // A new number: its contact first, on the chosen connection's channel.
      const chosen = (connections.data ?? []).find((c) => String(c.id) === whatsappId);
      const target = mode === 'new' ? await contactForNumber(fresh, chosen?.channel && NUMBER_CHANNELS.includes(chosen.channel) ? chosen.channel : 'whatsapp') : contact!;
      const ticket = await createTicket({ contactId: target.id, queueId: queueId ? Number(queueId) : null, whatsappId: whatsappId ? Number(whatsappId) : null, userId: viewer.id, status: 'open' });
      onCreated(ticket);
    } catch (err) {
      const facts = otherTicketFacts(err);
      if (facts) onOtherOpen(facts);
      else toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open={open} title={t('newTicket.title')} onClose={onClose} closeLabel={t('common.close')}>
      <DialogForm
        data-testid="new-ticket-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Modes role="group" aria-label={t('newTicket.contact')}>
          <Button variant="secondary" aria-pressed={mode === 'existing'} onClick={() => setMode('existing')} data-testid="new-ticket-mode-existing">
            {t('newContact.existing')}
          </Button>
          <Button variant="secondary" aria-pressed={mode === 'new'} onClick={() => setMode('new')} data-testid="new-ticket-mode-new">
            {t('newContact.tab')}
          </Button>
        </Modes>
        {mode === 'new' ? (
          <Suspense fallback={<Spinner size={24} label={t('loading')} />}>
            <NewNumberFields onChange={setFresh} showErrors={tried} />
          </Suspense>
        ) : contact ? (
          <Chosen data-testid="new-ticket-contact">
            <span>
              {contact.name} <Hint as="span">{contact.number}</Hint>
            </span>
            <Button variant="text" onClick={() => setContact(null)}>
              {t('newTicket.change')}
            </Button>
          </Chosen>
        ) : (
          <>
            <TextField
              label={t('newTicket.contact')}
              value={term}
              onChange={(e) => setTerm(e.target.value)}
              maxLength={200}
              autoComplete="off"
              error={errors.contact}
              helperText={term.trim().length < CONTACT_SEARCH_MIN ? t('newTicket.searchHint', { count: CONTACT_SEARCH_MIN }) : undefined}
              data-testid="new-ticket-search"
            />
            {searching && contacts.data ? (
              contacts.data.length ? (
                <Results role="listbox" aria-label={t('newTicket.contact')}>
                  {contacts.data.map((c) => (
                    <li key={c.id} role="option" aria-selected="false">
                      <button type="button" onClick={() => setContact(c)} data-testid="new-ticket-contact-option">
                        {c.name} <Hint as="span">{c.number}</Hint>
                      </button>
                    </li>
                  ))}
                </Results>
              ) : (
                <Hint>{t('newTicket.noContacts')}</Hint>
              )
            ) : null}
          </>
        )}
        <SelectField label={t('newTicket.queue')} value={queueId} error={errors.queue} onChange={(e) => setQueueId(e.target.value)} data-testid="new-ticket-queue">
          <option value="">{viewer.admin ? t('newTicket.noQueue') : t('validation.queueRequired')}</option>
          {queueOptions.map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
            </option>
          ))}
        </SelectField>
        <SelectField label={t('newTicket.connection')} value={whatsappId} onChange={(e) => setWhatsappId(e.target.value)} data-testid="new-ticket-connection">
          <option value="">{t('newTicket.defaultConnection')}</option>
          {connectionOptions.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({t(`row.channel.${['whatsapp', 'whatsappapi', 'facebook', 'instagram'].includes(c.channel) ? c.channel : 'whatsapp'}`)})
            </option>
          ))}
        </SelectField>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={busy} data-testid="new-ticket-submit">
            {t('newTicket.submit')}
          </Button>
        </DialogActions>
      </DialogForm>
    </Modal>
  );
}
