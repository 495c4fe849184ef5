import { useEffect, useState } from 'react';
import { api, useSocketEvent } from '@atendo/web-api';

/** Connection statuses that put a warning badge on the menu's Connections entry (spec 1-platform.md §2). */
export const WARNING_STATUSES = ['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING'] as const;
/** The first check runs this long after load (spec §9). */
export const CONNECTIONS_CHECK_DELAY_MS = 2000;

export interface ConnectionStatus {
  id: number;
  status?: string | null;
}

/** True when any connection is in a warning status. */
export function connectionsNeedAttention(list: ConnectionStatus[]): boolean {
  return list.some((c) => (WARNING_STATUSES as readonly string[]).includes(String(c.status)));
}

/** Applies a `company-{id}-whatsapp` event ({action:'update', whatsapp} | {action:'delete', whatsappId}). */
export function applyWhatsappEvent(list: ConnectionStatus[], event: { action?: string; whatsapp?: ConnectionStatus; whatsappId?: number | string }): ConnectionStatus[] {
  if (event?.action === 'update' && event.whatsapp && typeof event.whatsapp.id === 'number') {
    const w = event.whatsapp;
    return list.some((c) => c.id === w.id) ? list.map((c) => (c.id === w.id ? { ...c, ...w } : c)) : [...list, w];
  }
  if (event?.action === 'delete' && event.whatsappId !== undefined) return list.filter((c) => c.id !== Number(event.whatsappId));
  return list;
}

/**
 * Whether the company's connections need attention: `GET /whatsapp/?session=0` two seconds after load, then
 * live on `company-{id}-whatsapp` (and `-whatsappSession` status pushes). `companyId` undefined: off (the
 * entry is only shown to admins). Load failures (no connections plugin, no permission) mean no badge.
 */
export function useConnectionsWarning(companyId: number | undefined): boolean {
  const [list, setList] = useState<ConnectionStatus[]>([]);
  useEffect(() => {
    if (companyId === undefined) return undefined;
    let cancelled = false;
    const timer = setTimeout(() => {
      api.get<ConnectionStatus[]>('/whatsapp/', { query: { session: 0 } }).then(
        (data) => {
          if (!cancelled) setList(Array.isArray(data) ? data : []);
        },
        () => undefined,
      );
    }, CONNECTIONS_CHECK_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [companyId]);
  useSocketEvent<{ action?: string; whatsapp?: ConnectionStatus; whatsappId?: number }>(companyId !== undefined ? `company-${companyId}-whatsapp` : null, (e) => setList((l) => applyWhatsappEvent(l, e)));
  useSocketEvent<{ action?: string; session?: ConnectionStatus }>(companyId !== undefined ? `company-${companyId}-whatsappSession` : null, (e) => {
    if (e?.action === 'update' && e.session) setList((l) => applyWhatsappEvent(l, { action: 'update', whatsapp: e.session }));
  });
  return connectionsNeedAttention(list);
}
