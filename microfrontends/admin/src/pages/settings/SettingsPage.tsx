import { lazy, Suspense, useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Card, Loading, SelectField, TextField, Title } from '@atendo/web-ui';
import { ListFrame, useErrorToast } from '@atendo/web-kit';
import { settingKeys } from '../../lib/api';
import { FormGrid, Tabs } from '../../lib/fields';
import { DialogActions } from '../../lib/parts';
import { registerTexts } from '../../i18n';
import { toWeek, weekValid, WeeklyHoursEditor, type WeekSchedule } from '../../lib/schedules';
import { fetchCompany, fetchCompanySettings, fetchLegacySettings, LGPD_KEYS, OPTIONS, saveCompanySchedules, saveCompanySetting, saveLegacySetting, settingsKeys, type CompanySettings, type SettingsEvent } from './api';

const Panel = styled(Card)`
  overflow: auto;
`;

type Tab = 'options' | 'schedules' | 'companies' | 'plans' | 'helps';

/** The super user's tabs load when first opened (the companies screen with its texts). */
const CompaniesTab = lazy(() =>
  Promise.all([import('../companies/CompaniesPage'), import('../companies/i18n')]).then(([m, i]) => {
    registerTexts(i.texts);
    return { default: m.CompaniesPage };
  }),
);
const PlansTab = lazy(() => import('./PlansTab').then((m) => ({ default: m.PlansTab })));
const HelpsTab = lazy(() => import('./HelpsTab').then((m) => ({ default: m.HelpsTab })));

/**
 * Settings (spec 1-platform.md §2 "Settings", §3 "Setting"): the options tab (every company option with its
 * allowed values, saved on change with a toast; free texts saved on leaving the field; userCreation for
 * super users) and, when scheduleType is `company`, the company's opening hours. Live on
 * `company-{id}-settings`. Super users also get the companies, plans and helps tabs (spec §2 "Settings").
 */
export function SettingsPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const companyId = me?.companyId ?? 0;
  const client = useQueryClient();
  const [tab, setTab] = useState<Tab>('options');
  const settings = useQuery({ queryKey: settingsKeys.company(companyId), queryFn: ({ signal }) => fetchCompanySettings(companyId, signal), enabled: companyId > 0 });
  const legacy = useQuery({ queryKey: settingsKeys.legacy, queryFn: ({ signal }) => fetchLegacySettings(signal), enabled: Boolean(me?.super) });
  useErrorToast(settings.error);
  const set = (key: string, value: string) => {
    client.setQueryData<CompanySettings>(settingsKeys.company(companyId), (old) => (old ? { ...old, [key]: value } : old));
    if (key === 'scheduleType') client.setQueryData(settingKeys.one('scheduleType'), value);
  };
  useSocketEvent<SettingsEvent>(companyId ? `company-${companyId}-settings` : null, (event) => {
    if (event?.action === 'update' && event.setting && typeof event.setting.key === 'string') set(event.setting.key, String(event.setting.value ?? ''));
  });

  const save = async (key: string, value: string) => {
    const before = settings.data?.[key];
    set(key, value);
    try {
      await saveCompanySetting(key, value);
      toast.success(t('common.saved'));
    } catch (err) {
      set(key, String(before ?? ''));
      toastError(err);
    }
  };
  const saveUserCreation = async (value: string) => {
    try {
      await saveLegacySetting('userCreation', value);
      client.setQueryData<{ key: string; value: string }[]>(settingsKeys.legacy, (old) => (old ?? []).map((r) => (r.key === 'userCreation' ? { ...r, value } : r)));
      toast.success(t('common.saved'));
    } catch (err) {
      toastError(err);
    }
  };

  const values = settings.data ?? {};
  const lgpdOn = values.enableLGPD === 'enabled';
  const withSchedules = values.scheduleType === 'company';
  const tabs: { key: Tab; label: string }[] = [{ key: 'options', label: t('settings.tabs.options') }];
  if (withSchedules) tabs.push({ key: 'schedules', label: t('settings.tabs.schedules') });
  if (me?.super) for (const key of ['companies', 'plans', 'helps'] as const) tabs.push({ key, label: t(`settings.tabs.${key}`) });
  const active: Tab = tabs.some((x) => x.key === tab) ? tab : 'options';
  const userCreation = legacy.data?.find((r) => r.key === 'userCreation')?.value ?? 'enabled';

  return (
    <ListFrame data-testid="settings-page">
      <Title>{t('settings.title')}</Title>
      <Tabs tabs={tabs} value={active} onChange={setTab} label={t('settings.title')} />
      {active === 'companies' || active === 'plans' || active === 'helps' ? (
        <Suspense fallback={<Loading label={t('common.loading')} />}>
          {active === 'companies' ? <CompaniesTab /> : active === 'plans' ? <PlansTab /> : <HelpsTab />}
        </Suspense>
      ) : settings.isPending ? (
        <Loading label={t('common.loading')} />
      ) : active === 'schedules' ? (
        <CompanyHours companyId={companyId} />
      ) : (
        <Panel>
          <FormGrid>
            {me?.super ? (
              <SelectField label={t('settings.options.userCreation')} value={userCreation} onChange={(e) => void saveUserCreation(e.target.value)} data-testid="setting-userCreation">
                {['enabled', 'disabled'].map((v) => (
                  <option key={v} value={v}>
                    {t(`settings.values.${v}`)}
                  </option>
                ))}
              </SelectField>
            ) : null}
            {OPTIONS.filter((o) => lgpdOn || !LGPD_KEYS.has(o.key)).map((o) =>
              o.values === 'text' ? (
                <TextOption key={o.key} name={o.key} label={t(`settings.options.${o.key}`)} value={String(values[o.key] ?? '')} onSave={(v) => void save(o.key, v)} />
              ) : (
                <SelectField key={o.key} label={t(`settings.options.${o.key}`)} value={String(values[o.key] ?? o.values[0])} onChange={(e) => void save(o.key, e.target.value)} data-testid={`setting-${o.key}`}>
                  {o.values.map((v) => (
                    <option key={v} value={v}>
                      {t(`settings.values.${v}`)}
                    </option>
                  ))}
                </SelectField>
              ),
            )}
          </FormGrid>
        </Panel>
      )}
    </ListFrame>
  );
}

/** A free-text option: edited locally, saved when the field is left with a changed value. */
function TextOption({ name, label, value, onSave }: { name: string; label: string; value: string; onSave: (v: string) => void }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  return <TextField label={label} value={draft} onChange={(e) => setDraft(e.target.value)} onBlur={() => draft !== value && onSave(draft)} data-testid={`setting-${name}`} />;
}

/** The company's opening hours (scheduleType `company`): the weekly editor, saved with a button. */
function CompanyHours({ companyId }: { companyId: number }) {
  const { t } = useTranslation('admin');
  const company = useQuery({ queryKey: settingsKeys.companyRow(companyId), queryFn: ({ signal }) => fetchCompany(companyId, signal) });
  useErrorToast(company.error);
  const [week, setWeek] = useState<WeekSchedule[] | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (company.data && week === null) setWeek(toWeek(company.data.schedules as WeekSchedule[]));
  }, [company.data, week]);
  if (!week) return <Loading label={t('common.loading')} />;
  const save = async () => {
    if (!weekValid(week)) {
      toast.error(t('schedules.invalid'));
      return;
    }
    setSaving(true);
    try {
      await saveCompanySchedules(companyId, week);
      toast.success(t('schedules.saved'));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Panel>
      <WeeklyHoursEditor value={week} onChange={setWeek} testId="company-hours" />
      <DialogActions>
        <Button onClick={() => void save()} disabled={saving} data-testid="company-hours-save">
          {t('settings.saveHours')}
        </Button>
      </DialogActions>
    </Panel>
  );
}
