import { useCallback, useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { HttpError, toastError } from '@atendo/web-api';
import { Button, Modal, TextField } from '@atendo/web-ui';
import { CheckboxField, Chip, DialogActions } from '@atendo/web-kit';
import { contactsKey, fetchDuplicates, MERGE_COUNT_KEYS, mergeContacts, previewMerge, searchContactOptions, type Contact, type ContactOption, type MergePreview } from './api';

const Group = styled.fieldset`
  margin: 0 0 ${(p) => p.theme.space(1.5)};
  padding: ${(p) => p.theme.space(1)} ${(p) => p.theme.space(1.5)};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  legend { display: flex; gap: 4px; padding: 0 4px; }
  label { display: flex; align-items: center; gap: ${(p) => p.theme.space(1)}; min-height: 36px; cursor: pointer; }
  label small { color: ${(p) => p.theme.colors.textMuted}; }
`;

const Facts = styled.dl`
  display: grid;
  grid-template-columns: max-content 1fr;
  gap: 4px ${(p) => p.theme.space(2)};
  margin: ${(p) => p.theme.space(1)} 0;
  dt { color: ${(p) => p.theme.colors.textMuted}; }
  dd { margin: 0; font-variant-numeric: tabular-nums; }
`;

const Scroll = styled.div`
  max-height: 50vh;
  overflow: auto;
`;

/** How the dialog starts: from the page's "duplicates" button, or from a contact's row (pick its duplicates). */
export type MergeStart = { kind: 'duplicates' } | { kind: 'pick'; contact: Contact };

type Choice = { targetId: number; sourceIds: number[] };

const line = (c: Pick<Contact, 'name' | 'number'>) => `${c.name} · ${c.number}`;

/**
 * Merging duplicate contacts (issue 33 item 5; admins): choose the contacts - a group the server found
 * (`GET /contacts/duplicates`: the same number with and without the Brazilian 9th digit, or one WhatsApp LID)
 * with the one to keep, or, from a contact's row, the duplicates to fold into it (searched by name or number)
 * - then a preview of what moves (`POST /contacts/merge/preview`: tickets, messages, tags...; nothing changes
 * yet), then the merge (`POST /contacts/merge` with the preview's token). A 409 ERR_MERGE_PREVIEW_STALE (a
 * contact changed meanwhile) shows its text and reloads the preview. `onMerged` after a merge (the page
 * reloads its list; the server's `company-{cid}-contact` events follow too).
 */
export function MergeDialog({ start, onClose, onMerged }: { start: MergeStart; onClose: () => void; onMerged: (kept: Contact) => void }) {
  const { t } = useTranslation('agent');
  const [choice, setChoice] = useState<Choice | null>(null);
  const back = useCallback(() => setChoice(null), []);
  return (
    <Modal open title={choice ? t('contacts.merge.previewTitle') : start.kind === 'duplicates' ? t('contacts.merge.duplicatesTitle') : t('contacts.merge.pickTitle', { name: start.contact.name })} onClose={onClose} closeLabel={t('common.close')} width={640}>
      {choice ? (
        <PreviewStep choice={choice} onBack={back} onMerged={onMerged} />
      ) : start.kind === 'duplicates' ? (
        <DuplicatesStep onChoose={setChoice} onClose={onClose} />
      ) : (
        <PickStep contact={start.contact} onChoose={setChoice} onClose={onClose} />
      )}
    </Modal>
  );
}

/** The server's groups of likely duplicates; the admin chooses which contact of a group stays. */
function DuplicatesStep({ onChoose, onClose }: { onChoose: (c: Choice) => void; onClose: () => void }) {
  const { t } = useTranslation('agent');
  const groups = useQuery({ queryKey: [...contactsKey, 'duplicates'], queryFn: ({ signal }) => fetchDuplicates(signal), staleTime: 0 });
  const [keep, setKeep] = useState<Record<number, number>>({});
  useEffect(() => {
    if (groups.error) toastError(groups.error);
  }, [groups.error]);
  const list = groups.data?.groups ?? [];
  return (
    <>
      {groups.isPending ? <p>{t('common.loading')}</p> : null}
      {!groups.isPending && !list.length ? <p data-testid="merge-no-duplicates">{t('contacts.merge.none')}</p> : null}
      {list.length ? <p>{t('contacts.merge.duplicatesHelp')}</p> : null}
      <Scroll data-testid="merge-groups">
        {list.map((g, i) => {
          const first = g.contacts[0];
          const kept = keep[i] ?? first.id;
          return (
            <Group key={g.contacts.map((c) => c.id).join('-')} data-testid={`merge-group-${i}`}>
              <legend>
                {g.reasons.map((r) => (
                  <Chip key={r} $tone="warning">
                    {t(`contacts.merge.reason.${r}`)}
                  </Chip>
                ))}
              </legend>
              {g.contacts.map((c) => (
                <label key={c.id}>
                  <input type="radio" name={`keep-${i}`} checked={kept === c.id} onChange={() => setKeep((k) => ({ ...k, [i]: c.id }))} data-testid={`merge-keep-${c.id}`} />
                  <span>{line(c)}</span>
                  {kept === c.id ? <small>{t('contacts.merge.keeps')}</small> : null}
                </label>
              ))}
              <Button variant="secondary" onClick={() => onChoose({ targetId: kept, sourceIds: g.contacts.map((c) => c.id).filter((id) => id !== kept) })} data-testid={`merge-group-preview-${i}`}>
                {t('contacts.merge.preview')}
              </Button>
            </Group>
          );
        })}
      </Scroll>
      <DialogActions>
        <Button variant="text" onClick={onClose}>
          {t('common.cancel')}
        </Button>
      </DialogActions>
    </>
  );
}

/** From a contact's row: search the duplicates to fold into it. */
function PickStep({ contact, onChoose, onClose }: { contact: Contact; onChoose: (c: Choice) => void; onClose: () => void }) {
  const { t } = useTranslation('agent');
  const [term, setTerm] = useState('');
  const [debounced, setDebounced] = useState('');
  const [picked, setPicked] = useState<ContactOption[]>([]);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(term.trim()), 400);
    return () => clearTimeout(timer);
  }, [term]);
  const found = useQuery({ queryKey: [...contactsKey, 'merge-search', debounced], queryFn: ({ signal }) => searchContactOptions(debounced, signal), enabled: debounced.length >= 2 });
  const options = (found.data ?? []).filter((c) => c.id !== contact.id && !c.isGroup).slice(0, 50);
  const toggle = (c: ContactOption) => setPicked((cur) => (cur.some((x) => x.id === c.id) ? cur.filter((x) => x.id !== c.id) : [...cur, c]));
  return (
    <>
      <p>{t('contacts.merge.pickHelp', { name: line(contact) })}</p>
      <TextField label={t('contacts.merge.search')} value={term} onChange={(e) => setTerm(e.target.value)} data-testid="merge-search" />
      <Scroll data-testid="merge-options">
        {[...picked.filter((p) => !options.some((o) => o.id === p.id)), ...options].map((c) => (
          <CheckboxField key={c.id} label={line(c)} checked={picked.some((x) => x.id === c.id)} onChange={() => toggle(c)} testId={`merge-option-${c.id}`} />
        ))}
      </Scroll>
      <DialogActions>
        <Button variant="text" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button disabled={!picked.length} onClick={() => onChoose({ targetId: contact.id, sourceIds: picked.map((p) => p.id) })} data-testid="merge-pick-preview">
          {t('contacts.merge.preview')}
        </Button>
      </DialogActions>
    </>
  );
}

/** What the merge will do, and the confirmation. */
function PreviewStep({ choice, onBack, onMerged }: { choice: Choice; onBack: () => void; onMerged: (kept: Contact) => void }) {
  const { t } = useTranslation('agent');
  const [preview, setPreview] = useState<MergePreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setPreview(null);
    previewMerge(choice.targetId, choice.sourceIds).then(
      (p) => live && setPreview(p),
      (err: unknown) => {
        toastError(err);
        if (live) onBack();
      },
    );
    return () => {
      live = false;
    };
  }, [choice, round, onBack]);

  const confirm = async () => {
    if (!preview || busy) return;
    setBusy(true);
    try {
      const done = await mergeContacts(choice.targetId, choice.sourceIds, preview.previewToken);
      toast.success(t('contacts.merge.done', { name: done.contact.name }));
      onMerged(done.contact);
    } catch (err) {
      toastError(err);
      // A contact changed since the preview: show the merge as it would be now.
      if (err instanceof HttpError && err.status === 409) setRound((r) => r + 1);
    } finally {
      setBusy(false);
    }
  };

  if (!preview) return <p>{t('common.loading')}</p>;
  const keys = [...MERGE_COUNT_KEYS.filter((k) => k in preview.counts), ...Object.keys(preview.counts).filter((k) => !(MERGE_COUNT_KEYS as readonly string[]).includes(k)).sort()];
  return (
    <div data-testid="merge-preview">
      <Facts>
        <dt>{t('contacts.merge.keep')}</dt>
        <dd data-testid="merge-preview-target">{line(preview.target)}</dd>
        <dt>{t('contacts.merge.remove')}</dt>
        <dd data-testid="merge-preview-sources">{preview.sources.map(line).join('; ')}</dd>
        <dt>{t('contacts.merge.result')}</dt>
        <dd data-testid="merge-preview-result">{[preview.result.name, preview.result.number, preview.result.email].filter(Boolean).join(' · ')}</dd>
      </Facts>
      <strong>{t('contacts.merge.moves')}</strong>
      <Facts data-testid="merge-preview-counts">
        {keys.map((k) => (
          <div key={k} style={{ display: 'contents' }} data-testid={`merge-count-${k}`}>
            <dt>{t(`contacts.merge.counts.${k}`, { defaultValue: k })}</dt>
            <dd>{preview.counts[k]}</dd>
          </div>
        ))}
      </Facts>
      <p>{t('contacts.merge.warning')}</p>
      <DialogActions>
        <Button variant="text" onClick={onBack}>
          {t('contacts.merge.back')}
        </Button>
        <Button onClick={() => void confirm()} disabled={busy} data-testid="merge-confirm">
          {t('contacts.merge.confirm')}
        </Button>
      </DialogActions>
    </div>
  );
}
