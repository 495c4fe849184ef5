import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { formatBRL, toastError } from '@atendo/web-api';
import { Button, IconButton, Modal, SelectField, TextField } from '@atendo/web-ui';
import { Chip, DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, rules, SearchBox, TableCard, useFieldProps, usePagedList, yup } from '@atendo/web-kit';
import { CheckboxField, FormGrid } from '../../lib/fields';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { companiesKeys, createCompany, deleteCompany, dmy, dueTint, fetchCompanies, fetchPlans, RECURRENCES, renewCompany, updateCompany, type AdminCompany, type CompanyInput } from './api';

const Row = styled.tr<{ $tint: 'warning' | 'danger' | null }>`
  background: ${(p) => (p.$tint === 'danger' ? 'rgba(229, 57, 53, 0.16)' : p.$tint === 'warning' ? 'rgba(253, 216, 53, 0.28)' : 'transparent')};
`;

/**
 * Companies (super users; spec 1-platform.md §2 "Companies admin"): search, infinite scroll, a table of ID,
 * active, name, e-mail, plan, plan value (R$ or a dash), creation date, due date with recurrence and last
 * login; rows tinted yellow 1 to 5 days before the due date and red on or after it; add/edit dialog,
 * renewal by the recurrence, delete confirmation.
 */
export function CompaniesPage() {
  const { t } = useTranslation('admin');
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ company: AdminCompany | null } | null>(null);
  const [deleting, setDeleting] = useState<AdminCompany | null>(null);
  const [busy, setBusy] = useState(false);
  const list = usePagedList<AdminCompany>({ baseKey: companiesKeys.list, search, fetchPage: (term, n, signal) => fetchCompanies(term, n, signal) });
  const { apply } = list;

  const renew = async (c: AdminCompany) => {
    try {
      apply({ type: 'upsert', record: await renewCompany(c.id) });
      toast.success(t('common.saved'));
    } catch (err) {
      toastError(err);
    }
  };
  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteCompany(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('common.saved'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="companies-page">
      <ListHeader title={t('companies.title')} count={typeof list.count === 'number' ? t('companies.count', { count: list.count }) : undefined}>
        <SearchBox value={search} onChange={setSearch} label={t('companies.search')} testId="companies-search" />
        <Button onClick={() => setEditing({ company: null })} data-testid="company-add">
          <AdminIcon name="plus" size={18} />
          {t('companies.add')}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                {(['id', 'status', 'name', 'email', 'plan', 'amount', 'createdAt', 'dueDate', 'lastLogin', 'actions'] as const).map((c) => (
                  <th key={c} scope="col">
                    {t(`companies.columns.${c}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody data-testid="companies-rows">
              {list.rows.map((c) => {
                const tint = dueTint(c.dueDate);
                return (
                  <Row key={c.id} $tint={tint} data-testid={`company-row-${c.id}`} data-tint={tint ?? ''}>
                    <td>{c.id}</td>
                    <td>
                      <Chip $tone={c.status ? 'success' : 'muted'}>{t(c.status ? 'common.yes' : 'common.no')}</Chip>
                    </td>
                    <td className="start">{c.name}</td>
                    <td className="start">{c.email ?? ''}</td>
                    <td>{c.plan?.name ?? '–'}</td>
                    <td>{c.plan ? formatBRL(c.plan.amount) : '–'}</td>
                    <td>{dmy(c.createdAt)}</td>
                    <td>
                      {dmy(c.dueDate)}
                      {c.recurrence ? ` (${t(`companies.recurrence.${c.recurrence.toUpperCase()}`, { defaultValue: c.recurrence })})` : ''}
                    </td>
                    <td>{dmy(c.lastLogin)}</td>
                    <td className="actions">
                      <IconButton label={t('companies.renew', { name: c.name })} tone="default" disabled={!c.dueDate || !c.recurrence || c.id === 1} onClick={() => void renew(c)} data-testid={`company-renew-${c.id}`}>
                        <AdminIcon name="renew" />
                      </IconButton>
                      <IconButton label={t('companies.edit', { name: c.name })} tone="default" onClick={() => setEditing({ company: c })}>
                        <AdminIcon name="edit" />
                      </IconButton>
                      <IconButton label={t('companies.delete', { name: c.name })} tone="default" disabled={c.id === 1} onClick={() => setDeleting(c)}>
                        <AdminIcon name="trash" />
                      </IconButton>
                    </td>
                  </Row>
                );
              })}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          {...pagedListStatus(list)}
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('companies.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="business"
          testId="companies"
        />
      </TableCard>
      {editing ? <CompanyModal company={editing.company} onClose={() => setEditing(null)} onSaved={(c) => apply({ type: 'upsert', record: c })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('companies.confirm.title', { name: deleting?.name ?? '' })}
        message={t('companies.confirm.message')}
        confirmLabel={t('companies.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** A whole number (numberAttendants, numberConections). */
const wholeNumber = () => yup.string().required('validation.required').matches(/^\s*\d{1,6}\s*$/, 'admin:companies.form.badNumber');

/** The company form's rules (spec 1-platform.md §5): name 2-50, e-mail required and valid, plan required, numberAttendants and numberConections numeric; the password (of the company's first admin) on create. */
const companySchema = (creating: boolean) =>
  yup.object({ name: rules.name(), email: rules.email(), planId: yup.string().required('validation.required'), password: rules.password(creating), dueDate: yup.string().matches(/^(\d{4}-\d{2}-\d{2})?$/, 'validation.required'), numberAttendants: wholeNumber(), numberConections: wholeNumber() });

function CompanyModal({ company, onClose, onSaved }: { company: AdminCompany | null; onClose: () => void; onSaved: (c: AdminCompany) => void }) {
  const { t } = useTranslation('admin');
  const plans = useQuery({ queryKey: companiesKeys.plans, queryFn: ({ signal }) => fetchPlans(signal) });
  const creating = !company;
  const formik = useFormik({
    initialValues: {
      name: company?.name ?? '',
      email: company?.email ?? '',
      password: '',
      planId: company?.planId ? String(company.planId) : '',
      phone: company?.phone ?? '',
      document: company?.document ?? '',
      status: company?.status ?? true,
      dueDate: company?.dueDate?.slice(0, 10) ?? '',
      recurrence: company?.recurrence ?? 'MONTHLY',
      numberAttendants: String(company?.numberAttendants ?? 1),
      numberConections: String(company?.numberConections ?? 1),
    },
    validationSchema: companySchema(creating),
    onSubmit: async (v) => {
      const body: CompanyInput = {
        name: v.name.trim(),
        email: v.email.trim(),
        planId: Number(v.planId),
        phone: v.phone.trim() || null,
        document: v.document.trim() || null,
        status: v.status,
        // An empty or invalid due date is sent as null (spec §5).
        dueDate: /^\d{4}-\d{2}-\d{2}$/.test(v.dueDate) ? v.dueDate : null,
        recurrence: v.recurrence || null,
        numberAttendants: Number(v.numberAttendants),
        numberConections: Number(v.numberConections),
      };
      if (v.password) body.password = v.password;
      try {
        const saved = company ? await updateCompany(company.id, body) : await createCompany(body);
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
    <Modal open title={t(creating ? 'companies.form.addTitle' : 'companies.form.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={720}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="company-form">
        <FormGrid>
          <TextField label={t('companies.form.name')} {...field('name')} data-testid="company-name" />
          <TextField label={t('companies.form.email')} type="email" {...field('email')} data-testid="company-email" />
          <TextField label={t('companies.form.password')} type="password" autoComplete="new-password" helperText={creating ? t('companies.form.passwordHelp') : t('companies.form.passwordKeep')} {...field('password')} data-testid="company-password" />
          <SelectField label={t('companies.form.plan')} {...field('planId')} data-testid="company-plan">
            <option value="">{t('companies.form.choosePlan')}</option>
            {(plans.data ?? []).map((p) => (
              <option key={p.id} value={String(p.id)}>
                {`${p.name} (${formatBRL(p.amount)})`}
              </option>
            ))}
          </SelectField>
          <TextField label={t('companies.form.phone')} {...field('phone')} />
          <TextField label={t('companies.form.document')} {...field('document')} />
          <TextField label={t('companies.form.dueDate')} type="date" {...field('dueDate')} data-testid="company-due" />
          <SelectField label={t('companies.form.recurrence')} {...field('recurrence')} data-testid="company-recurrence">
            {RECURRENCES.map((r) => (
              <option key={r.value} value={r.value}>
                {t(`companies.recurrence.${r.value}`)}
              </option>
            ))}
          </SelectField>
          <TextField label={t('companies.form.numberAttendants')} inputMode="numeric" {...field('numberAttendants')} data-testid="company-attendants" />
          <TextField label={t('companies.form.numberConections')} inputMode="numeric" {...field('numberConections')} data-testid="company-connections" />
          <CheckboxField label={t('companies.form.active')} checked={formik.values.status} onChange={(v) => void formik.setFieldValue('status', v)} />
        </FormGrid>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="company-submit">
            {t(creating ? 'companies.form.add' : 'companies.form.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
