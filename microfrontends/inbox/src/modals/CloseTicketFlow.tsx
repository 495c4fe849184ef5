import { useCallback, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { HttpError, toastError } from '@atendo/web-api';
import { Button, Modal } from '@atendo/web-ui';
import { contactTagsKey, fetchContactTags, syncContactTags, updateTicket } from '../lib/api';
import type { Tag, Ticket } from '../types';
import { DialogActions } from './Dialogs';
import { TagPicker } from './TagPicker';

const Text = styled.p`
  margin: 0 0 12px;
  line-height: 1.5;
`;

/** The fields of a ticket the close flow needs (the list's and the conversation's tickets both have them). */
export type ClosableTicket = Pick<Ticket, 'id' | 'uuid' | 'contactId'>;

/**
 * Closing a ticket, the same from the ticket row's "Resolver" and the conversation header (issue 20 items 2
 * and 9; spec 2-tickets.md §4): a dialog with the two choices (close without the farewell message, or close
 * normally), then `PUT /tickets/:id {status: 'closed'[, sendFarewellMessage: false]}`. When the company
 * requires a tag (`requiredTag`) and the contact has none, the server answers ERR_REQUIRED_TAG: instead of a
 * dead end the contact's tag selector opens with the warning (messagesList.header.buttons.requiredTag), and
 * "Save and close" closes with the same choice once a tag is set. `onClosed(answer)` runs after a close.
 */
export function useCloseTicket({ onClosed }: { onClosed: (answer: Ticket, ticket: ClosableTicket) => void }): { start: (t: ClosableTicket) => void; busy: boolean; dialogs: ReactNode } {
  const { t } = useTranslation('inbox');
  const [target, setTarget] = useState<ClosableTicket | null>(null);
  const [tagStep, setTagStep] = useState<{ ticket: ClosableTicket; withFarewell: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const close = useCallback(
    async (ticket: ClosableTicket, withFarewell: boolean) => {
      setBusy(true);
      try {
        const answer = await updateTicket(ticket.id, withFarewell ? { status: 'closed' } : { status: 'closed', sendFarewellMessage: false });
        setTarget(null);
        setTagStep(null);
        toast.success(t('closeFlow.closed'), { toastId: `closed-${ticket.id}` });
        onClosed(answer, ticket);
      } catch (err) {
        if (err instanceof HttpError && err.code === 'ERR_REQUIRED_TAG') {
          setTarget(null);
          setTagStep({ ticket, withFarewell });
        } else toastError(err);
      } finally {
        setBusy(false);
      }
    },
    [onClosed, t],
  );

  const dialogs = (
    <>
      <Modal open={target !== null} title={t('closeFlow.title')} onClose={() => setTarget(null)} closeLabel={t('common.close')}>
        <Text>{t('closeFlow.message')}</Text>
        <DialogActions>
          <Button variant="text" onClick={() => setTarget(null)}>
            {t('common.cancel')}
          </Button>
          <Button variant="secondary" onClick={() => target && void close(target, false)} disabled={busy} data-testid="resolve-without-farewell">
            {t('closeFlow.withoutFarewell')}
          </Button>
          <Button onClick={() => target && void close(target, true)} disabled={busy} data-testid="resolve-normal">
            {t('closeFlow.normal')}
          </Button>
        </DialogActions>
      </Modal>
      {tagStep ? <RequiredTagDialog ticket={tagStep.ticket} busy={busy} onCancel={() => setTagStep(null)} onSaveAndClose={() => void close(tagStep.ticket, tagStep.withFarewell)} /> : null}
    </>
  );
  return { start: setTarget, busy, dialogs };
}

/** The requiredTag step: the warning and the contact's tag selector; closing needs at least one tag. */
function RequiredTagDialog({ ticket, busy, onCancel, onSaveAndClose }: { ticket: ClosableTicket; busy: boolean; onCancel: () => void; onSaveAndClose: () => void }) {
  const { t } = useTranslation('inbox');
  const client = useQueryClient();
  const key = contactTagsKey(ticket.contactId);
  const tags = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchContactTags(ticket.contactId, signal), staleTime: 0 });
  const [saving, setSaving] = useState(false);
  const selected = (tags.data ?? []).map((x) => x.id);
  const toggle = async (tag: Tag, on: boolean) => {
    const next = on ? [...new Set([...selected, tag.id])] : selected.filter((id) => id !== tag.id);
    setSaving(true);
    try {
      const answer = await syncContactTags(ticket.contactId, next);
      client.setQueryData<Tag[]>(key, answer.tags ?? (await fetchContactTags(ticket.contactId)));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal open title={t('closeFlow.requiredTitle')} onClose={onCancel} closeLabel={t('common.close')}>
      <Text role="alert" data-testid="required-tag-message">
        {t('closeFlow.requiredTag')}
      </Text>
      <TagPicker selected={selected} onToggle={(tag, on) => void toggle(tag, on)} busy={saving} kanban={0} testId="required-tag-picker" />
      <DialogActions>
        <Button variant="text" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button onClick={onSaveAndClose} disabled={busy || saving || selected.length === 0} data-testid="required-tag-close">
          {t('closeFlow.saveAndClose')}
        </Button>
      </DialogActions>
    </Modal>
  );
}
