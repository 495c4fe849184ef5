import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError } from '@atendo/web-api';
import { Button, IconButton, Loading, Modal, SelectField, TextField } from '@atendo/web-ui';
import { rules, useFieldProps, yup } from '@atendo/web-kit';
import { fetchCompanySetting, fetchOptionalList, fetchQueues, settingKeys, sharedKeys } from '../../lib/api';
import { CheckboxField, ChipToggles, FormGrid, Tabs, TextAreaField } from '../../lib/fields';
import { AdminIcon, DialogActions } from '../../lib/parts';
import { toWeek, weekValid, WeeklyHoursEditor, type WeekSchedule } from '../../lib/schedules';
import { OPTIONAL_LISTS } from '../queues/api';
import { connectionKeys, createConnection, fetchConnection, generateToken, GREETING_MEDIA_ACCEPT, GREETING_MEDIA_MAX_BYTES, removeGreetingMedia, SEND_QUEUE_MINUTES, updateConnection, uploadGreetingMedia, type Channel, type Connection, type ConnectionInput } from './api';

type Tab = 'general' | 'integrations' | 'messages' | 'chatbot' | 'nps' | 'schedules';

interface Values {
  name: string;
  isDefault: boolean;
  allowGroup: boolean;
  groupAsTicket: 'enabled' | 'disabled';
  token: string;
  facebookPageUserId: string;
  facebookUserToken: string;
  greetingMessage: string;
  complationMessage: string;
  outOfHoursMessage: string;
  ratingMessage: string;
  inactiveMessage: string;
  expiresInactiveMessage: string;
  maxUseBotQueues: string;
  timeUseBotQueues: string;
  timeSendQueue: string;
  sendIdQueue: string;
  expiresTicket: string;
  whenExpiresTicket: '0' | '1';
  timeInactiveMessage: string;
  timeCreateNewTicket: string;
  maxUseBotQueuesNPS: string;
  expiresTicketNPS: string;
  integrationId: string;
  promptId: string;
}

const META: Channel[] = ['whatsappapi', 'facebook', 'instagram'];
const digits = yup.string().matches(/^\d*$/, 'admin:connections.form.badNumber');

/** The connection form's rules (spec 2-tickets.md §5 "Connection"): name 2-50; minutes and counters are whole numbers. */
export const connectionSchema = (channel: Channel, creating: boolean) =>
  yup.object({
    name: rules.name(),
    token: yup.string().matches(/^([A-Za-z0-9_-]{16,100})?$/, 'admin:connections.form.badToken'),
    facebookPageUserId: META.includes(channel) ? yup.string().trim().matches(/^\d+$/, 'admin:connections.form.badAccountId').required('validation.required') : yup.string(),
    facebookUserToken: META.includes(channel) && creating ? yup.string().trim().required('validation.required') : yup.string(),
    maxUseBotQueues: digits,
    timeUseBotQueues: digits,
    expiresTicket: digits,
    timeInactiveMessage: digits,
    timeCreateNewTicket: digits,
    maxUseBotQueuesNPS: digits,
    expiresTicketNPS: digits,
  });

const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const n = (v: string, fallback = 0) => (v.trim() === '' ? fallback : Number(v));
const idOrNull = (v: string) => (v.trim() === '' || v === '0' ? null : Number(v));
const textOrNull = (v: string) => (v.trim() === '' ? null : v);

/**
 * Add/edit a connection (spec 2-tickets.md §2 "Connection modal tabs", §3 "Connection", §5, §9): general
 * (name, default, groups, queues, the external-API token generated and copied here, and for the Meta
 * channels the account id and access token), integrations (integration and prompt, empty until those
 * plugins exist), messages (greeting, completion, out-of-hours, rating, inactive), chatbot (bot repetitions
 * and timers, send-to-queue), nps (rating repetitions and expiry) and schedules when scheduleType is
 * `connection`. The greeting is required with more than one queue (ERR_WAPP_GREETING_REQUIRED otherwise).
 */
export function ConnectionModal({ connectionId, channel, onClose, onSaved }: { connectionId: number | null; channel: Channel; onClose: () => void; onSaved: (c: Connection) => void }) {
  const { t } = useTranslation('admin');
  const existing = useQuery({ queryKey: connectionKeys.one(connectionId ?? 0), queryFn: ({ signal }) => fetchConnection(connectionId!, signal), enabled: connectionId !== null, gcTime: 0, retry: false });
  const failed = connectionId !== null && existing.isError;
  useEffect(() => {
    if (!failed) return;
    toastError(existing.error);
    onClose();
  }, [failed, existing.error, onClose]);
  if (failed) return null;
  if (connectionId !== null && existing.isPending) {
    return (
      <Modal open title={t('connections.form.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={760}>
        <Loading label={t('common.loading')} />
      </Modal>
    );
  }
  const connection = existing.data ?? null;
  return <ConnectionForm connection={connection} channel={(connection?.channel as Channel) ?? channel} onClose={onClose} onSaved={onSaved} />;
}

function ConnectionForm({ connection, channel, onClose, onSaved }: { connection: (Connection & { token?: string }) | null; channel: Channel; onClose: () => void; onSaved: (c: Connection) => void }) {
  const { t } = useTranslation('admin');
  const [tab, setTab] = useState<Tab>('general');
  const [queueIds, setQueueIds] = useState<number[]>((connection?.queues ?? []).map((q) => q.id));
  const [week, setWeek] = useState<WeekSchedule[]>(() => toWeek(connection?.schedules as WeekSchedule[] | undefined));
  const queues = useQuery({ queryKey: sharedKeys.queues, queryFn: ({ signal }) => fetchQueues(signal) });
  const scheduleType = useQuery({ queryKey: settingKeys.one('scheduleType'), queryFn: ({ signal }) => fetchCompanySetting('scheduleType', signal) });
  const integrations = useQuery({ queryKey: ['admin', 'optional', 'integrations'], queryFn: ({ signal }) => fetchOptionalList(OPTIONAL_LISTS.integrations.path, OPTIONAL_LISTS.integrations.pick, signal) });
  const prompts = useQuery({ queryKey: ['admin', 'optional', 'prompts'], queryFn: ({ signal }) => fetchOptionalList(OPTIONAL_LISTS.prompts.path, OPTIONAL_LISTS.prompts.pick, signal) });
  const withSchedules = scheduleType.data === 'connection';
  const meta = META.includes(channel);
  const [media, setMedia] = useState<File | null>(null);
  const [mediaError, setMediaError] = useState<string | null>(null);
  const [dropMedia, setDropMedia] = useState(false);
  const storedMedia = typeof connection?.greetingMediaAttachment === 'string' && connection.greetingMediaAttachment ? connection.greetingMediaAttachment : null;
  const pickMedia = (file: File | undefined) => {
    setMediaError(null);
    if (!file) return setMedia(null);
    if (file.size > GREETING_MEDIA_MAX_BYTES) {
      setMedia(null);
      setMediaError(t('connections.form.greetingMediaTooBig'));
      return;
    }
    setMedia(file);
  };
  const creating = !connection;

  const formik = useFormik<Values>({
    initialValues: {
      name: connection?.name ?? '',
      isDefault: Boolean(connection?.isDefault),
      allowGroup: Boolean(connection?.allowGroup),
      groupAsTicket: connection?.groupAsTicket === 'enabled' ? 'enabled' : 'disabled',
      token: connection?.token ?? '',
      facebookPageUserId: s(connection?.facebookPageUserId),
      facebookUserToken: '',
      greetingMessage: s(connection?.greetingMessage),
      complationMessage: s(connection?.complationMessage),
      outOfHoursMessage: s(connection?.outOfHoursMessage),
      ratingMessage: s(connection?.ratingMessage),
      inactiveMessage: s(connection?.inactiveMessage),
      expiresInactiveMessage: s(connection?.expiresInactiveMessage),
      maxUseBotQueues: s(connection?.maxUseBotQueues ?? 3),
      timeUseBotQueues: s(connection?.timeUseBotQueues ?? 0),
      timeSendQueue: s(connection?.timeSendQueue ?? 0),
      sendIdQueue: s(connection?.sendIdQueue ?? ''),
      expiresTicket: s(connection?.expiresTicket ?? 0),
      whenExpiresTicket: connection?.whenExpiresTicket === '1' ? '1' : '0',
      timeInactiveMessage: s(connection?.timeInactiveMessage ?? 0),
      timeCreateNewTicket: s(connection?.timeCreateNewTicket ?? 0),
      maxUseBotQueuesNPS: s(connection?.maxUseBotQueuesNPS ?? 3),
      expiresTicketNPS: s(connection?.expiresTicketNPS ?? 0),
      integrationId: s(connection?.integrationId ?? ''),
      promptId: s(connection?.promptId ?? ''),
    },
    validationSchema: connectionSchema(channel, creating),
    validate: (values) => (queueIds.length > 1 && !values.greetingMessage.trim() ? { greetingMessage: 'admin:connections.form.greetingRequired' } : {}),
    onSubmit: async (values) => {
      if (withSchedules && !weekValid(week)) {
        setTab('schedules');
        toast.error(t('schedules.invalid'));
        return;
      }
      const body: ConnectionInput = {
        name: values.name.trim(),
        ...(creating ? { channel } : {}),
        isDefault: values.isDefault,
        allowGroup: values.allowGroup,
        groupAsTicket: values.groupAsTicket,
        queueIds,
        token: values.token || null,
        greetingMessage: textOrNull(values.greetingMessage),
        complationMessage: textOrNull(values.complationMessage),
        outOfHoursMessage: textOrNull(values.outOfHoursMessage),
        ratingMessage: textOrNull(values.ratingMessage),
        inactiveMessage: textOrNull(values.inactiveMessage),
        expiresInactiveMessage: textOrNull(values.expiresInactiveMessage),
        maxUseBotQueues: n(values.maxUseBotQueues, 3),
        timeUseBotQueues: n(values.timeUseBotQueues),
        timeSendQueue: n(values.timeSendQueue),
        sendIdQueue: idOrNull(values.sendIdQueue),
        expiresTicket: n(values.expiresTicket),
        whenExpiresTicket: values.whenExpiresTicket,
        timeInactiveMessage: n(values.timeInactiveMessage),
        timeCreateNewTicket: n(values.timeCreateNewTicket),
        maxUseBotQueuesNPS: n(values.maxUseBotQueuesNPS, 3),
        expiresTicketNPS: n(values.expiresTicketNPS),
        integrationId: idOrNull(values.integrationId),
        promptId: idOrNull(values.promptId),
        ...(meta ? { facebookPageUserId: values.facebookPageUserId.trim(), ...(values.facebookUserToken.trim() ? { facebookUserToken: values.facebookUserToken.trim() } : {}) } : {}),
        ...(withSchedules ? { schedules: week } : {}),
      };
      try {
        let saved = connection ? await updateConnection(connection.id, body) : await createConnection(body);
        onSaved(saved);
        // The greeting media goes after the save (it needs the connection's id), through its own route.
        try {
          if (media) saved = await uploadGreetingMedia(saved.id, media);
          else if (dropMedia && storedMedia) saved = await removeGreetingMedia(saved.id);
          onSaved(saved);
        } catch (err) {
          toastError(err);
          return;
        }
        toast.success(t('connections.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);

  const ERROR_TAB: Partial<Record<keyof Values, Tab>> = { greetingMessage: 'messages', maxUseBotQueues: 'chatbot', timeUseBotQueues: 'chatbot', expiresTicket: 'chatbot', timeInactiveMessage: 'messages', timeCreateNewTicket: 'chatbot', maxUseBotQueuesNPS: 'nps', expiresTicketNPS: 'nps' };
  // After a refused submit, the tab of the first error opens (once per attempt).
  const shownFor = useRef(0);
  useEffect(() => {
    if (formik.submitCount === 0 || formik.isValidating || formik.submitCount === shownFor.current) return;
    const first = Object.keys(formik.errors)[0] as keyof Values | undefined;
    if (!first) return;
    shownFor.current = formik.submitCount;
    setTab(ERROR_TAB[first] ?? 'general');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [formik.submitCount, formik.isValidating, formik.errors]);

  const tabs = useMemo(() => {
    const list: { key: Tab; label: string }[] = (['general', 'integrations', 'messages', 'chatbot', 'nps'] as const).map((k) => ({ key: k, label: t(`connections.tabs.${k}`) }));
    if (withSchedules) list.push({ key: 'schedules', label: t('connections.tabs.schedules') });
    return list;
  }, [t, withSchedules]);

  const copyToken = async () => {
    try {
      await navigator.clipboard.writeText(formik.values.token);
      toast.success(t('connections.form.tokenCopied'));
    } catch {
      toast.error(t('connections.form.tokenCopyFailed'));
    }
  };

  return (
    <Modal open title={t(creating ? 'connections.form.addTitle' : 'connections.form.editTitle', { channel: t(`connections.channels.${channel}`) })} onClose={onClose} closeLabel={t('common.close')} width={760}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="connection-form">
        <Tabs tabs={tabs} value={tab} onChange={setTab} label={t('connections.form.sections')} />
        <div hidden={tab !== 'general'}>
          <FormGrid>
            <TextField label={t('connections.form.name')} {...field('name')} data-testid="connection-name" />
            <CheckboxField label={t('connections.form.isDefault')} checked={formik.values.isDefault} onChange={(v) => void formik.setFieldValue('isDefault', v)} />
          </FormGrid>
          {meta ? (
            <FormGrid>
              <TextField label={t(`connections.form.accountId.${channel}`)} inputMode="numeric" {...field('facebookPageUserId')} data-testid="connection-account" />
              <TextField
                label={t('connections.form.accessToken')}
                type="password"
                autoComplete="off"
                helperText={connection?.hasToken ? t('connections.form.accessTokenKept') : undefined}
                {...field('facebookUserToken')}
                data-testid="connection-access-token"
              />
            </FormGrid>
          ) : (
            <FormGrid>
              <CheckboxField label={t('connections.form.allowGroup')} checked={formik.values.allowGroup} onChange={(v) => void formik.setFieldValue('allowGroup', v)} />
              <SelectField label={t('connections.form.groupAsTicket')} {...field('groupAsTicket')}>
                <option value="disabled">{t('connections.form.disabled')}</option>
                <option value="enabled">{t('connections.form.enabled')}</option>
              </SelectField>
            </FormGrid>
          )}
          <ChipToggles label={t('connections.form.queues')} items={queues.data ?? []} selected={queueIds} onChange={setQueueIds} empty={<small>{t('connections.form.noQueues')}</small>} />
          <TextField
            label={t('connections.form.token')}
            helperText={t('connections.form.tokenHelp')}
            {...field('token')}
            data-testid="connection-token"
            endAdornment={
              <>
                <IconButton label={t('connections.form.generateToken')} tone="default" onClick={() => void formik.setFieldValue('token', generateToken())} data-testid="token-generate">
                  <AdminIcon name="renew" />
                </IconButton>
                <IconButton label={t('connections.form.copyToken')} tone="default" disabled={!formik.values.token} onClick={() => void copyToken()}>
                  <AdminIcon name="copy" />
                </IconButton>
              </>
            }
          />
        </div>
        <div hidden={tab !== 'integrations'}>
          <FormGrid>
            <SelectField label={t('connections.form.integration')} {...field('integrationId')}>
              <option value="">{integrations.data?.length ? t('connections.form.none') : t('connections.form.noIntegrations')}</option>
              {(integrations.data ?? []).map((x) => (
                <option key={x.id} value={String(x.id)}>
                  {x.name}
                </option>
              ))}
            </SelectField>
            <SelectField label={t('connections.form.prompt')} {...field('promptId')}>
              <option value="">{prompts.data?.length ? t('connections.form.none') : t('connections.form.noPrompts')}</option>
              {(prompts.data ?? []).map((x) => (
                <option key={x.id} value={String(x.id)}>
                  {x.name}
                </option>
              ))}
            </SelectField>
          </FormGrid>
        </div>
        <div hidden={tab !== 'messages'}>
          <TextAreaField label={t('connections.form.greeting')} rows={3} {...field('greetingMessage')} data-testid="connection-greeting" helperText={queueIds.length > 1 ? t('connections.form.greetingHelp') : undefined} />
          <label>
            {t('connections.form.greetingMedia')}{' '}
            <input type="file" accept={GREETING_MEDIA_ACCEPT} aria-label={t('connections.form.greetingMedia')} onChange={(e) => pickMedia(e.target.files?.[0])} data-testid="connection-greeting-media" />
          </label>
          {mediaError ? <p role="alert" data-testid="connection-greeting-media-error">{mediaError}</p> : null}
          {storedMedia && !media ? (
            <CheckboxField label={t('connections.form.greetingMediaRemove', { name: storedMedia.split('/').pop() })} checked={dropMedia} onChange={setDropMedia} testId="connection-greeting-media-remove" />
          ) : null}
          <TextAreaField label={t('connections.form.completion')} rows={2} {...field('complationMessage')} />
          <TextAreaField label={t('connections.form.outOfHours')} rows={2} {...field('outOfHoursMessage')} />
          <TextAreaField label={t('connections.form.rating')} rows={2} {...field('ratingMessage')} />
          <FormGrid>
            <TextField label={t('connections.form.timeInactive')} inputMode="numeric" {...field('timeInactiveMessage')} />
          </FormGrid>
          <TextAreaField label={t('connections.form.inactive')} rows={2} {...field('inactiveMessage')} />
          <TextAreaField label={t('connections.form.expiresInactive')} rows={2} {...field('expiresInactiveMessage')} />
        </div>
        <div hidden={tab !== 'chatbot'}>
          <FormGrid>
            <TextField label={t('connections.form.maxUseBotQueues')} inputMode="numeric" {...field('maxUseBotQueues')} />
            <TextField label={t('connections.form.timeUseBotQueues')} inputMode="numeric" {...field('timeUseBotQueues')} />
            <SelectField label={t('connections.form.timeSendQueue')} {...field('timeSendQueue')}>
              {SEND_QUEUE_MINUTES.map((m) => (
                <option key={m} value={String(m)}>
                  {m === 0 ? t('connections.form.disabled') : t('connections.form.minutes', { count: m })}
                </option>
              ))}
            </SelectField>
            <SelectField label={t('connections.form.sendIdQueue')} {...field('sendIdQueue')}>
              <option value="">{t('connections.form.none')}</option>
              {(queues.data ?? []).map((q) => (
                <option key={q.id} value={String(q.id)}>
                  {q.name}
                </option>
              ))}
            </SelectField>
            <TextField label={t('connections.form.expiresTicket')} inputMode="numeric" {...field('expiresTicket')} />
            <SelectField label={t('connections.form.whenExpiresTicket')} {...field('whenExpiresTicket')}>
              <option value="0">{t('connections.form.whenExpires.0')}</option>
              <option value="1">{t('connections.form.whenExpires.1')}</option>
            </SelectField>
            <TextField label={t('connections.form.timeCreateNewTicket')} inputMode="numeric" {...field('timeCreateNewTicket')} />
          </FormGrid>
        </div>
        <div hidden={tab !== 'nps'}>
          <FormGrid>
            <TextField label={t('connections.form.maxUseBotQueuesNPS')} inputMode="numeric" {...field('maxUseBotQueuesNPS')} />
            <TextField label={t('connections.form.expiresTicketNPS')} inputMode="numeric" {...field('expiresTicketNPS')} />
          </FormGrid>
        </div>
        {withSchedules ? (
          <div hidden={tab !== 'schedules'}>
            <WeeklyHoursEditor value={week} onChange={setWeek} testId="connection-hours" />
          </div>
        ) : null}
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="connection-submit">
            {t(creating ? 'connections.form.add' : 'connections.form.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
