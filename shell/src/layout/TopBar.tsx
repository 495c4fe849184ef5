import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { formatDate, isAdmin, type SessionUser } from '@atendo/web-api';
import { Icon, IconButton, toggleThemeMode, useThemeMode } from '@atendo/web-ui';
import { subscriptionStatus } from '../auth';
import { LanguageMenu } from '../LanguageMenu';
import { NotificationsPopover, UserMenu, VolumeControl } from './TopBarWidgets';
import { Announcements } from './Announcements';
import { AdminAlerts } from './AdminAlerts';
import { Chats } from './Chats';
import type { SlaBreach } from '../hooks/useSlaBreaches';
import type { WaitingTicket } from '../hooks/useTicketNotifications';

const Bar = styled.header`
  position: relative;
  z-index: ${(p) => p.theme.z.topBar};
  flex: none;
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  height: ${(p) => p.theme.layout.topBarHeight}px;
  padding: 0 ${(p) => p.theme.space(1)};
  background: ${(p) => p.theme.colors.topBar};
  color: ${(p) => p.theme.colors.onTopBar};
  box-shadow: ${(p) => p.theme.shadow.sm};
`;

const Greeting = styled.div`
  flex: 1;
  min-width: 0;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
  span { opacity: 0.85; margin-left: ${(p) => p.theme.space(1)}; }
  @media (max-width: 720px) { span { display: none; } }
`;

const Actions = styled.div`
  display: flex;
  align-items: center;
  gap: 2px;
`;

export interface TopBarProps {
  user: SessionUser;
  menuOpen: boolean;
  onToggleMenu: () => void;
  onProfile: () => void;
  onLogout: () => void;
  /** The tickets waiting for the viewer (the bell). */
  waiting?: WaitingTicket[];
  /** Opens a ticket of the bell. */
  onOpenTicket?: (t: WaitingTicket) => void;
  /** The open SLA breaches of the queues the viewer supervises (the bell's first section). */
  breaches?: SlaBreach[];
  /** Opens the ticket of a breach. */
  onOpenBreach?: (b: SlaBreach) => void;
}

/**
 * The top bar (spec 1-platform.md §2): menu toggle; greeting with the user's and company's names (admins
 * also see the due date); language menu; light/dark toggle; volume; page refresh; notifications; admins'
 * alerts (connections that drop or need a new QR code); announcements; chats; avatar menu (Profile, Logout).
 */
export function TopBar({ user, menuOpen, onToggleMenu, onProfile, onLogout, waiting, onOpenTicket, breaches, onOpenBreach }: TopBarProps) {
  const { t } = useTranslation();
  const mode = useThemeMode();
  const company = user.company?.name ?? '';
  const { dueDate } = subscriptionStatus(user.company ?? null);
  return (
    <Bar>
      <IconButton label={menuOpen ? t('topbar.closeMenu') : t('topbar.openMenu')} aria-expanded={menuOpen} onClick={onToggleMenu} data-testid="menu-toggle">
        <Icon name={menuOpen ? 'menuOpen' : 'menu'} />
      </IconButton>
      <Greeting data-testid="greeting">
        {t('topbar.greeting', { name: user.name, company })}
        {isAdmin(user) && dueDate ? <span data-testid="due-date">{t('topbar.dueDate', { date: formatDate(dueDate) })}</span> : null}
      </Greeting>
      <Actions>
        <LanguageMenu />
        <IconButton label={mode === 'dark' ? t('topbar.lightMode') : t('topbar.darkMode')} onClick={toggleThemeMode} data-testid="theme-toggle">
          <Icon name={mode === 'dark' ? 'sun' : 'moon'} />
        </IconButton>
        <VolumeControl />
        <IconButton label={t('topbar.refresh')} onClick={() => window.location.reload()}>
          <Icon name="refresh" />
        </IconButton>
        <NotificationsPopover items={waiting} onOpen={onOpenTicket} breaches={breaches} onOpenBreach={onOpenBreach} />
        {isAdmin(user) && user.companyId ? <AdminAlerts companyId={user.companyId} /> : null}
        <Announcements userId={user.id} />
        <Chats />
        <UserMenu name={user.name} email={user.email} picture={typeof user.profileImageUrl === 'string' ? user.profileImageUrl : null} onProfile={onProfile} onLogout={onLogout} />
      </Actions>
    </Bar>
  );
}
