import { useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import styled from 'styled-components';
import { api, formatDate, toastError, useSocketEvent } from '@atendo/web-api';
import { Button, EmptyState, Icon, IconButton, Popover } from '@atendo/web-ui';
import { BadgeCount, BadgeWrap, PopoverHeader, PopoverList } from './popover-parts';

/** A notification of `GET /notifications` (plugins/notifications). */
export interface AdminAlert {
  id: number;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  readAt: string | null;
  createdAt: string;
}

/** A page of `GET /notifications`: the caller's own, newest first, and how many are unread. */
export interface AdminAlertsPage {
  records: AdminAlert[];
  count: number;
  unread: number;
  hasMore: boolean;
}

/** Query key of the signed-in user's notifications. */
export const ALERTS_KEY = ['notifications', 'alerts'] as const;

/** `DD/MM/YYYY HH:mm` in the browser's time zone. */
function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return formatDate(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

const Item = styled.li<{ $unread: boolean }>`
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  border-left: 3px solid ${(p) => (p.$unread ? p.theme.colors.danger : 'transparent')};
  button {
    all: unset;
    box-sizing: border-box;
    display: block;
    width: 100%;
    padding: 12px 16px 12px 13px;
    cursor: pointer;
  }
  button:hover, button:focus-visible { background: ${(p) => p.theme.colors.surfaceAlt}; }
  h3 { margin: 4px 0; font-size: ${(p) => p.theme.font.size.md}; font-weight: ${(p) => (p.$unread ? p.theme.font.weight.bold : p.theme.font.weight.medium)}; overflow-wrap: anywhere; }
  p { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  time { font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
`;

const Footer = styled.div`
  display: flex;
  justify-content: center;
  padding: 8px;
`;

/**
 * The top bar's alerts for admins (issue 33 item 3; plugins/notifications): a WhatsApp connection that
 * dropped, needs a new QR code, was closed by WhatsApp or stopped retrying. The badge counts the unread ones;
 * the popover lists the latest (title, text, time); opening one marks it read and goes to its page
 * (`/connections`); "mark all as read". Live on `company-{id}-notification` (sent to this user's sockets
 * only). Shows nothing when the notifications plugin is not installed (its list does not load).
 */
export function AdminAlerts({ companyId }: { companyId: number }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const query = useQuery({ queryKey: ALERTS_KEY, queryFn: ({ signal }) => api.get<AdminAlertsPage>('/notifications', { signal }), retry: false });
  useSocketEvent<{ action?: string }>(`company-${companyId}-notification`, () => void client.invalidateQueries({ queryKey: ALERTS_KEY }));
  if (query.isError || !query.data) return null;
  const records = Array.isArray(query.data.records) ? query.data.records : [];
  const unread = Number(query.data.unread) || 0;

  const openAlert = async (a: AdminAlert) => {
    setOpen(false);
    try {
      if (!a.readAt) await api.put(`/notifications/${a.id}/read`);
    } catch (err) {
      toastError(err);
    }
    void client.invalidateQueries({ queryKey: ALERTS_KEY });
    if (a.link && a.link.startsWith('/')) navigate(a.link);
  };
  const readAll = async () => {
    try {
      await api.put('/notifications/read-all');
    } catch (err) {
      toastError(err);
    }
    void client.invalidateQueries({ queryKey: ALERTS_KEY });
  };

  const label = unread ? t('alerts.buttonUnread', { count: unread }) : t('alerts.button');
  return (
    <>
      <BadgeWrap>
        <IconButton ref={anchor} label={label} aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="alerts-button">
          <Icon name="warning" />
        </IconButton>
        {unread ? (
          <BadgeCount data-testid="alerts-badge" aria-hidden="true">
            {unread > 9 ? '9+' : unread}
          </BadgeCount>
        ) : null}
      </BadgeWrap>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('alerts.title')} width={360} maxHeight={440}>
        <PopoverHeader>{t('alerts.title')}</PopoverHeader>
        {!records.length ? (
          <EmptyState icon="warning" text={t('alerts.empty')} data-testid="alerts-empty" />
        ) : (
          <PopoverList data-testid="alerts-list">
            {records.map((a) => (
              <Item key={a.id} $unread={!a.readAt} data-testid={`alert-${a.id}`} data-unread={a.readAt ? 'false' : 'true'}>
                <button type="button" onClick={() => void openAlert(a)}>
                  <time dateTime={a.createdAt}>{formatDateTime(a.createdAt)}</time>
                  <h3>{a.title}</h3>
                  <p>{a.body}</p>
                </button>
              </Item>
            ))}
          </PopoverList>
        )}
        {unread ? (
          <Footer>
            <Button variant="text" onClick={() => void readAll()} data-testid="alerts-read-all">
              {t('alerts.readAll')}
            </Button>
          </Footer>
        ) : null}
      </Popover>
    </>
  );
}
