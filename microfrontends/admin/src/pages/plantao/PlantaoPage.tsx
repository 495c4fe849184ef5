import { useCallback, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Modal, SelectField, TextField } from '@atendo/web-ui';
import { applyArrayChange, DataTable, ListFrame, ListHeader, ListStatus, TableCard, useErrorToast, type ListChange } from '@atendo/web-kit';
import { fetchUserRefs } from '../../lib/api';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { createPlantao, deletePlantao, emptyDays, fetchPlantoes, maskTime, plantaoErrors, plantaoKeys, updatePlantao, WEEKDAYS, WEEKDAY_PT, type Plantao, type PlantaoDay, type PlantaoEvent } from './api';

/**
 * On-duty roster (spec 3-campaigns-and-tools.md "On-duty roster (/plantao)"): a table of id, on-duty
 * person, phone, hours and actions; the add/edit dialog with the weekday grid and HH:MM masks; the remove
 * confirmation; live on `company-{id}-plantao`.
 */
export function PlantaoPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const client = useQueryClient();
  const [editing, setEditing] = useState<{ record: Plantao | null } | null>(null);
  const [deleting, setDeleting] = useState<Plantao | null>(null);
  const [busy, setBusy] = useState(false);
  const query = useQuery({ queryKey: plantaoKeys.list, queryFn: ({ signal }) => fetchPlantoes(signal) });
  useErrorToast(query.error);
  // Listed by id, as the API answers.
  const apply = useCallback(
    (change: ListChange<Plantao>) => client.setQueryData<Plantao[]>(plantaoKeys.list, (old) => applyArrayChange(old, change)?.sort((a, b) => a.id - b.id)),
    [client],
  );
  useSocketEvent<PlantaoEvent>(me ? `company-${me.companyId}-plantao` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.id) });
    else if (event.record && typeof event.record.id === 'number') apply({ type: 'upsert', record: event.record });
  });

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deletePlantao(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('plantao.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const rows = query.data ?? [];
  const dayName = (d: PlantaoDay) => t(`schedules.days.${d.weekdayEn}`);
  return (
    <ListFrame data-testid="plantao-page">
      <ListHeader title={t('plantao.title')} count={query.data ? t('plantao.count', { count: rows.length }) : undefined} countTestId="plantao-count">
        <Button onClick={() => setEditing({ record: null })} data-testid="plantao-add">
          <AdminIcon name="plus" size={18} />
          {t('plantao.add')}
        </Button>
      </ListHeader>
      <TableCard>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col">{t('plantao.cols.id')}</th>
                <th scope="col" className="start">{t('plantao.cols.user')}</th>
                <th scope="col">{t('plantao.cols.phone')}</th>
                <th scope="col" className="start">{t('plantao.cols.hours')}</th>
                <th scope="col">{t('plantao.cols.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="plantao-rows">
              {rows.map((p) => (
                <tr key={p.id} data-testid={`plantao-row-${p.id}`}>
                  <td>{p.id}</td>
                  <td className="start">{p.user.name}</td>
                  <td>{p.phone}</td>
                  <td className="start">
                    {p.days.filter((d) => d.startTime && d.endTime).map((d) => `${dayName(d)} ${d.startTime}–${d.endTime}`).join(', ')}
                  </td>
                  <td className="actions">
                    <IconButton label={t('plantao.edit', { name: p.user.name })} tone="default" onClick={() => setEditing({ record: p })}>
                      <AdminIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('plantao.delete', { name: p.user.name })} tone="default" onClick={() => setDeleting(p)}>
                      <AdminIcon name="trash" />
                    </IconButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          loading={query.isPending}
          empty={!query.isPending && rows.length === 0}
          failed={query.isError}
          onRetry={() => void query.refetch()}
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('plantao.empty'), retry: t('common.retry') }}
          emptyIcon="clock"
          testId="plantao"
        />
      </TableCard>
      {editing ? <PlantaoModal record={editing.record} onClose={() => setEditing(null)} onSaved={(p) => apply({ type: 'upsert', record: p })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('plantao.confirmTitle', { name: deleting?.user.name ?? '' })}
        message={t('plantao.confirmMessage')}
        confirmLabel={t('plantao.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The add/edit dialog: user, phone, interval (default 1) and the seven weekdays with HH:MM masks. */
export function PlantaoModal({ record, onClose, onSaved }: { record: Plantao | null; onClose: () => void; onSaved: (p: Plantao) => void }) {
  const { t } = useTranslation('admin');
  const users = useQuery({ queryKey: ['admin', 'users', 'refs'], queryFn: ({ signal }) => fetchUserRefs(signal) });
  const [userId, setUserId] = useState(record ? String(record.userId) : '');
  const [phone, setPhone] = useState(record?.phone ?? '');
  const [interval, setInterval] = useState(String(record?.interval ?? 1));
  const [days, setDays] = useState<PlantaoDay[]>(() => {
    const base = emptyDays();
    return base.map((d) => record?.days.find((x) => x.weekdayEn === d.weekdayEn) ?? d);
  });
  const [shown, setShown] = useState(false);
  const [saving, setSaving] = useState(false);
  const errors = plantaoErrors({ userId, phone, interval, days });
  const errorOf = (field: string) => (shown ? errors.find((e) => e.field === field) : undefined);
  const setTime = (weekdayEn: string, key: 'startTime' | 'endTime', value: string) =>
    setDays((list) => list.map((d) => (d.weekdayEn === weekdayEn ? { ...d, [key]: maskTime(value) || null } : d)));

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setShown(true);
    if (errors.length || saving) return;
    setSaving(true);
    const body = { userId: Number(userId), phone, interval: Number(interval), days: days.map((d) => ({ ...d, weekday: WEEKDAY_PT[d.weekdayEn] })) };
    try {
      const saved = record ? await updatePlantao(record.id, body) : await createPlantao(body);
      onSaved(saved);
      toast.success(t('plantao.saved'));
      onClose();
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };

  const daysError = errorOf('days');
  return (
    <Modal open title={t(record ? 'plantao.editTitle' : 'plantao.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={640}>
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="plantao-form">
        <SelectField label={t('plantao.user')} value={userId} onChange={(e) => setUserId(e.target.value)} error={errorOf('userId') ? t(errorOf('userId')!.key) : undefined} data-testid="plantao-user">
          <option value="">{t('plantao.selectUser')}</option>
          {(users.data ?? []).map((u) => (
            <option key={u.id} value={u.id}>{u.name}</option>
          ))}
        </SelectField>
        <TextField label={t('plantao.phone')} value={phone} onChange={(e) => setPhone(e.target.value)} inputMode="tel" error={errorOf('phone') ? t(errorOf('phone')!.key) : undefined} data-testid="plantao-phone" />
        <TextField label={t('plantao.interval')} value={interval} onChange={(e) => setInterval(e.target.value.replace(/\D/g, ''))} inputMode="numeric" error={errorOf('interval') ? t(errorOf('interval')!.key) : undefined} data-testid="plantao-interval" />
        <table data-testid="plantao-days">
          <thead>
            <tr>
              <th scope="col">{t('plantao.weekday')}</th>
              <th scope="col">{t('plantao.start')}</th>
              <th scope="col">{t('plantao.end')}</th>
            </tr>
          </thead>
          <tbody>
            {WEEKDAYS.map((w) => {
              const d = days.find((x) => x.weekdayEn === w)!;
              const se = errorOf(`start-${w}`);
              const ee = errorOf(`end-${w}`);
              return (
                <tr key={w}>
                  <th scope="row">{t(`schedules.days.${w}`)}</th>
                  <td>
                    <TextField label={`${t(`schedules.days.${w}`)} ${t('plantao.start')}`} placeholder="HH:MM" value={d.startTime ?? ''} onChange={(e) => setTime(w, 'startTime', e.target.value)} inputMode="numeric" error={se ? t(se.key) : undefined} data-testid={`plantao-start-${w}`} />
                  </td>
                  <td>
                    <TextField label={`${t(`schedules.days.${w}`)} ${t('plantao.end')}`} placeholder="HH:MM" value={d.endTime ?? ''} onChange={(e) => setTime(w, 'endTime', e.target.value)} inputMode="numeric" error={ee ? t(ee.key) : undefined} data-testid={`plantao-end-${w}`} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {daysError ? <p role="alert" data-testid="plantao-days-error">{t(daysError.key)}</p> : null}
        <DialogActions>
          <Button type="button" variant="text" onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" disabled={saving} data-testid="plantao-save">{t('plantao.save')}</Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
