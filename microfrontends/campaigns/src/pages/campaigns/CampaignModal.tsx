import { useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, IconButton, Modal, SelectField, TextField } from '@atendo/web-ui';
import { CheckboxField, DialogActions, TextAreaField, rules, useErrorToast, useFieldProps, yup } from '@atendo/web-kit';
import { CampaignIcon, ErrorLine, FormGrid, Tabs } from '../../lib/parts';
import {
  MEDIA_MAX_BYTES,
  VARIANTS,
  createCampaign,
  deleteCampaignMedia,
  editScope,
  fetchAllLists,
  fetchConnections,
  fetchSettingRows,
  fetchTags,
  keys,
  parseSettings,
  toApiDate,
  toLocalInput,
  updateCampaign,
  uploadCampaignMedia,
  type Campaign,
  type CampaignInput,
} from '../../lib/api';

type MessageKey = `message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`;
type TabKey = `v${1 | 2 | 3 | 4 | 5}`;

export interface CampaignFormValues extends Record<MessageKey, string> {
  name: string;
  confirmation: boolean;
  scheduledAt: string;
  recipients: 'list' | 'tag';
  contactListId: string;
  tagListId: string;
  whatsappIds: number[];
}

/** The campaign form's rules (spec §5): name required, 2 to 50 characters. */
export const campaignSchema = yup.object({ name: rules.name() });

const MESSAGE_KEYS: MessageKey[] = VARIANTS.flatMap((n) => [`message${n}`, `confirmationMessage${n}`] as MessageKey[]);
/** The variables a campaign fills itself (spec §3 "Message variables": {nome}, {numero}, {email}). */
const OWN_VARIABLES = ['{nome}', '{numero}', '{email}'];

const Chips = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  margin: -4px 0 ${(p) => p.theme.space(1)};
  button { padding: 2px 8px; border-radius: ${(p) => p.theme.radius.round}; border: 1px solid ${(p) => p.theme.colors.border}; background: transparent; color: ${(p) => p.theme.colors.text}; cursor: pointer; font-size: ${(p) => p.theme.font.size.xs}; }
  button:disabled { opacity: 0.5; cursor: default; }
`;
const Group = styled.fieldset`
  border: none;
  margin: 0 0 ${(p) => p.theme.space(1)};
  padding: 0;
  legend { font-size: ${(p) => p.theme.font.size.sm}; font-weight: ${(p) => p.theme.font.weight.medium}; color: ${(p) => p.theme.colors.textMuted}; padding: 0; }
  .row { display: flex; flex-wrap: wrap; gap: 0 ${(p) => p.theme.space(2)}; }
`;
const Media = styled.div`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  min-height: 40px;
  a { color: ${(p) => p.theme.colors.primary}; word-break: break-all; }
`;
const ReadOnly = styled.p`
  margin: 0 0 ${(p) => p.theme.space(1)};
  color: ${(p) => p.theme.colors.warning};
`;

function initialValues(c: Campaign | null): CampaignFormValues {
  const messages = Object.fromEntries(MESSAGE_KEYS.map((k) => [k, c?.[k] ?? ''])) as Record<MessageKey, string>;
  return {
    ...messages,
    name: c?.name ?? '',
    confirmation: c?.confirmation ?? false,
    scheduledAt: toLocalInput(c?.scheduledAt),
    recipients: c?.tagListId && !c?.contactListId ? 'tag' : 'list',
    contactListId: c?.contactListId ? String(c.contactListId) : '',
    tagListId: c?.tagListId ? String(c.tagListId) : '',
    whatsappIds: c?.whatsappIds ?? [],
  };
}

/**
 * The body the dialog sends (spec §7: `whatsappId` joined by commas, dates `YYYY-MM-DD HH:mm:ss`, '' as
 * null): every field for a new or editable campaign (the schedule only when it changed, since the server
 * reads a time without offset in the company's zone), only the messages for a cancelled one. Pure.
 */
export function campaignBody(values: CampaignFormValues, initial: CampaignFormValues, scope: 'all' | 'messages', creating: boolean): CampaignInput {
  const body: CampaignInput = {};
  for (const k of MESSAGE_KEYS) body[k] = values[k];
  if (scope === 'messages') return body;
  body.name = values.name.trim();
  body.confirmation = values.confirmation;
  if (creating || values.scheduledAt !== initial.scheduledAt) body.scheduledAt = values.scheduledAt ? toApiDate(values.scheduledAt) : null;
  body.contactListId = values.recipients === 'list' && values.contactListId ? Number(values.contactListId) : null;
  body.tagListId = values.recipients === 'tag' && values.tagListId ? Number(values.tagListId) : null;
  body.whatsappId = values.whatsappIds.length ? values.whatsappIds.join(',') : null;
  return body;
}

/**
 * The campaign dialog (spec §2 "Campaigns list", §4): name, confirmation on/off, recipients (a contact list
 * or the contacts of a tag), connections (several rotate), schedule, the five message tabs each with its
 * confirmation text when confirmation is on (with the variables to insert), and the media (after the
 * campaign exists). Read-only, with a title that says so, unless INATIVA or PROGRAMADA more than an hour
 * ahead; a cancelled campaign's messages stay editable.
 */
export function CampaignModal({ campaign, onClose, onSaved }: { campaign: Campaign | null; onClose: () => void; onSaved: (c: Campaign) => void }) {
  const { t } = useTranslation('campaigns');
  const [current, setCurrent] = useState<Campaign | null>(campaign);
  const [tab, setTab] = useState<TabKey>('v1');
  const [mediaBusy, setMediaBusy] = useState(false);
  const [mediaError, setMediaError] = useState('');
  const focused = useRef<MessageKey>('message1');
  // The newest of what the list handed (live events) and what this dialog saved.
  const live = !campaign ? current : !current || campaign.updatedAt >= current.updatedAt ? campaign : current;
  const scope = editScope(live);
  const lists = useQuery({ queryKey: keys.listOptions, queryFn: ({ signal }) => fetchAllLists(signal) });
  const connections = useQuery({ queryKey: keys.connections, queryFn: ({ signal }) => fetchConnections(signal) });
  const tags = useQuery({ queryKey: keys.tags, queryFn: ({ signal }) => fetchTags(signal) });
  const settings = useQuery({ queryKey: keys.settings, queryFn: ({ signal }) => fetchSettingRows(signal) });
  useErrorToast(lists.error ?? connections.error ?? settings.error);
  const initial = initialValues(campaign);
  const formik = useFormik<CampaignFormValues>({
    initialValues: initial,
    validationSchema: scope === 'all' ? campaignSchema : undefined,
    onSubmit: async (values) => {
      if (scope === 'none') return;
      try {
        const body = campaignBody(values, initial, scope, !live);
        const saved = live ? await updateCampaign(live.id, body) : await createCampaign(body);
        setCurrent(saved);
        onSaved(saved);
        toast.success(t('campaigns.toasts.saved'));
        if (live) onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  const all = scope !== 'all';
  const msgs = scope === 'none';
  const variables = [...OWN_VARIABLES, ...parseSettings(settings.data).variables.map((v) => `{${v.key}}`)];

  const insert = (v: string) => {
    const k = focused.current;
    void formik.setFieldValue(k, `${formik.values[k]}${formik.values[k] && !/\s$/.test(formik.values[k]) ? ' ' : ''}${v}`);
  };

  const onMedia = async (file: File | undefined) => {
    setMediaError('');
    if (!file || !live) return;
    if (file.size > MEDIA_MAX_BYTES) {
      setMediaError(t('campaigns.form.mediaTooBig'));
      return;
    }
    setMediaBusy(true);
    try {
      const saved = await uploadCampaignMedia(live.id, file);
      setCurrent(saved);
      onSaved(saved);
    } catch (err) {
      toastError(err);
    } finally {
      setMediaBusy(false);
    }
  };
  const removeMedia = async () => {
    if (!live) return;
    setMediaBusy(true);
    try {
      const saved = await deleteCampaignMedia(live.id);
      setCurrent(saved);
      onSaved(saved);
    } catch (err) {
      toastError(err);
    } finally {
      setMediaBusy(false);
    }
  };

  const n = Number(tab.slice(1)) as 1 | 2 | 3 | 4 | 5;
  const title = scope === 'none' ? t('campaigns.form.readOnlyTitle') : t(live ? 'campaigns.form.editTitle' : 'campaigns.form.addTitle');
  return (
    <Modal open title={title} onClose={onClose} closeLabel={t('common.close')} width={760}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="campaign-form" data-scope={scope}>
        {scope === 'messages' ? <ReadOnly>{t('campaigns.form.messagesOnly')}</ReadOnly> : null}
        <FormGrid>
          <TextField label={t('campaigns.form.name')} {...field('name')} disabled={all} data-testid="campaign-name" />
          <SelectField label={t('campaigns.form.confirmation')} value={formik.values.confirmation ? '1' : '0'} onChange={(e) => void formik.setFieldValue('confirmation', e.target.value === '1')} disabled={all} data-testid="campaign-confirmation">
            <option value="0">{t('campaigns.disabled')}</option>
            <option value="1">{t('campaigns.enabled')}</option>
          </SelectField>
          <SelectField label={t('campaigns.form.recipients')} value={formik.values.recipients} onChange={(e) => void formik.setFieldValue('recipients', e.target.value)} disabled={all} data-testid="campaign-recipients">
            <option value="list">{t('campaigns.form.byList')}</option>
            <option value="tag">{t('campaigns.form.byTag')}</option>
          </SelectField>
          {formik.values.recipients === 'list' ? (
            <SelectField label={t('campaigns.form.contactList')} {...field('contactListId')} disabled={all} data-testid="campaign-list">
              <option value="">{t('campaigns.noList')}</option>
              {(lists.data ?? []).map((l) => (
                <option key={l.id} value={String(l.id)}>
                  {l.name}
                </option>
              ))}
            </SelectField>
          ) : (
            <SelectField label={t('campaigns.form.tag')} {...field('tagListId')} disabled={all} data-testid="campaign-tag">
              <option value="">{t('campaigns.form.noTag')}</option>
              {(tags.data ?? []).map((tg) => (
                <option key={tg.id} value={String(tg.id)}>
                  {tg.name}
                </option>
              ))}
            </SelectField>
          )}
          <TextField label={t('campaigns.form.scheduledAt')} type="datetime-local" {...field('scheduledAt')} disabled={all} helperText={t('campaigns.form.scheduledHelp')} data-testid="campaign-scheduled" />
        </FormGrid>
        <Group disabled={all} data-testid="campaign-connections">
          <legend>{t('campaigns.form.connections')}</legend>
          <div className="row">
            {connections.isPending ? <span>{t('common.loading')}</span> : null}
            {connections.data && connections.data.length === 0 ? <span>{t('campaigns.form.noConnections')}</span> : null}
            {(connections.data ?? []).map((c) => (
              <CheckboxField
                key={c.id}
                label={`${c.name} (${c.status})`}
                checked={formik.values.whatsappIds.includes(c.id)}
                disabled={all}
                onChange={(on) => void formik.setFieldValue('whatsappIds', on ? [...formik.values.whatsappIds, c.id] : formik.values.whatsappIds.filter((id) => id !== c.id))}
                testId={`campaign-connection-${c.id}`}
              />
            ))}
          </div>
        </Group>
        <Tabs label={t('campaigns.form.messages')} tabs={VARIANTS.map((v) => ({ key: `v${v}` as TabKey, label: t('campaigns.form.tab', { n: v }) }))} value={tab} onChange={setTab} />
        <Chips aria-label={t('campaigns.form.variables')}>
          {variables.map((v) => (
            <button key={v} type="button" disabled={msgs} onMouseDown={(e) => e.preventDefault()} onClick={() => insert(v)}>
              {v}
            </button>
          ))}
        </Chips>
        <TextAreaField
          label={t('campaigns.form.message', { n })}
          {...field(`message${n}`)}
          onFocus={() => (focused.current = `message${n}`)}
          disabled={msgs}
          helperText={t('campaigns.form.messageHelp')}
          data-testid={`campaign-message${n}`}
        />
        {formik.values.confirmation ? (
          <TextAreaField
            label={t('campaigns.form.confirmationMessage', { n })}
            {...field(`confirmationMessage${n}`)}
            onFocus={() => (focused.current = `confirmationMessage${n}`)}
            disabled={msgs}
            helperText={t('campaigns.form.confirmationHelp')}
            data-testid={`campaign-confirmation${n}`}
          />
        ) : null}
        <Media data-testid="campaign-media">
          {live?.mediaName ? (
            <>
              <CampaignIcon name="attach" />
              {live.mediaPath ? (
                <a href={live.mediaPath} target="_blank" rel="noreferrer">
                  {live.mediaName}
                </a>
              ) : (
                <span>{live.mediaName}</span>
              )}
              {!all ? (
                <IconButton label={t('campaigns.form.removeMedia')} tone="default" disabled={mediaBusy} onClick={() => void removeMedia()} data-testid="campaign-media-remove">
                  <CampaignIcon name="trash" />
                </IconButton>
              ) : null}
            </>
          ) : live && !all ? (
            <label>
              <span>{t('campaigns.form.attach')} </span>
              <input type="file" disabled={mediaBusy} onChange={(e) => void onMedia(e.target.files?.[0])} data-testid="campaign-media-input" />
            </label>
          ) : !live ? (
            <span>{t('campaigns.form.mediaAfterSave')}</span>
          ) : null}
          {mediaError ? <ErrorLine role="alert">{mediaError}</ErrorLine> : null}
        </Media>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.close')}
          </Button>
          {scope !== 'none' ? (
            <Button type="submit" disabled={formik.isSubmitting} data-testid="campaign-submit">
              {t(live ? 'common.save' : 'common.add')}
            </Button>
          ) : null}
        </DialogActions>
      </form>
    </Modal>
  );
}
