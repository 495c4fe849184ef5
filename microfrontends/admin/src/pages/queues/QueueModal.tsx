import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, Loading, Modal, SelectField, TextField } from '@atendo/web-ui';
import { rules, useFieldProps, yup } from '@atendo/web-kit';
import { fetchCompanySetting, fetchOptionalList, fetchQueues, fetchUserRefs, settingKeys, sharedKeys, type Queue } from '../../lib/api';
import { CheckboxField, FormGrid, Tabs, TextAreaField } from '../../lib/fields';
import { DialogActions } from '../../lib/parts';
import { toWeek, weekValid, WeeklyHoursEditor, type WeekSchedule } from '../../lib/schedules';
import { createQueue, fetchQueue, OPTIONAL_LISTS, ROTATION_MINUTES, updateQueue, type QueueInput, type QueueWithChatbots } from './api';
import { ChatbotEditor } from './ChatbotEditor';
import { toBody, toDrafts, treeValid, type OptionDraft } from './tree';

/** Colours offered next to the picker. */
const SWATCHES = ['#e53935', '#d81b60', '#8e24aa', '#3949ab', '#1e88e5', '#00897b', '#43a047', '#fdd835', '#fb8c00', '#6d4c41', '#546e7a', '#000000'];
const COLOR = /^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** The queue form's rules (spec 2-tickets.md §5 "Queue"): name 2-50, colour required 3-9 characters (#rgb…). */
export const queueSchema = yup.object({
  name: rules.name(),
  color: yup.string().trim().required('validation.required').min(3, 'validation.tooShort').max(9, 'validation.tooLong').matches(COLOR, 'admin:queues.form.badColor'),
  orderQueue: yup.string().matches(/^\d*$/, 'admin:queues.form.badOrder'),
});

interface Values {
  name: string;
  color: string;
  orderQueue: string;
  greetingMessage: string;
  outOfHoursMessage: string;
  ativarRoteador: boolean;
  tempoRoteador: string;
  closeTicket: boolean;
  integrationId: string;
  promptId: string;
  fileListId: string;
}

const Swatches = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  margin: -8px 0 ${(p) => p.theme.space(1.5)};
  button { width: 24px; height: 24px; border-radius: 50%; border: 2px solid ${(p) => p.theme.colors.surface}; box-shadow: 0 0 0 1px ${(p) => p.theme.colors.border}; cursor: pointer; }
  button[aria-pressed='true'] { box-shadow: 0 0 0 2px ${(p) => p.theme.colors.text}; }
`;

const ColorInput = styled.input`
  width: 44px;
  height: 40px;
  padding: 0;
  border: none;
  background: transparent;
  cursor: pointer;
`;

type Tab = 'data' | 'chatbot' | 'schedules';

const str = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));
const num = (v: string) => (v.trim() === '' ? null : Number(v));

/**
 * Add/edit a queue (spec 2-tickets.md §2 "Queues", §3 "Queue", §5): the data tab (name, colour with a picker
 * and swatches, order, greeting and out-of-hours messages, rotation, close-ticket flag, and the integration,
 * prompt and file-list selects, empty until those plugins exist), the chatbot tab (the option-tree editor)
 * and the service-hours tab when the company's scheduleType is `queue`. Saved in one request with the tree;
 * ERR_QUEUE_COLOR_ALREADY_EXISTS, the plan's queue limit and the rest show as the error toast.
 */
export function QueueModal({ queueId, onClose, onSaved }: { queueId: number | null; onClose: () => void; onSaved: (queue: QueueWithChatbots) => void }) {
  const { t } = useTranslation('admin');
  const existing = useQuery({ queryKey: ['admin', 'queue', queueId], queryFn: ({ signal }) => fetchQueue(queueId!, signal), enabled: queueId !== null, gcTime: 0, retry: false });
  const failed = queueId !== null && existing.isError;
  useEffect(() => {
    if (!failed) return;
    toastError(existing.error);
    onClose();
  }, [failed, existing.error, onClose]);
  if (failed) return null;
  if (queueId !== null && existing.isPending) {
    return (
      <Modal open title={t('queues.form.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={860}>
        <Loading label={t('common.loading')} />
      </Modal>
    );
  }
  return <QueueForm queue={existing.data ?? null} onClose={onClose} onSaved={onSaved} />;
}

function QueueForm({ queue, onClose, onSaved }: { queue: QueueWithChatbots | null; onClose: () => void; onSaved: (queue: QueueWithChatbots) => void }) {
  const { t } = useTranslation('admin');
  const [current, setCurrent] = useState<QueueWithChatbots | null>(queue);
  const [tab, setTab] = useState<Tab>('data');
  const [tree, setTree] = useState<OptionDraft[]>(() => toDrafts(queue?.chatbots));
  const [week, setWeek] = useState<WeekSchedule[]>(() => toWeek(queue?.schedules));
  const [showTreeErrors, setShowTreeErrors] = useState(false);
  const scheduleType = useQuery({ queryKey: settingKeys.one('scheduleType'), queryFn: ({ signal }) => fetchCompanySetting('scheduleType', signal) });
  const queues = useQuery({ queryKey: sharedKeys.queues, queryFn: ({ signal }) => fetchQueues(signal) });
  const users = useQuery({ queryKey: ['admin', 'users', 'refs'], queryFn: ({ signal }) => fetchUserRefs(signal) });
  const integrations = useQuery({ queryKey: ['admin', 'optional', 'integrations'], queryFn: ({ signal }) => fetchOptionalList(OPTIONAL_LISTS.integrations.path, OPTIONAL_LISTS.integrations.pick, signal) });
  const prompts = useQuery({ queryKey: ['admin', 'optional', 'prompts'], queryFn: ({ signal }) => fetchOptionalList(OPTIONAL_LISTS.prompts.path, OPTIONAL_LISTS.prompts.pick, signal) });
  const files = useQuery({ queryKey: ['admin', 'optional', 'files'], queryFn: ({ signal }) => fetchOptionalList(OPTIONAL_LISTS.files.path, OPTIONAL_LISTS.files.pick, signal) });
  const withSchedules = scheduleType.data === 'queue';
  const creating = !current;

  const formik = useFormik<Values>({
    initialValues: {
      name: queue?.name ?? '',
      color: queue?.color ?? '',
      orderQueue: str(queue?.orderQueue),
      greetingMessage: queue?.greetingMessage ?? '',
      outOfHoursMessage: queue?.outOfHoursMessage ?? '',
      ativarRoteador: Boolean(queue?.ativarRoteador),
      tempoRoteador: queue?.tempoRoteador ? String(queue.tempoRoteador) : String(ROTATION_MINUTES[0]),
      closeTicket: Boolean(queue?.closeTicket),
      integrationId: str(queue?.integrationId),
      promptId: str(queue?.promptId),
      fileListId: str(queue?.fileListId),
    },
    validationSchema: queueSchema,
    onSubmit: async (values) => {
      if (!treeValid(tree)) {
        setShowTreeErrors(true);
        setTab('chatbot');
        toast.error(t('queues.chatbot.fix'));
        return;
      }
      if (withSchedules && !weekValid(week)) {
        setTab('schedules');
        toast.error(t('schedules.invalid'));
        return;
      }
      const body: QueueInput = {
        name: values.name.trim(),
        color: values.color.trim(),
        orderQueue: num(values.orderQueue),
        greetingMessage: values.greetingMessage.trim() || null,
        outOfHoursMessage: values.outOfHoursMessage.trim() || null,
        ativarRoteador: values.ativarRoteador,
        tempoRoteador: values.ativarRoteador ? Number(values.tempoRoteador) : 0,
        closeTicket: values.closeTicket,
        integrationId: num(values.integrationId),
        promptId: num(values.promptId),
        fileListId: num(values.fileListId),
        chatbots: toBody(tree),
        ...(withSchedules ? { schedules: week } : {}),
      };
      try {
        const saved = current ? await updateQueue(current.id, body) : await createQueue(body);
        setCurrent(saved);
        onSaved(saved);
        toast.success(t('queues.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);

  // A data-tab error after a submit attempt brings the data tab back.
  useEffect(() => {
    if (formik.submitCount > 0 && Object.keys(formik.errors).length) setTab('data');
  }, [formik.submitCount, formik.errors]);

  const tabs = useMemo(() => {
    const list: { key: Tab; label: string }[] = [
      { key: 'data', label: t('queues.tabs.data') },
      { key: 'chatbot', label: t('queues.tabs.chatbot') },
    ];
    if (withSchedules) list.push({ key: 'schedules', label: t('queues.tabs.schedules') });
    return list;
  }, [t, withSchedules]);

  const otherQueues: Queue[] = (queues.data ?? []).filter((q) => q.id !== current?.id);
  const select = (name: 'integrationId' | 'promptId' | 'fileListId', label: string, list: { id: number; name: string }[] | undefined, empty: string) => (
    <SelectField label={label} {...field(name)} data-testid={`queue-${name}`}>
      <option value="">{list && list.length ? t('queues.form.none') : empty}</option>
      {(list ?? []).map((x) => (
        <option key={x.id} value={String(x.id)}>
          {x.name}
        </option>
      ))}
    </SelectField>
  );

  return (
    <Modal open title={t(creating ? 'queues.form.addTitle' : 'queues.form.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={860}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="queue-form">
        <Tabs tabs={tabs} value={tab} onChange={setTab} label={t('queues.form.sections')} />
        <div hidden={tab !== 'data'}>
          <FormGrid>
            <TextField label={t('queues.form.name')} {...field('name')} data-testid="queue-name" />
            <TextField
              label={t('queues.form.color')}
              placeholder="#rrggbb"
              {...field('color')}
              data-testid="queue-color"
              endAdornment={<ColorInput type="color" aria-label={t('queues.form.pickColor')} value={COLOR.test(formik.values.color) && formik.values.color.length === 7 ? formik.values.color : '#000000'} onChange={(e) => void formik.setFieldValue('color', e.target.value)} />}
            />
          </FormGrid>
          <Swatches role="group" aria-label={t('queues.form.swatches')}>
            {SWATCHES.map((c) => (
              <button key={c} type="button" style={{ background: c }} aria-label={c} aria-pressed={formik.values.color.toLowerCase() === c} onClick={() => void formik.setFieldValue('color', c)} />
            ))}
          </Swatches>
          <FormGrid>
            <TextField label={t('queues.form.order')} inputMode="numeric" {...field('orderQueue')} data-testid="queue-order" />
            <CheckboxField label={t('queues.form.closeTicket')} checked={formik.values.closeTicket} onChange={(v) => void formik.setFieldValue('closeTicket', v)} />
            <CheckboxField label={t('queues.form.rotation')} checked={formik.values.ativarRoteador} onChange={(v) => void formik.setFieldValue('ativarRoteador', v)} testId="queue-rotation" />
            <SelectField label={t('queues.form.rotationTime')} {...field('tempoRoteador')} disabled={!formik.values.ativarRoteador}>
              {ROTATION_MINUTES.map((m) => (
                <option key={m} value={String(m)}>
                  {t('queues.form.minutes', { count: m })}
                </option>
              ))}
            </SelectField>
            {select('integrationId', t('queues.form.integration'), integrations.data, t('queues.form.noIntegrations'))}
            {select('promptId', t('queues.form.prompt'), prompts.data, t('queues.form.noPrompts'))}
            {select('fileListId', t('queues.form.fileList'), files.data, t('queues.form.noFileLists'))}
          </FormGrid>
          <TextAreaField label={t('queues.form.greeting')} rows={3} {...field('greetingMessage')} data-testid="queue-greeting" />
          <TextAreaField label={t('queues.form.outOfHours')} rows={2} {...field('outOfHoursMessage')} />
        </div>
        <div hidden={tab !== 'chatbot'}>
          <ChatbotEditor
            value={tree}
            onChange={setTree}
            showErrors={showTreeErrors}
            targets={{ queues: otherQueues, users: users.data ?? [], integrations: integrations.data ?? [], files: files.data ?? [] }}
          />
        </div>
        {withSchedules ? (
          <div hidden={tab !== 'schedules'}>
            <WeeklyHoursEditor value={week} onChange={setWeek} testId="queue-hours" />
          </div>
        ) : null}
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="queue-submit">
            {t(creating ? 'queues.form.add' : 'queues.form.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
