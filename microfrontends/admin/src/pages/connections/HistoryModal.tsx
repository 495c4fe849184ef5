import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Modal } from '@atendo/web-ui';
import { Chip, DataTable, ListStatus, useErrorToast } from '@atendo/web-kit';
import { connectionKeys, fetchStatusHistory, KNOWN_REASONS, shortDateTime, type Connection, type SessionEvent } from './api';

const TONE: Record<string, 'success' | 'warning' | 'danger' | 'info' | 'muted'> = { CONNECTED: 'success', qrcode: 'warning', PAIRING: 'warning', OPENING: 'info', TIMEOUT: 'danger', DISCONNECTED: 'danger' };

/**
 * A connection's status history (issue 33 item 3; `GET /whatsapp/:id/status-history`): each status change,
 * newest first, with when, from and to, the reason when known (a dead socket caught by the liveness check, a
 * lost connection, a logout that needs a new QR code...) and the reconnection attempts. Refreshed when the
 * connection's status changes (`company-{id}-whatsappSession`).
 */
export function HistoryModal({ connection, onClose }: { connection: Pick<Connection, 'id' | 'name'>; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const client = useQueryClient();
  const key = connectionKeys.history(connection.id);
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchStatusHistory(connection.id, 50, signal) });
  useErrorToast(query.error);
  useSocketEvent<SessionEvent>(me?.companyId ? `company-${me.companyId}-whatsappSession` : null, (e) => {
    if (e?.session?.id === connection.id) void client.invalidateQueries({ queryKey: key });
  });
  const status = (s: string | null) => (s ? <Chip $tone={TONE[s] ?? 'muted'}>{t(`connections.status.${s in TONE ? s : 'other'}`, { status: s })}</Chip> : '–');
  const reason = (r: string | null) => (!r ? '–' : (KNOWN_REASONS as readonly string[]).includes(r) ? t(`connections.reasons.${r}`) : r);
  const rows = query.data ?? [];
  return (
    <Modal open title={t('connections.history', { name: connection.name })} onClose={onClose} closeLabel={t('common.close')} width={720}>
      {rows.length ? (
        <DataTable data-testid="status-history">
          <thead>
            <tr>
              <th scope="col">{t('connections.historyColumns.when')}</th>
              <th scope="col">{t('connections.historyColumns.change')}</th>
              <th scope="col" className="start">{t('connections.historyColumns.reason')}</th>
              <th scope="col">{t('connections.historyColumns.retries')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid={`history-${r.id}`} data-status={r.status} data-reason={r.reason ?? ''}>
                <td>{shortDateTime(r.createdAt)}</td>
                <td>
                  {status(r.previousStatus)} → {status(r.status)}
                </td>
                <td className="start">{reason(r.reason)}</td>
                <td>{r.retries}</td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      ) : null}
      <ListStatus
        loading={query.isPending}
        empty={!query.isPending && rows.length === 0}
        failed={query.isError}
        onRetry={() => void query.refetch()}
        texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('connections.historyEmpty'), retry: t('common.retry') }}
        emptyIcon="connection"
        testId="status-history"
      />
    </Modal>
  );
}
