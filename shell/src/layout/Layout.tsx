import { lazy, Suspense, useState } from 'react';
import { Outlet, useNavigate } from 'react-router';
import styled from 'styled-components';
import { useCompanyPlan, useSessionUser } from '@atendo/web-api';
import { hasRole } from '../access';
import { logout } from '../auth';
import { useConnectionsWarning } from '../hooks/useConnectionsWarning';
import { useSessionEvents, useUserStatusHeartbeat } from '../hooks/useSessionEvents';
import { useTicketNotifications } from '../hooks/useTicketNotifications';
import { useSlaBreaches } from '../hooks/useSlaBreaches';
import { visibleMenu } from '../menu';
import { SideMenu } from './SideMenu';
import { TopBar } from './TopBar';

/** The profile dialog (with its form library) loads when first opened, not with the signed-in frame. */
const ProfileModal = lazy(() => import('./ProfileModal').then((m) => ({ default: m.ProfileModal })));

const Frame = styled.div`
  display: flex;
  flex-direction: column;
  height: 100%;
`;

const Body = styled.div`
  display: flex;
  flex: 1;
  min-height: 0;
`;

const Main = styled.main`
  flex: 1;
  min-width: 0;
  overflow: auto;
`;

/** The signed-in frame: top bar, side menu (gated by role and plan) and the page. */
export function Layout() {
  const user = useSessionUser();
  const navigate = useNavigate();
  const plan = useCompanyPlan();
  const [menuOpen, setMenuOpen] = useState(() => user?.defaultMenu !== 'closed' && (typeof window === 'undefined' || window.innerWidth >= 720));
  const [profileOpen, setProfileOpen] = useState(false);
  const [profileUsed, setProfileUsed] = useState(false);
  const admin = hasRole(user, 'admin');
  const warning = useConnectionsWarning(admin ? user?.companyId : undefined);
  useSessionEvents(user);
  useUserStatusHeartbeat(Boolean(user));
  const notifications = useTicketNotifications();
  const breaches = useSlaBreaches();
  if (!user) return null;
  const signOut = async () => {
    await logout();
    navigate('/login', { replace: true });
  };
  return (
    <Frame>
      <TopBar user={user} menuOpen={menuOpen} onToggleMenu={() => setMenuOpen((o) => !o)} onProfile={() => {
          setProfileUsed(true);
          setProfileOpen(true);
        }} onLogout={() => void signOut()} waiting={notifications.items} onOpenTicket={(t) => navigate(`/tickets/${t.uuid}`)} breaches={breaches} onOpenBreach={(b) => navigate(`/tickets/${b.uuid}`)} />
      <Body>
        <SideMenu open={menuOpen} sections={visibleMenu(user, plan.data?.plan)} connectionsWarning={warning} />
        <Main id="atendo-main">
          <Outlet />
        </Main>
      </Body>
      {profileUsed ? (
        <Suspense fallback={null}>
          <ProfileModal user={user} open={profileOpen} onClose={() => setProfileOpen(false)} onPasswordChanged={() => void signOut()} />
        </Suspense>
      ) : null}
    </Frame>
  );
}
