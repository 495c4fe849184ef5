import { useCallback, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useCompanyPlan, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, MenuItem, Popover } from '@atendo/web-ui';
import { applyArrayChange, Chip, DataTable, ListFrame, ListHeader, ListStatus, TableCard, useErrorToast, type ListChange } from '@atendo/web-kit';
import { fetchConnections, sharedKeys } from '../../lib/api';
import { AdminIcon, ConfirmDialog } from '../../lib/parts';
import { ATTENTION, deleteConnection, disconnectSession, NEW_CHANNELS, resetSession, restartAll, shortDateTime, startSession, type Channel, type Connection, type SessionEvent, type WhatsappEvent } from './api';
import { ConnectionModal } from './ConnectionModal';
import { ImportCard } from './ImportCard';
import { QrModal } from './QrModal';
import { HistoryModal } from './HistoryModal';

const STATUS_TONE: Record<string, 'success' | 'warning' | 'danger' | 'info' | 'muted'> = { CONNECTED: 'success', qrcode: 'warning', PAIRING: 'warning', OPENING: 'info', TIMEOUT: 'danger', DISCONNECTED: 'danger' };

/** Applies a session push (status, qrcode, retries, updatedAt… of one connection) to the list. Pure. */
export function applySession(list: Connection[] | undefined, session: SessionEvent['session']): Connection[] | undefined {
  if (!list || !session || typeof session.id !== 'number') return list;
  return list.map((c) => (c.id === session.id ? { ...c, ...pick(session) } : c));
}

function pick(s: SessionEvent['session']): Partial<Connection> {
  const out: Partial<Connection> = {};
  for (const k of ['status', 'qrcode', 'retries', 'updatedAt', 'number'] as const) if (s[k] !== undefined) (out as Record<string, unknown>)[k] = s[k];
  return out;
}

/**
 * Connections (spec 2-tickets.md §2 "Connections page"): channel, name, number, status, the session buttons
 * of each status (QR code; try again and new QR when disconnected; disconnect when connected, pairing or
 * timed out; a disabled "connecting" while opening), last update, default flag, edit and delete; a "new
 * connection" menu (WhatsApp QR code, WhatsApp Cloud API, Facebook, Instagram, each gated by its plan flag);
 * restart all; the status history of each connection (HistoryModal); the import progress card; live on `company-{id}-whatsapp` and `company-{id}-whatsappSession`
 * (the QR dialog renders the pushed qrcode).
 */
export function ConnectionsPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const client = useQueryClient();
  const plan = useCompanyPlan().data?.plan;
  const [menuOpen, setMenuOpen] = useState(false);
  const menuAnchor = useRef<HTMLButtonElement>(null);
  const [editing, setEditing] = useState<{ id: number | null; channel: Channel } | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  const [historyFor, setHistoryFor] = useState<Connection | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'delete' | 'disconnect'; connection: Connection } | null>(null);
  const [busy, setBusy] = useState<number | 'all' | null>(null);
  const query = useQuery({ queryKey: sharedKeys.connections, queryFn: ({ signal }) => fetchConnections(signal) });
  useErrorToast(query.error);
  const apply = useCallback((change: ListChange<Connection>) => client.setQueryData<Connection[]>(sharedKeys.connections, (old) => applyArrayChange(old, change)), [client]);
  const cid = me?.companyId;
  useSocketEvent<WhatsappEvent>(cid ? `company-${cid}-whatsapp` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.whatsappId) });
    else if (event.whatsapp && typeof event.whatsapp.id === 'number') apply({ type: 'upsert', record: event.whatsapp });
  });
  useSocketEvent<SessionEvent>(cid ? `company-${cid}-whatsappSession` : null, (event) => {
    if (event && typeof event === 'object' && event.session) client.setQueryData<Connection[]>(sharedKeys.connections, (old) => applySession(old, event.session));
  });

  const run = async (id: number | 'all', action: () => Promise<unknown>, done?: string) => {
    setBusy(id);
    try {
      await action();
      if (done) toast.success(done);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(null);
    }
  };

  const onConfirm = async () => {
    if (!confirm) return;
    const { kind, connection } = confirm;
    await run(connection.id, async () => {
      if (kind === 'delete') {
        await deleteConnection(connection.id);
        apply({ type: 'remove', id: connection.id });
      } else {
        await disconnectSession(connection.id);
      }
    }, kind === 'delete' ? t('connections.toasts.deleted') : undefined);
    setConfirm(null);
  };

  const rows = (query.data ?? []).slice().sort((a, b) => a.id - b.id);
  const qrConnection = rows.find((c) => c.id === qrFor);
  const limit = plan && typeof plan.connections === 'number' ? plan.connections : undefined;
  const countText = query.data ? (limit !== undefined ? t('connections.countOfLimit', { count: rows.length, limit }) : t('connections.count', { count: rows.length })) : undefined;

  const sessionButtons = (c: Connection) => {
    if (c.channel !== 'whatsapp') return null;
    const disabled = busy === c.id;
    switch (c.status) {
      case 'qrcode':
        return (
          <Button variant="secondary" onClick={() => setQrFor(c.id)} data-testid={`qr-${c.id}`}>
            <AdminIcon name="qr" size={16} />
            {t('connections.session.qr')}
          </Button>
        );
      case 'DISCONNECTED':
        return (
          <>
            <Button variant="secondary" disabled={disabled} onClick={() => void run(c.id, () => startSession(c.id))} data-testid={`retry-${c.id}`}>
              {t('connections.session.retry')}
            </Button>
            <Button variant="text" disabled={disabled} onClick={() => void run(c.id, () => resetSession(c.id))} data-testid={`new-qr-${c.id}`}>
              {t('connections.session.newQr')}
            </Button>
          </>
        );
      case 'PAIRING':
        return (
          <>
            <Button variant="secondary" onClick={() => setQrFor(c.id)} data-testid={`pairing-${c.id}`}>
              {t('connections.session.pairingCode')}
            </Button>
            <Button variant="text" disabled={disabled} onClick={() => setConfirm({ kind: 'disconnect', connection: c })} data-testid={`disconnect-${c.id}`}>
              <AdminIcon name="power" size={16} />
              {t('connections.session.disconnect')}
            </Button>
          </>
        );
      case 'CONNECTED':
      case 'TIMEOUT':
        return (
          <Button variant="text" disabled={disabled} onClick={() => setConfirm({ kind: 'disconnect', connection: c })} data-testid={`disconnect-${c.id}`}>
            <AdminIcon name="power" size={16} />
            {t('connections.session.disconnect')}
          </Button>
        );
      case 'OPENING':
        return (
          <Button variant="secondary" disabled data-testid={`connecting-${c.id}`}>
            {t('connections.session.connecting')}
          </Button>
        );
      default:
        return null;
    }
  };

  return (
    <ListFrame data-testid="connections-page">
      <ListHeader title={t('connections.title')} count={countText} countTestId="connections-count">
        <Button variant="secondary" disabled={busy === 'all'} onClick={() => void run('all', restartAll, t('connections.toasts.restarting'))} data-testid="restart-all">
          <AdminIcon name="restart" size={18} />
          {t('connections.restartAll')}
        </Button>
        <Button ref={menuAnchor} onClick={() => setMenuOpen((o) => !o)} aria-haspopup="menu" aria-expanded={menuOpen} data-testid="connection-new">
          <AdminIcon name="plus" size={18} />
          {t('connections.new')}
        </Button>
        <Popover open={menuOpen} onClose={() => setMenuOpen(false)} anchorRef={menuAnchor} label={t('connections.new')} role="menu" width={260}>
          {NEW_CHANNELS.map(({ channel, feature }) => {
            const allowed = plan ? plan[feature] !== false : false;
            return (
              <MenuItem
                key={channel}
                disabled={!allowed}
                title={allowed ? undefined : t('connections.notInPlan')}
                onClick={() => {
                  setMenuOpen(false);
                  setEditing({ id: null, channel });
                }}
                data-testid={`new-${channel}`}
              >
                {t(`connections.channels.${channel}`)}
              </MenuItem>
            );
          })}
        </Popover>
      </ListHeader>
      {cid ? <ImportCard companyId={cid} /> : null}
      <TableCard>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col">{t('connections.columns.channel')}</th>
                <th scope="col" className="start">{t('connections.columns.name')}</th>
                <th scope="col">{t('connections.columns.number')}</th>
                <th scope="col">{t('connections.columns.status')}</th>
                <th scope="col">{t('connections.columns.session')}</th>
                <th scope="col">{t('connections.columns.updatedAt')}</th>
                <th scope="col">{t('connections.columns.default')}</th>
                <th scope="col">{t('connections.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="connections-rows">
              {rows.map((c) => (
                <tr key={c.id} data-testid={`connection-row-${c.id}`} data-status={c.status}>
                  <td>{t(`connections.channels.${['whatsapp', 'whatsappapi', 'facebook', 'instagram'].includes(c.channel) ? c.channel : 'whatsapp'}`)}</td>
                  <td className="start">{c.name}</td>
                  <td>{c.number || '–'}</td>
                  <td>
                    <Chip $tone={STATUS_TONE[c.status] ?? 'muted'} data-testid={`status-${c.id}`} title={ATTENTION.includes(c.status) ? t('connections.attention') : undefined}>
                      {t(`connections.status.${c.status in STATUS_TONE ? c.status : 'other'}`, { status: c.status })}
                    </Chip>
                  </td>
                  <td className="actions">{sessionButtons(c)}</td>
                  <td>{shortDateTime(c.updatedAt)}</td>
                  <td>{c.isDefault ? <Chip $tone="success">{t('common.yes')}</Chip> : null}</td>
                  <td className="actions">
                    <IconButton label={t('connections.historyButton', { name: c.name })} tone="default" onClick={() => setHistoryFor(c)} data-testid={`history-button-${c.id}`}>
                      <AdminIcon name="history" />
                    </IconButton>
                    <IconButton label={t('connections.edit', { name: c.name })} tone="default" onClick={() => setEditing({ id: c.id, channel: c.channel as Channel })}>
                      <AdminIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('connections.delete', { name: c.name })} tone="default" onClick={() => setConfirm({ kind: 'delete', connection: c })}>
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
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('connections.empty'), retry: t('common.retry') }}
          emptyIcon="connection"
          testId="connections"
        />
      </TableCard>
      {editing ? <ConnectionModal connectionId={editing.id} channel={editing.channel} onClose={() => setEditing(null)} onSaved={(c) => apply({ type: 'upsert', record: c })} /> : null}
      {historyFor ? <HistoryModal connection={historyFor} onClose={() => setHistoryFor(null)} /> : null}
      {qrConnection ? <QrModal connection={qrConnection} onClose={() => setQrFor(null)} /> : null}
      <ConfirmDialog
        open={Boolean(confirm)}
        title={confirm ? t(`connections.confirm.${confirm.kind}.title`, { name: confirm.connection.name }) : ''}
        message={confirm ? t(`connections.confirm.${confirm.kind}.message`) : ''}
        confirmLabel={confirm ? t(`connections.confirm.${confirm.kind}.confirm`) : ''}
        busy={busy !== null}
        onConfirm={() => void onConfirm()}
        onClose={() => setConfirm(null)}
      />
    </ListFrame>
  );
}
