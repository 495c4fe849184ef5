import { useEffect, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Muted, TextField } from '@atendo/web-ui';
import { contactPrivacyTexts, ContactPrivacyActions } from '@atendo/web-kit';
import { addNote, deleteNote, fetchContact, fetchContactPrivacy, fetchNotes, setContactActive, setContactOptOut, toggleAcceptAudio, toggleDisableBot, updateContact } from './api';
import { contactTagsKey, fetchContactTags, syncContactTags } from '../lib/api';
import { TagPicker } from '../modals/TagPicker';
import { formatDateTime } from './format';
import { ConvIcon } from './icons';
import { Avatar, ConfirmDialog, Switch } from './parts';
import type { Contact, ContactEvent, TagRef, Ticket, TicketNote } from './types';
import './i18n';

/** Drawer width (spec §2). */
export const CONTACT_DRAWER_WIDTH = 320;
/** Height of the notes list before it scrolls (spec §2). */
export const NOTES_MAX_HEIGHT = 200;
/** Shortest note (spec §5). */
export const NOTE_MIN = 2;

const Panel = styled.aside`
  width: ${CONTACT_DRAWER_WIDTH}px;
  flex: none;
  display: flex;
  flex-direction: column;
  min-height: 0;
  border-left: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surface};
  overflow-y: auto;
  header {
    display: flex;
    align-items: center;
    justify-content: space-between;
    padding: 8px 8px 8px 16px;
    border-bottom: 1px solid ${(p) => p.theme.colors.border};
    h2 { margin: 0; font-size: ${(p) => p.theme.font.size.md}; }
  }
`;

const Section = styled.section`
  display: grid;
  gap: ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(2)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  h3 { margin: 0; font-size: ${(p) => p.theme.font.size.sm}; color: ${(p) => p.theme.colors.textMuted}; text-transform: uppercase; letter-spacing: 0.04em; }
  .center { display: flex; flex-direction: column; align-items: center; gap: 4px; text-align: center; }
  .name { font-weight: ${(p) => p.theme.font.weight.bold}; font-size: ${(p) => p.theme.font.size.lg}; word-break: break-word; }
  .row { display: flex; gap: 8px; flex-wrap: wrap; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 0; }
  dt { color: ${(p) => p.theme.colors.textMuted}; }
  dd { margin: 0; word-break: break-word; }
`;

const Notes = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: ${NOTES_MAX_HEIGHT}px;
  overflow-y: auto;
  li { display: flex; gap: 6px; padding: 6px 0; border-bottom: 1px solid ${(p) => p.theme.colors.border}; }
  .body { flex: 1; min-width: 0; white-space: pre-wrap; word-break: break-word; }
  .by { font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
`;

const NoteBox = styled.textarea<{ $invalid: boolean }>`
  width: 100%;
  min-height: 64px;
  padding: 8px;
  border: 1px solid ${(p) => (p.$invalid ? p.theme.colors.danger : p.theme.colors.border)};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  resize: vertical;
`;

const ErrorLine = styled.div`
  color: ${(p) => p.theme.colors.danger};
  font-size: ${(p) => p.theme.font.size.xs};
`;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Validation of the contact form (spec §5): name required 2..50; number 8..50 (as typed, or the masked
 * number shown to attendants, which the server keeps); email optional and valid; extra info fields need
 * both a name and a value.
 */
export function validateContactForm(v: { name: string; email: string; number?: string; extraInfo?: { name: string; value: string }[] }): { name?: string; email?: string; number?: string; extraInfo?: string } {
  const out: { name?: string; email?: string; number?: string; extraInfo?: string } = {};
  const name = v.name.trim();
  if (!name) out.name = 'required';
  else if (name.length < 2) out.name = 'tooShort';
  else if (name.length > 50) out.name = 'tooLong';
  if (v.email.trim() && !EMAIL_RE.test(v.email.trim())) out.email = 'invalidEmail';
  if (v.number !== undefined) {
    const n = v.number.trim();
    if (!n) out.number = 'required';
    else if (n.length < 8 || n.length > 50) out.number = 'numberLength';
  }
  if (v.extraInfo?.some((f) => !f.name.trim() || !f.value.trim())) out.extraInfo = 'fieldRequired';
  return out;
}

function EditForm({ contact, onSaved, onCancel }: { contact: Contact; onSaved: (c: Contact) => void; onCancel: () => void }) {
  const { t } = useTranslation('inbox');
  const [name, setName] = useState(contact.name);
  const [number, setNumber] = useState(contact.number ?? '');
  const [email, setEmail] = useState(contact.email ?? '');
  const [fields, setFields] = useState<{ name: string; value: string }[]>(() => (contact.extraInfo ?? []).map((f) => ({ name: f.name, value: f.value })));
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const errors = validateContactForm({ name, email, number: contact.isGroup ? undefined : number, extraInfo: fields });
  const msg = (code?: string) => (code === 'numberLength' ? t('drawer.numberTooShort') : code === 'fieldRequired' ? t('drawer.fieldRequired') : code ? t(`conversation.validation.${code}`) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (errors.name || errors.email || errors.number || errors.extraInfo) return;
    setBusy(true);
    try {
      const body: Parameters<typeof updateContact>[1] = { name: name.trim(), email: email.trim(), extraInfo: fields.map((f) => ({ name: f.name.trim(), value: f.value.trim() })) };
      if (!contact.isGroup && number.trim() !== contact.number) body.number = number.trim();
      const saved = await updateContact(contact.id, body);
      toast.success(t('conversation.contact.saved'));
      onSaved(saved);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} style={{ display: 'grid', gap: 8 }} data-testid="contact-edit-form" noValidate>
      <TextField label={t('conversation.contact.name')} value={name} onChange={(e) => setName(e.target.value)} error={touched ? msg(errors.name) : undefined} data-testid="contact-edit-name" />
      {contact.isGroup ? null : (
        <TextField label={t('drawer.number')} value={number} inputMode="tel" onChange={(e) => setNumber(e.target.value)} error={touched ? msg(errors.number) : undefined} data-testid="contact-edit-number" />
      )}
      <TextField label={t('conversation.contact.email')} type="email" value={email} onChange={(e) => setEmail(e.target.value)} error={touched ? msg(errors.email) : undefined} data-testid="contact-edit-email" />
      <fieldset style={{ border: 'none', margin: 0, padding: 0, display: 'grid', gap: 6 }} data-testid="contact-edit-extra">
        <legend style={{ fontSize: 12, opacity: 0.8, padding: 0, marginBottom: 4 }}>{t('drawer.extraInfo')}</legend>
        {fields.map((f, i) => (
          <div key={i} style={{ display: 'flex', gap: 6, alignItems: 'flex-end' }}>
            <TextField label={t('drawer.fieldName')} value={f.name} maxLength={100} onChange={(e) => setFields((list) => list.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))} data-testid="extra-name" />
            <TextField label={t('drawer.fieldValue')} value={f.value} maxLength={500} onChange={(e) => setFields((list) => list.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))} data-testid="extra-value" />
            <IconButton label={t('drawer.removeField', { name: f.name })} tone="default" onClick={() => setFields((list) => list.filter((_x, j) => j !== i))} data-testid="extra-remove">
              <ConvIcon name="trash" size={16} />
            </IconButton>
          </div>
        ))}
        {touched && errors.extraInfo ? <ErrorLine role="alert">{msg(errors.extraInfo)}</ErrorLine> : null}
        <Button variant="text" onClick={() => setFields((list) => [...list, { name: '', value: '' }])} data-testid="extra-add">
          <ConvIcon name="plus" size={16} />
          {t('drawer.addField')}
        </Button>
      </fieldset>
      <div className="row">
        <Button variant="text" onClick={onCancel}>
          {t('conversation.cancel')}
        </Button>
        <Button type="submit" disabled={busy} data-testid="contact-edit-save">
          {t('conversation.save')}
        </Button>
      </div>
    </form>
  );
}

/** The contact's tags (GET /contactTags, POST /tags/sync): the tag selector of plain tags. */
function ContactTagsSection({ contact, onChanged }: { contact: Contact; onChanged: (c: Contact) => void }) {
  const { t } = useTranslation('inbox');
  const client = useQueryClient();
  const key = contactTagsKey(contact.id);
  const tags = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchContactTags(contact.id, signal), staleTime: 0 });
  const [busy, setBusy] = useState(false);
  const selected = (tags.data ?? contact.tags ?? []).map((x) => x.id);
  const toggle = async (tag: TagRef, on: boolean) => {
    const next = on ? [...new Set([...selected, tag.id])] : selected.filter((id) => id !== tag.id);
    setBusy(true);
    try {
      const answer = await syncContactTags(contact.id, next);
      const list = (answer.tags ?? []) as TagRef[];
      client.setQueryData(key, list);
      onChanged({ ...contact, tags: list });
      toast.success(t('tags.saved'), { toastId: `contact-tags-${contact.id}` });
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section aria-labelledby="conversation-contact-tags" data-testid="contact-tags">
      <h3 id="conversation-contact-tags">{t('drawer.tags')}</h3>
      <TagPicker selected={selected} onToggle={(tag, on) => void toggle(tag, on)} busy={busy} kanban={0} testId="contact-tag-picker" />
    </Section>
  );
}

function NotesSection({ ticket, contactId }: { ticket: Ticket; contactId: number }) {
  const { t } = useTranslation('inbox');
  const client = useQueryClient();
  const key = ['inbox', 'ticketNotes', ticket.id, contactId];
  const notes = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchNotes(ticket.id, contactId, signal), staleTime: 0 });
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [toDelete, setToDelete] = useState<TicketNote | null>(null);
  useEffect(() => {
    if (notes.error) toastError(notes.error);
  }, [notes.error]);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const note = text.trim();
    if (!note) return setError(t('conversation.validation.required'));
    if (note.length < NOTE_MIN) return setError(t('conversation.validation.tooShort'));
    setError(null);
    setBusy(true);
    try {
      const saved = await addNote({ note, ticketId: ticket.id, contactId });
      client.setQueryData<TicketNote[]>(key, (list) => [saved, ...(list ?? [])]);
      setText('');
      toast.success(t('conversation.notes.added'));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    const note = toDelete;
    if (!note) return;
    setBusy(true);
    try {
      await deleteNote(note.id);
      client.setQueryData<TicketNote[]>(key, (list) => (list ?? []).filter((n) => n.id !== note.id));
      setToDelete(null);
      toast.success(t('conversation.notes.deleted'));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section aria-labelledby="conversation-notes" data-testid="ticket-notes">
      <h3 id="conversation-notes">{t('conversation.notes.title')}</h3>
      <form onSubmit={add} style={{ display: 'grid', gap: 6 }}>
        <NoteBox
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            if (error) setError(null);
          }}
          placeholder={t('conversation.notes.placeholder')}
          aria-label={t('conversation.notes.placeholder')}
          aria-invalid={error ? true : undefined}
          $invalid={Boolean(error)}
          data-testid="note-text"
        />
        {error ? <ErrorLine role="alert">{error}</ErrorLine> : null}
        <Button type="submit" disabled={busy} data-testid="note-add">
          {t('conversation.notes.add')}
        </Button>
      </form>
      {notes.data && notes.data.length === 0 ? <Muted>{t('conversation.notes.empty')}</Muted> : null}
      {notes.data?.length ? (
        <Notes>
          {notes.data.map((n) => (
            <li key={n.id} data-testid="note">
              <div className="body">
                <div>{n.note}</div>
                <div className="by">
                  {n.user?.name ?? ''} · {formatDateTime(n.createdAt)}
                </div>
              </div>
              <IconButton label={t('conversation.notes.delete')} tone="default" onClick={() => setToDelete(n)} style={{ width: 32, height: 32 }}>
                <ConvIcon name="trash" size={16} />
              </IconButton>
            </li>
          ))}
        </Notes>
      ) : null}
      <ConfirmDialog
        open={toDelete !== null}
        title={t('conversation.notes.deleteTitle')}
        message={t('conversation.notes.deleteMessage')}
        confirmLabel={t('conversation.notes.deleteConfirm')}
        danger
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setToDelete(null)}
      />
    </Section>
  );
}

/**
 * The contact's privacy for admins (issue 34; plugins/compliance): its opt-out state (`GET
 * /contacts/:id/privacy`) with the admin's record or reversal at the customer's request (confirmed; audited
 * by the API), the export of everything held about it (a JSON file) and its anonymization (irreversible:
 * a confirmation that must be ticked). After an anonymization the contact is read again.
 */
function PrivacySection({ contact, onAnonymized }: { contact: Contact; onAnonymized: () => Promise<void> }) {
  const { t, i18n } = useTranslation('inbox');
  const client = useQueryClient();
  const key = ['inbox', 'contactPrivacy', contact.id];
  const privacy = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchContactPrivacy(contact.id, signal), staleTime: 0 });
  const [asking, setAsking] = useState<'record' | 'reverse' | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (privacy.error) toastError(privacy.error);
  }, [privacy.error]);
  const p = privacy.data;
  const change = async () => {
    if (!asking || busy) return;
    setBusy(true);
    try {
      const next = await setContactOptOut(contact.id, asking === 'record');
      client.setQueryData(key, { ...p, ...next });
      toast.success(t(asking === 'record' ? 'drawer.privacy.recorded' : 'drawer.privacy.reversed'));
      setAsking(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  const state = !p
    ? null
    : p.anonymizedAt
      ? t('drawer.privacy.anonymized', { date: formatDateTime(p.anonymizedAt) })
      : p.optedOutAt
        ? p.optOutKeyword && p.optOutKeyword !== 'MANUAL'
          ? t('drawer.privacy.optedOut', { date: formatDateTime(p.optedOutAt), word: p.optOutKeyword })
          : t('drawer.privacy.optedOutManual', { date: formatDateTime(p.optedOutAt) })
        : t('drawer.privacy.subscribed');
  return (
    <Section aria-labelledby="conversation-privacy" data-testid="contact-privacy">
      <h3 id="conversation-privacy">{t('drawer.privacy.title')}</h3>
      {state ? <div data-testid="contact-opt-out-state">{state}</div> : null}
      <div className="row">
        {p && !p.anonymizedAt ? (
          <Button variant="secondary" onClick={() => setAsking(p.optedOutAt ? 'reverse' : 'record')} disabled={busy} data-testid={p.optedOutAt ? 'contact-opt-out-reverse' : 'contact-opt-out-record'}>
            {t(p.optedOutAt ? 'drawer.privacy.reverse' : 'drawer.privacy.record')}
          </Button>
        ) : null}
        <ContactPrivacyActions
          contact={contact}
          texts={contactPrivacyTexts(i18n.language)}
          onDone={(action, text) => {
            toast.success(text);
            if (action === 'anonymize') void Promise.all([onAnonymized(), client.invalidateQueries({ queryKey: key })]);
          }}
          renderButton={(action, label, onClick, running) => (
            <Button variant={action === 'anonymize' ? 'danger' : 'secondary'} onClick={onClick} disabled={running || (action === 'anonymize' && Boolean(p?.anonymizedAt))} data-testid={`contact-${action}`}>
              {action === 'export' ? <ConvIcon name="download" size={16} /> : <ConvIcon name="lock" size={16} />}
              {label}
            </Button>
          )}
        />
      </div>
      <ConfirmDialog
        open={asking !== null}
        title={t(asking === 'record' ? 'drawer.privacy.recordTitle' : 'drawer.privacy.reverseTitle')}
        message={t(asking === 'record' ? 'drawer.privacy.recordMessage' : 'drawer.privacy.reverseMessage')}
        confirmLabel={t(asking === 'record' ? 'drawer.privacy.record' : 'drawer.privacy.reverse')}
        busy={busy}
        onConfirm={() => void change()}
        onClose={() => setAsking(null)}
      />
    </Section>
  );
}

/**
 * The contact drawer (spec 2-tickets.md §2, 320 px): picture, name, number, email, edit (name, number,
 * email, extra info fields), block/unblock, the bot-disable and accept-audio toggles, the contact's tags, the ticket's notes (add from 2 characters, delete with confirmation;
 * the list scrolls past 200 px), the extra info fields and, for admins, the contact's privacy (issue 34:
 * opt-out, export, anonymization; not for groups).
 */
export function ContactDrawer({ ticket, onClose, onContactChange }: { ticket: Ticket; onClose: () => void; onContactChange: (c: Contact) => void }) {
  const { t } = useTranslation('inbox');
  const client = useQueryClient();
  const contactId = ticket.contactId;
  const detailsKey = ['inbox', 'contact', contactId];
  const details = useQuery({ queryKey: detailsKey, queryFn: ({ signal }) => fetchContact(contactId, signal), staleTime: 0 });
  const contact: Contact | null = details.data ? { ...ticket.contact, ...details.data } : ticket.contact;
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (details.error) toastError(details.error);
  }, [details.error]);
  // Live: another attendant's edits of this contact (fields, toggles, tags) reach the open drawer.
  const me = useSessionUser();
  const companyId = me?.companyId;
  useSocketEvent<ContactEvent>(companyId ? `company-${companyId}-contact` : null, (data) => {
    if (!data || data.action === 'delete' || data.contact?.id !== contactId) return;
    client.setQueryData<Contact>(detailsKey, (old) => (old ? { ...old, ...data.contact } : old));
    if (Array.isArray(data.contact.tags)) client.setQueryData(contactTagsKey(contactId), data.contact.tags);
  });

  const changed = (c: Contact) => {
    client.setQueryData<Contact>(detailsKey, (old) => ({ ...old, ...c }));
    onContactChange(c);
  };

  const flip = async (work: () => Promise<Contact>, success?: (c: Contact) => string) => {
    setBusy(true);
    try {
      const c = await work();
      changed(c);
      const msg = success?.(c);
      if (msg) toast.success(msg);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!contact) return null;
  const active = contact.active !== false;
  return (
    <Panel aria-label={t('conversation.contact.title')} data-testid="contact-drawer">
      <header>
        <h2>{t('conversation.contact.title')}</h2>
        <IconButton label={t('conversation.close')} tone="default" onClick={onClose}>
          <ConvIcon name="close" />
        </IconButton>
      </header>
      <Section>
        {editing ? (
          <EditForm
            contact={contact}
            onCancel={() => setEditing(false)}
            onSaved={(c) => {
              changed(c);
              setEditing(false);
            }}
          />
        ) : (
          <>
            <div className="center">
              <Avatar name={contact.name} url={contact.urlPicture ?? contact.profilePicUrl} size={96} />
              <div className="name" data-testid="drawer-name">
                {contact.name}
              </div>
              <div data-testid="drawer-number">{contact.number}</div>
              {contact.email ? <div data-testid="drawer-email">{contact.email}</div> : null}
            </div>
            <div className="row" style={{ justifyContent: 'center' }}>
              <Button variant="secondary" onClick={() => setEditing(true)} data-testid="contact-edit">
                <ConvIcon name="edit" size={16} />
                {t('conversation.contact.edit')}
              </Button>
              <Button
                variant={active ? 'danger' : 'secondary'}
                onClick={() =>
                  void flip(
                    () => setContactActive(contact.id, !active),
                    (c) => (c.active === false ? t('conversation.contact.blocked') : t('conversation.contact.unblocked')),
                  )
                }
                disabled={busy}
                data-testid="contact-block"
              >
                <ConvIcon name="block" size={16} />
                {active ? t('conversation.contact.block') : t('conversation.contact.unblock')}
              </Button>
            </div>
            <Switch label={t('conversation.contact.disableBot')} checked={Boolean(contact.disableBot)} onChange={() => void flip(() => toggleDisableBot(contact.id))} disabled={busy} testId="contact-disable-bot" />
            <Switch label={t('drawer.acceptAudio')} checked={contact.acceptAudioMessage !== false} onChange={() => void flip(() => toggleAcceptAudio(contact.id))} disabled={busy} testId="contact-accept-audio" />
          </>
        )}
      </Section>
      {contact.isGroup ? null : <ContactTagsSection contact={contact} onChanged={changed} />}
      <NotesSection ticket={ticket} contactId={contactId} />
      {isAdmin(me) && !contact.isGroup ? (
        <PrivacySection
          contact={contact}
          onAnonymized={async () => {
            const fresh = await client.fetchQuery({ queryKey: detailsKey, queryFn: ({ signal }) => fetchContact(contactId, signal), staleTime: 0 });
            changed(fresh);
          }}
        />
      ) : null}
      <Section aria-labelledby="conversation-extra">
        <h3 id="conversation-extra">{t('conversation.contact.extraInfo')}</h3>
        {contact.extraInfo?.length ? (
          <dl data-testid="extra-info">
            {contact.extraInfo.map((f, i) => (
              <div key={f.id ?? i} style={{ display: 'contents' }}>
                <dt>{f.name}</dt>
                <dd>{f.value}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <Muted>{t('conversation.contact.noExtraInfo')}</Muted>
        )}
      </Section>
    </Panel>
  );
}
