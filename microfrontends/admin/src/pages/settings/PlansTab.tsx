import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { formatBRL, toastError } from '@atendo/web-api';
import { Button, IconButton, Modal, TextField } from '@atendo/web-ui';
import { Chip, DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, useFieldProps, usePagedList, yup } from '@atendo/web-kit';
import { CheckboxField, FormGrid, SectionTitle } from '../../lib/fields';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { createPlan, deletePlan, fetchPlansPage, parseAmount, PLAN_FEATURES, superKeys, updatePlan, type AdminPlan, type PlanInput } from './superApi';

/**
 * Plans admin (super users; spec 1-platform.md §2 "Plans admin and helps admin", §3 "Plan"): search,
 * infinite scroll, a table of name, users, connections, queues, amount, public and the feature flags on;
 * add/edit dialog (every flag on by default), delete confirmation (a plan in use: the translated 409).
 */
export function PlansTab() {
  const { t } = useTranslation('admin');
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ plan: AdminPlan | null } | null>(null);
  const [deleting, setDeleting] = useState<AdminPlan | null>(null);
  const [busy, setBusy] = useState(false);
  const list = usePagedList<AdminPlan>({ baseKey: superKeys.plans, search, fetchPage: (term, n, signal) => fetchPlansPage(term, n, signal) });
  // The companies tab's plan select reads /plans/all: forget it after a write.
  const changed = () => void client.invalidateQueries({ queryKey: ['admin', 'plans', 'all'] });

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deletePlan(deleting.id);
      list.apply({ type: 'remove', id: deleting.id });
      changed();
      toast.success(t('common.saved'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="plans-tab">
      <ListHeader title={t('settings.plans.title')} count={typeof list.count === 'number' ? t('settings.plans.count', { count: list.count }) : undefined}>
        <SearchBox value={search} onChange={setSearch} label={t('settings.plans.search')} testId="plans-search" />
        <Button onClick={() => setEditing({ plan: null })} data-testid="plan-add">
          <AdminIcon name="plus" size={18} />
          {t('settings.plans.add')}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                {(['name', 'users', 'connections', 'queues', 'amount', 'public', 'features', 'actions'] as const).map((c) => (
                  <th key={c} scope="col" className={c === 'name' || c === 'features' ? 'start' : undefined}>
                    {t(`settings.plans.columns.${c}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody data-testid="plans-rows">
              {list.rows.map((p) => (
                <tr key={p.id} data-testid={`plan-row-${p.id}`}>
                  <td className="start">{p.name}</td>
                  <td>{p.users}</td>
                  <td>{p.connections}</td>
                  <td>{p.queues}</td>
                  <td>{formatBRL(p.amount)}</td>
                  <td>
                    <Chip $tone={p.isPublic ? 'success' : 'muted'}>{t(p.isPublic ? 'common.yes' : 'common.no')}</Chip>
                  </td>
                  <td className="start">{PLAN_FEATURES.filter((f) => p[f]).map((f) => t(`settings.plans.features.${f}`)).join(', ') || '–'}</td>
                  <td className="actions">
                    <IconButton label={t('settings.plans.edit', { name: p.name })} tone="default" onClick={() => setEditing({ plan: p })}>
                      <AdminIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('settings.plans.delete', { name: p.name })} tone="default" onClick={() => setDeleting(p)}>
                      <AdminIcon name="trash" />
                    </IconButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          {...pagedListStatus(list)}
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('settings.plans.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="business"
          testId="plans"
        />
      </TableCard>
      {editing ? (
        <PlanModal
          plan={editing.plan}
          onClose={() => setEditing(null)}
          onSaved={(p) => {
            list.apply({ type: 'upsert', record: p });
            changed();
          }}
        />
      ) : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('settings.plans.confirmTitle', { name: deleting?.name ?? '' })}
        message={t('settings.plans.confirmMessage')}
        confirmLabel={t('settings.plans.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

const count = () => yup.number().typeError('admin:settings.plans.errors.number').integer('admin:settings.plans.errors.number').min(0, 'admin:settings.plans.errors.number').max(1_000_000, 'admin:settings.plans.errors.number').required('validation.required');

/** The plan form's rules: name required (1..100), users/connections/queues whole numbers, amount money. */
export const planSchema = yup.object({
  name: yup.string().trim().max(100, 'validation.tooLong').required('validation.required'),
  users: count(),
  connections: count(),
  queues: count(),
  amount: yup.string().required('validation.required').test('money', 'admin:settings.plans.errors.amount', (v) => parseAmount(v ?? '') !== null),
});

/** Add/edit a plan: name, limits, amount, public, and the ten feature flags (all on for a new plan). */
function PlanModal({ plan, onClose, onSaved }: { plan: AdminPlan | null; onClose: () => void; onSaved: (p: AdminPlan) => void }) {
  const { t } = useTranslation('admin');
  const creating = !plan;
  const formik = useFormik({
    initialValues: {
      name: plan?.name ?? '',
      users: String(plan?.users ?? 1),
      connections: String(plan?.connections ?? 1),
      queues: String(plan?.queues ?? 1),
      amount: plan ? String(plan.amount).replace('.', ',') : '0,00',
      isPublic: plan?.isPublic ?? true,
      flags: Object.fromEntries(PLAN_FEATURES.map((f) => [f, plan ? Boolean(plan[f]) : true])) as Record<string, boolean>,
    },
    validationSchema: planSchema,
    onSubmit: async (v) => {
      const body = {
        name: v.name.trim(),
        users: Number(v.users),
        connections: Number(v.connections),
        queues: Number(v.queues),
        amount: parseAmount(v.amount)!,
        isPublic: v.isPublic,
        ...v.flags,
      } as PlanInput;
      try {
        const saved = plan ? await updatePlan(plan.id, body) : await createPlan(body);
        onSaved(saved);
        toast.success(t('common.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  return (
    <Modal open title={t(creating ? 'settings.plans.addTitle' : 'settings.plans.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={720}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="plan-form">
        <FormGrid>
          <TextField label={t('settings.plans.form.name')} {...field('name')} data-testid="plan-name" />
          <TextField label={t('settings.plans.form.amount')} inputMode="decimal" {...field('amount')} data-testid="plan-amount" />
          <TextField label={t('settings.plans.form.users')} inputMode="numeric" {...field('users')} data-testid="plan-users" />
          <TextField label={t('settings.plans.form.connections')} inputMode="numeric" {...field('connections')} data-testid="plan-connections" />
          <TextField label={t('settings.plans.form.queues')} inputMode="numeric" {...field('queues')} data-testid="plan-queues" />
          <CheckboxField label={t('settings.plans.form.public')} checked={formik.values.isPublic} onChange={(on) => void formik.setFieldValue('isPublic', on)} testId="plan-public" />
        </FormGrid>
        <SectionTitle>{t('settings.plans.form.features')}</SectionTitle>
        <FormGrid>
          {PLAN_FEATURES.map((f) => (
            <CheckboxField key={f} label={t(`settings.plans.features.${f}`)} checked={formik.values.flags[f]} onChange={(on) => void formik.setFieldValue(`flags.${f}`, on)} testId={`plan-flag-${f}`} />
          ))}
        </FormGrid>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="plan-submit">
            {t(creating ? 'settings.plans.form.add' : 'settings.plans.form.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
