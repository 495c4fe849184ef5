import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, Card, TextField } from '@atendo/web-ui';
import { DataTable, ListFrame, ListHeader, ListStatus, mergeListPages, TableCard, TextAreaField, useErrorToast } from '@atendo/web-kit';
import { ConfirmDialog } from '../../lib/parts';
import { fetchOptOuts, fetchSettings, parseKeywords, previewRetention, privacyKeys, reverseOptOut, saveSettings, type OptedOut } from './api';

const Form = styled(Card)`
  display: grid;
  gap: ${(p) => p.theme.space(2)};
  padding: ${(p) => p.theme.space(2)};
  margin-bottom: ${(p) => p.theme.space(2)};
`;

/**
 * Privacy (issue 34 item 4; plugins/compliance): the company's opt-out words (comma separated; a customer
 * writing one of them as the whole message stops receiving campaigns and bulk sends) and the confirmation
 * sent back; the opted-out contacts, latest first, each reversible at the customer's request (confirmed;
 * audited by the API).
 */
export function PrivacyPage() {
  const { t, i18n } = useTranslation('admin');
  const client = useQueryClient();
  const settings = useQuery({ queryKey: privacyKeys.settings, queryFn: ({ signal }) => fetchSettings(signal) });
  useErrorToast(settings.error);
  const [words, setWords] = useState('');
  const [reply, setReply] = useState('');
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (!settings.data) return;
    setWords(settings.data.optOutKeywords.join(', '));
    setReply(settings.data.optOutReply);
  }, [settings.data]);

  const list = useInfiniteQuery({
    queryKey: privacyKeys.optOuts,
    queryFn: ({ pageParam, signal }) => fetchOptOuts(pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last: { hasMore: boolean }, all: unknown[]) => (last.hasMore ? all.length + 1 : undefined),
  });
  useErrorToast(list.error);
  const rows = useMemo(() => mergeListPages(list.data), [list.data]);
  const [reversing, setReversing] = useState<OptedOut | null>(null);
  const [busy, setBusy] = useState(false);
  // Retention (item 3): the days typed, the dry run shown before it is switched on.
  const [days, setDays] = useState('');
  const [preview, setPreview] = useState<{ days: number; contacts: number } | null>(null);
  // The saved value fills the field when it changes (a save, another admin), not while it is being typed.
  const savedDays = settings.data?.retentionDays ?? null;
  useEffect(() => {
    setDays(savedDays ? String(savedDays) : '');
  }, [savedDays]);
  const daysValue = /^\d+$/.test(days.trim()) && Number(days) >= 1 && Number(days) <= 3650 ? Number(days) : null;
  const runPreview = async () => {
    if (!daysValue) return;
    try {
      setPreview(await previewRetention(daysValue));
    } catch (err) {
      toastError(err);
    }
  };
  const saveRetention = async (value: number | null) => {
    setSaving(true);
    try {
      client.setQueryData(privacyKeys.settings, await saveSettings({ retentionDays: value }));
      setPreview(null);
      toast.success(t('privacy.saved'));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };
  const when = useMemo(() => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' }), [i18n.language]);

  const save = async () => {
    const optOutKeywords = parseKeywords(words);
    if (!optOutKeywords.length) {
      toast.error(t('privacy.errors.words'));
      return;
    }
    setSaving(true);
    try {
      client.setQueryData(privacyKeys.settings, await saveSettings({ optOutKeywords, optOutReply: reply.trim() || null }));
      toast.success(t('privacy.saved'));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };
  const reverse = async () => {
    if (!reversing || busy) return;
    setBusy(true);
    try {
      await reverseOptOut(reversing.id);
      toast.success(t('privacy.reversed'));
      setReversing(null);
      await client.invalidateQueries({ queryKey: privacyKeys.optOuts });
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="privacy-page">
      <ListHeader title={t('privacy.title')} />
      <Form as="form" onSubmit={(e: { preventDefault: () => void }) => { e.preventDefault(); void save(); }} data-testid="privacy-settings">
        <TextField label={t('privacy.words')} helperText={t('privacy.wordsHelp')} value={words} onChange={(e) => setWords(e.target.value)} data-testid="privacy-words" />
        <TextAreaField label={t('privacy.reply')} value={reply} onChange={(e) => setReply(e.target.value)} maxLength={1000} rows={3} data-testid="privacy-reply" />
        <div>
          <Button type="submit" disabled={saving || settings.isPending} data-testid="privacy-save">
            {t('privacy.save')}
          </Button>
        </div>
      </Form>
      <Form data-testid="privacy-retention">
        <strong>{t('privacy.retention.title')}</strong>
        <span>{settings.data?.retentionDays ? t('privacy.retention.on', { count: settings.data.retentionDays }) : t('privacy.retention.off')}</span>
        <TextField label={t('privacy.retention.days')} inputMode="numeric" value={days} onChange={(e) => { setDays(e.target.value); setPreview(null); }} error={days && !daysValue ? t('privacy.retention.invalid') : undefined} data-testid="privacy-days" />
        <div>
          <Button variant="secondary" onClick={() => void runPreview()} disabled={!daysValue} data-testid="privacy-preview">
            {t('privacy.retention.preview')}
          </Button>{' '}
          <Button onClick={() => daysValue && void saveRetention(daysValue)} disabled={!preview || preview.days !== daysValue || saving} data-testid="privacy-retention-on">
            {t('privacy.retention.enable')}
          </Button>{' '}
          {settings.data?.retentionDays ? (
            <Button variant="text" onClick={() => void saveRetention(null)} disabled={saving} data-testid="privacy-retention-off">
              {t('privacy.retention.disable')}
            </Button>
          ) : null}
        </div>
        {preview ? <span data-testid="privacy-preview-result">{t('privacy.retention.result', { count: preview.contacts, days: preview.days })}</span> : null}
      </Form>
      <ListHeader title={t('privacy.optOuts')} count={list.data ? t('privacy.count', { count: list.data.pages[0]?.count ?? 0 }) : undefined} countTestId="privacy-count" />
      <TableCard>
        {list.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('privacy.cols.name')}</th>
                <th scope="col">{t('privacy.cols.number')}</th>
                <th scope="col">{t('privacy.cols.word')}</th>
                <th scope="col">{t('privacy.cols.when')}</th>
                <th scope="col">{t('privacy.cols.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="privacy-rows">
              {rows.map((r) => (
                <tr key={r.id} data-testid={`privacy-row-${r.id}`}>
                  <td className="start">{r.name}</td>
                  <td>{r.number}</td>
                  <td>{r.optOutKeyword ?? ''}</td>
                  <td>{r.optedOutAt ? when.format(new Date(r.optedOutAt)) : ''}</td>
                  <td className="actions">
                    <Button variant="text" onClick={() => setReversing(r)} data-testid={`privacy-reverse-${r.id}`}>
                      {t('privacy.reverse')}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          loading={list.isPending}
          empty={!list.isPending && rows.length === 0}
          failed={list.isError}
          onRetry={() => void list.refetch()}
          hasMore={Boolean(list.hasNextPage)}
          loadingMore={list.isFetchingNextPage}
          onLoadMore={() => void list.fetchNextPage()}
          texts={{ loading: t('common.loading'), empty: list.isError ? t('common.loadFailed') : t('privacy.empty'), retry: t('common.retry'), loadMore: t('privacy.loadMore') }}
          emptyIcon="check"
          testId="privacy"
        />
      </TableCard>
      <ConfirmDialog
        open={Boolean(reversing)}
        title={t('privacy.confirmTitle', { name: reversing?.name ?? '' })}
        message={t('privacy.confirmMessage')}
        confirmLabel={t('privacy.reverse')}
        busy={busy}
        onConfirm={() => void reverse()}
        onClose={() => setReversing(null)}
      />
    </ListFrame>
  );
}
