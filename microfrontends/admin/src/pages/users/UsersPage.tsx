import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useCompanyPlan, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton } from '@atendo/web-ui';
import { Chip, ColorChip, DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, usePagedList } from '@atendo/web-kit';
import { AdminIcon, ConfirmDialog } from '../../lib/parts';
import { deleteUser, fetchUsers, userMatches, usersKeys, type AdminUser, type UserEvent } from './api';
import { UserModal } from './UserModal';

const Avatar = styled.span`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 36px;
  height: 36px;
  border-radius: 50%;
  overflow: hidden;
  background: ${(p) => p.theme.colors.primarySoft};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
  img { width: 100%; height: 100%; object-fit: cover; }
`;

const Queues = styled.span`
  display: inline-flex;
  flex-wrap: wrap;
  gap: 4px;
  justify-content: center;
`;

const initial = (name: string) => name.trim().charAt(0).toUpperCase() || '?';

/**
 * Users (spec 2-tickets.md §2 "Users", §5, §7; 1-platform.md §5, §6): search (debounced 500 ms), infinite
 * scroll, add/edit dialog, delete confirmation; the plan's user limit next to the total (the server refuses
 * a user over it with ERR_PLAN_LIMIT_REACHED, shown as the error toast); live on `company-{id}-user`.
 */
export function UsersPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const plan = useCompanyPlan().data?.plan;
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ user: AdminUser | null } | null>(null);
  const [deleting, setDeleting] = useState<AdminUser | null>(null);
  const [busy, setBusy] = useState(false);
  const list = usePagedList<AdminUser>({ baseKey: usersKeys.list, search, fetchPage: (term, n, signal) => fetchUsers(term, n, signal), matches: userMatches });
  const { apply } = list;

  useSocketEvent<UserEvent>(me ? `company-${me.companyId}-user` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.userId) });
    else if (event.user && typeof event.user.id === 'number') apply({ type: 'upsert', record: event.user });
  });
  const saved = useCallback((user: AdminUser) => apply({ type: 'upsert', record: user }), [apply]);

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteUser(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('users.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const total = !list.term && typeof list.count === 'number' ? list.count : undefined;
  const countText =
    total === undefined ? undefined : plan && typeof plan.users === 'number' ? t('users.countOfLimit', { count: total, limit: plan.users }) : t('users.count', { count: total });
  const atLimit = total !== undefined && plan && typeof plan.users === 'number' && total >= plan.users;

  return (
    <ListFrame data-testid="users-page">
      <ListHeader title={t('users.title')} count={countText} countTestId="users-count">
        <SearchBox value={search} onChange={setSearch} label={t('users.search')} testId="users-search" />
        <Button onClick={() => setEditing({ user: null })} data-testid="user-add" title={atLimit ? t('users.limitReached') : undefined}>
          <AdminIcon name="plus" size={18} />
          {t('users.add')}
        </Button>
      </ListHeader>
      {atLimit ? (
        <Chip $tone="warning" role="status" data-testid="users-limit" style={{ alignSelf: 'flex-start' }}>
          {t('users.limitReached')}
        </Chip>
      ) : null}
      <TableCard onScroll={list.onScroll} data-testid="users-scroller">
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col">{t('users.columns.avatar')}</th>
                <th scope="col" className="start">{t('users.columns.name')}</th>
                <th scope="col" className="start">{t('users.columns.email')}</th>
                <th scope="col">{t('users.columns.profile')}</th>
                <th scope="col">{t('users.columns.queues')}</th>
                <th scope="col">{t('users.columns.hours')}</th>
                <th scope="col">{t('users.columns.status')}</th>
                <th scope="col">{t('users.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="users-rows">
              {list.rows.map((u) => (
                <tr key={u.id} data-testid={`user-row-${u.id}`}>
                  <td>
                    <Avatar aria-hidden="true">{u.profileImageUrl ? <img src={u.profileImageUrl} alt="" /> : initial(u.name)}</Avatar>
                  </td>
                  <td className="start">{u.name}</td>
                  <td className="start">{u.email}</td>
                  <td>{t(`users.profiles.${['admin', 'user', 'supervisor'].includes(String(u.profile)) ? u.profile : 'user'}`)}</td>
                  <td>
                    <Queues>
                      {(u.queues ?? []).map((q) => (
                        <ColorChip key={q.id} $color={q.color}>
                          {q.name}
                        </ColorChip>
                      ))}
                    </Queues>
                  </td>
                  <td>{`${u.startWork || '00:00'} – ${u.endWork || '23:59'}`}</td>
                  <td>
                    <Chip $tone={u.online ? 'success' : 'muted'}>{t(u.online ? 'users.online' : 'users.offline')}</Chip>
                  </td>
                  <td className="actions">
                    <IconButton label={t('users.edit', { name: u.name })} tone="default" onClick={() => setEditing({ user: u })}>
                      <AdminIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('users.delete', { name: u.name })} tone="default" onClick={() => setDeleting(u)} disabled={u.id === me?.id}>
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('users.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="users"
          testId="users"
        />
      </TableCard>
      {editing ? <UserModal user={editing.user} onClose={() => setEditing(null)} onSaved={saved} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('users.confirm.title', { name: deleting?.name ?? '' })}
        message={t('users.confirm.message')}
        confirmLabel={t('users.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}
