import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { EmptyState, Icon, IconButton, MenuItem, Popover, previewText, setVolume, useVolume } from '@atendo/web-ui';
import type { WaitingTicket } from '../hooks/useTicketNotifications';
import type { SlaBreach } from '../hooks/useSlaBreaches';
import { BadgeCount, BadgeWrap, PopoverList } from './popover-parts';

const PanelHeader = styled.div`
  padding: 12px 16px;
  font-weight: ${(p) => p.theme.font.weight.medium};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

/** Notification popover max height (spec 1-platform.md §9). */
export const NOTIFICATIONS_MAX_HEIGHT = 350;
/** Longest preview of a ticket's last message in the bell (the ticket row's cut, spec 2-tickets.md §9). */
export const NOTIFICATION_PREVIEW_CUT = 40;

const Entry = styled.button`
  display: flex;
  align-items: center;
  gap: 12px;
  width: 100%;
  padding: 10px 16px;
  border: none;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  background: transparent;
  color: ${(p) => p.theme.colors.text};
  text-align: left;
  cursor: pointer;
  &:hover, &:focus-visible { background: ${(p) => p.theme.colors.surfaceAlt}; }
  .who { flex: 1; min-width: 0; }
  .who strong, .who span { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .who span { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
`;

const Pill = styled.span<{ $tone: 'warning' | 'primary' | 'danger' }>`
  flex: none;
  min-width: 20px;
  padding: 0 8px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors[p.$tone]};
  color: #fff;
  font-size: 11px;
  font-weight: ${(p) => p.theme.font.weight.bold};
  line-height: 20px;
  text-align: center;
`;

const Initial = styled.span`
  flex: none;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 36px;
  height: 36px;
  border-radius: 50%;
  background: ${(p) => p.theme.colors.primarySoft};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
  overflow: hidden;
  img { width: 100%; height: 100%; object-fit: cover; }
`;

/**
 * The notifications bell (spec 1-platform.md §2): a badge with the number of tickets waiting for the
 * viewer, and a popover listing them (pending tickets of the viewer's queues, the viewer's open tickets
 * with unread messages; shell/src/hooks/useTicketNotifications.ts); a click opens the ticket. Supervisors
 * also see, first, the open SLA breaches of their queues (issue 34 item 5; shell/src/hooks/useSlaBreaches.ts).
 * Without entries it shows the empty state.
 */
export function NotificationsPopover({ items = [], onOpen, breaches = [], onOpenBreach }: { items?: WaitingTicket[]; onOpen?: (t: WaitingTicket) => void; breaches?: SlaBreach[]; onOpenBreach?: (b: SlaBreach) => void }) {
  const { t, i18n } = useTranslation();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const count = items.length + breaches.length;
  const when = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' });
  return (
    <>
      <BadgeWrap>
        <IconButton
          ref={anchor}
          label={count ? t('notifications.buttonCount', { count }) : t('topbar.notifications')}
          aria-haspopup="dialog"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          data-testid="notifications-button"
        >
          <Icon name="bell" />
        </IconButton>
        {count ? (
          <BadgeCount aria-hidden="true" data-testid="notifications-badge">
            {count > 99 ? '99+' : count}
          </BadgeCount>
        ) : null}
      </BadgeWrap>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('notifications.title')} width={340} maxHeight={NOTIFICATIONS_MAX_HEIGHT}>
        <PanelHeader>{t('notifications.title')}</PanelHeader>
        {breaches.length ? (
          <PopoverList data-testid="notifications-sla" aria-label={t('notifications.sla.title')}>
            {breaches.map((b) => (
              <li key={`${b.ticketId}-${b.target}`}>
                <Entry
                  type="button"
                  onClick={() => {
                    setOpen(false);
                    onOpenBreach?.(b);
                  }}
                  data-testid="notification-sla-item"
                  data-ticket-id={b.ticketId}
                >
                  <Initial aria-hidden="true">
                    <Icon name="clock" size={18} />
                  </Initial>
                  <span className="who">
                    <strong>{t('notifications.sla.entry', { id: b.ticketId, target: t(`notifications.sla.${b.target}`) })}</strong>
                    <span>{t('notifications.sla.due', { time: when.format(new Date(b.dueAt)) })}</span>
                  </span>
                  <Pill $tone="danger">{t('notifications.sla.title')}</Pill>
                </Entry>
              </li>
            ))}
          </PopoverList>
        ) : null}
        {items.length ? (
          <PopoverList data-testid="notifications-list">
            {items.map((ticket) => {
              const name = ticket.contact?.name ?? '';
              const picture = ticket.contact?.urlPicture ?? ticket.contact?.profilePicUrl;
              const preview = previewText(ticket.lastMessage);
              return (
                <li key={ticket.id}>
                  <Entry
                    type="button"
                    onClick={() => {
                      setOpen(false);
                      onOpen?.(ticket);
                    }}
                    data-testid="notification-item"
                    data-ticket-id={ticket.id}
                  >
                    <Initial aria-hidden="true">{picture ? <img src={picture} alt="" /> : (name.trim()[0] ?? '?').toUpperCase()}</Initial>
                    <span className="who">
                      <strong>{name}</strong>
                      <span>{preview.length > NOTIFICATION_PREVIEW_CUT ? `${[...preview].slice(0, NOTIFICATION_PREVIEW_CUT).join('')}...` : preview}</span>
                    </span>
                    {ticket.status === 'pending' ? (
                      <Pill $tone="warning">{t('notifications.pending')}</Pill>
                    ) : (
                      <Pill $tone="primary" aria-label={t('notifications.unread', { count: ticket.unreadMessages })}>
                        {ticket.unreadMessages}
                      </Pill>
                    )}
                  </Entry>
                </li>
              );
            })}
          </PopoverList>
        ) : breaches.length ? null : (
          <EmptyState icon="bell" text={t('notifications.empty')} data-testid="notifications-empty" />
        )}
      </Popover>
    </>
  );
}

const VolumeBox = styled.div`
  display: flex;
  align-items: center;
  gap: 12px;
  padding: 16px;
  input { flex: 1; accent-color: ${(p) => p.theme.colors.primary}; }
  output { min-width: 2.5em; text-align: right; font-variant-numeric: tabular-nums; }
`;

/** The notification volume slider (0..1, step 0.1, remembered in localStorage `volume`). */
export function VolumeControl() {
  const { t } = useTranslation();
  const volume = useVolume();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <IconButton ref={anchor} label={t('topbar.volume')} aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="volume-button">
        <Icon name={volume === 0 ? 'volumeOff' : 'volume'} />
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('topbar.volume')} width={260}>
        <VolumeBox>
          <Icon name="volumeOff" size={18} />
          <input type="range" min={0} max={1} step={0.1} value={volume} aria-label={t('topbar.volume')} onChange={(e) => setVolume(Number(e.target.value))} />
          <Icon name="volume" size={18} />
          <output aria-live="polite">{Math.round(volume * 100)}%</output>
        </VolumeBox>
      </Popover>
    </>
  );
}

const Avatar = styled.span`
  overflow: hidden;
  img { width: 100%; height: 100%; object-fit: cover; }
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 32px;
  height: 32px;
  border-radius: 50%;
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
`;

const Who = styled.div`
  padding: 12px 16px;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  strong { display: block; }
  span { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
`;

/** The avatar menu: who is signed in, Profile and Logout. */
export function UserMenu({ name, email, picture, onProfile, onLogout }: { name: string; email: string; picture?: string | null; onProfile: () => void; onLogout: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <IconButton ref={anchor} label={t('topbar.account')} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="user-menu-button">
        <Avatar aria-hidden="true">{picture ? <img src={picture} alt="" data-testid="user-menu-picture" /> : (name.trim()[0] ?? '?').toUpperCase()}</Avatar>
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('topbar.account')} role="menu" width={240}>
        <Who>
          <strong>{name}</strong>
          <span>{email}</span>
        </Who>
        <MenuItem
          onClick={() => {
            setOpen(false);
            onProfile();
          }}
        >
          <Icon name="user" size={18} />
          {t('topbar.profile')}
        </MenuItem>
        <MenuItem
          onClick={() => {
            setOpen(false);
            onLogout();
          }}
          data-testid="logout"
        >
          <Icon name="logout" size={18} />
          {t('topbar.logout')}
        </MenuItem>
      </Popover>
    </>
  );
}
