import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Card, EmptyState, IconButton, Loading, Muted, SelectField, TextField, Title } from '@atendo/web-ui';
import { ListFrame, useErrorToast } from '@atendo/web-kit';
import { CampaignIcon, FormGrid } from '../../lib/parts';
import { SETTING_CHOICES, fetchSettingRows, keys, parseSettings, saveSettings, type CampaignSettingRow, type SettingsInput } from '../../lib/api';

const Section = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  h2 { margin: 0; font-size: ${(p) => p.theme.font.size.lg}; }
`;
const VarRow = styled.div`
  display: grid;
  grid-template-columns: 1fr 2fr auto;
  gap: ${(p) => p.theme.space(1)};
  align-items: start;
`;
const Actions = styled.div`
  display: flex;
  justify-content: flex-end;
`;

/** A variable key: 1 to 50 characters, no braces or spaces (the server's rule). */
const KEY = /^[^{}\s]{1,50}$/;

/** The first problem of the variables editor, as an i18n key, or null. Pure. */
export function variablesProblem(variables: SettingsInput['variables']): { index: number; key: 'config.errors.badKey' | 'config.errors.duplicated' } | null {
  const seen = new Set<string>();
  for (const [index, v] of variables.entries()) {
    const k = v.key.trim();
    if (!KEY.test(k)) return { index, key: 'config.errors.badKey' };
    if (seen.has(k)) return { index, key: 'config.errors.duplicated' };
    seen.add(k);
  }
  return null;
}

/**
 * Campaign settings (/campaigns-config, admins; spec §2 "Campaign settings", §9): the interval selects
 * (seconds between messages, messages before a longer pause, the longer pause), the custom variables
 * editor (unique keys, used as `{key}` in messages) and save; live on `company-{id}-campaign-settings`.
 */
export function CampaignsConfigPage() {
  const { t } = useTranslation('campaigns');
  const me = useSessionUser();
  const client = useQueryClient();
  const query = useQuery({ queryKey: keys.settings, queryFn: ({ signal }) => fetchSettingRows(signal) });
  useErrorToast(query.error);
  const [form, setForm] = useState<SettingsInput | null>(null);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (query.data && !dirty) setForm(parseSettings(query.data));
  }, [query.data, dirty]);
  useSocketEvent<{ action: 'update'; settings: CampaignSettingRow[] }>(me ? `company-${me.companyId}-campaign-settings` : null, (event) => {
    if (event && Array.isArray(event.settings)) client.setQueryData(keys.settings, event.settings);
  });

  if (query.isError && !form) {
    return (
      <ListFrame data-testid="campaigns-config-page">
        <EmptyState icon="warning" text={t('config.loadFailed')} role="alert" data-testid="config-failed">
          <Button variant="secondary" onClick={() => void query.refetch()}>
            {t('common.retry')}
          </Button>
        </EmptyState>
      </ListFrame>
    );
  }
  if (!form) return <Loading label={t('common.loading')} />;

  const change = (next: SettingsInput) => {
    setForm(next);
    setDirty(true);
  };
  const problem = variablesProblem(form.variables);
  const save = async () => {
    setTried(true);
    if (problem) return;
    setSaving(true);
    try {
      const rows = await saveSettings({ ...form, variables: form.variables.map((v) => ({ key: v.key.trim(), value: v.value })) });
      client.setQueryData(keys.settings, rows);
      setDirty(false);
      toast.success(t('config.saved'));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };
  const select = (name: 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval', unit: 'seconds' | 'messages') => {
    const choices: readonly number[] = SETTING_CHOICES[name];
    const options = choices.includes(form[name]) ? choices : [...choices, form[name]].sort((a, b) => a - b);
    return (
      <SelectField label={t(`config.fields.${name}`)} value={String(form[name])} onChange={(e) => change({ ...form, [name]: Number(e.target.value) })} data-testid={`config-${name}`}>
        {options.map((v) => (
          <option key={v} value={String(v)}>
            {v === 0 ? t(`config.zero.${name}`) : t(`config.${unit}`, { count: v })}
          </option>
        ))}
      </SelectField>
    );
  };

  return (
    <ListFrame data-testid="campaigns-config-page">
      <Title>{t('config.title')}</Title>
      <Section>
        <h2>{t('config.intervals')}</h2>
        <Muted>{t('config.intervalsHelp')}</Muted>
        <FormGrid>
          {select('messageInterval', 'seconds')}
          {select('longerIntervalAfter', 'messages')}
          {select('greaterInterval', 'seconds')}
        </FormGrid>
      </Section>
      <Section data-testid="config-variables">
        <h2>{t('config.variables')}</h2>
        <Muted>{t('config.variablesHelp')}</Muted>
        {form.variables.length === 0 ? <Muted data-testid="config-variables-empty">{t('config.noVariables')}</Muted> : null}
        {form.variables.map((v, i) => (
          <VarRow key={i} data-testid={`config-variable-${i}`}>
            <TextField
              label={t('config.key')}
              value={v.key}
              onChange={(e) => change({ ...form, variables: form.variables.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)) })}
              error={tried && problem?.index === i ? t(problem.key) : false}
              data-testid={`config-variable-key-${i}`}
            />
            <TextField label={t('config.value')} value={v.value} onChange={(e) => change({ ...form, variables: form.variables.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)) })} data-testid={`config-variable-value-${i}`} />
            <IconButton label={t('config.removeVariable', { key: v.key })} tone="default" onClick={() => change({ ...form, variables: form.variables.filter((_, j) => j !== i) })} style={{ marginTop: 24 }}>
              <CampaignIcon name="trash" />
            </IconButton>
          </VarRow>
        ))}
        <div>
          <Button variant="secondary" onClick={() => change({ ...form, variables: [...form.variables, { key: '', value: '' }] })} data-testid="config-variable-add">
            <CampaignIcon name="plus" size={18} />
            {t('config.addVariable')}
          </Button>
        </div>
      </Section>
      <Actions>
        <Button onClick={() => void save()} disabled={saving} data-testid="config-save">
          {t('common.save')}
        </Button>
      </Actions>
    </ListFrame>
  );
}
