import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, matchPath, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { ToastContainer } from 'react-toastify';
import { queryClient, SUBSCRIPTION_EXPIRED_EVENT, useSessionUser, type PlanFeature } from '@atendo/web-api';
import { AtendoThemeProvider, GlobalStyle, Loading, useThemeMode } from '@atendo/web-ui';
import { useTranslation } from 'react-i18next';
import { featureSet, stricterRole, type Role } from './access';
import { subscriptionStatus } from './auth';
import { AREAS, AreaOutlet, expandPath, type AreaDef } from './areas';
import { PublicOnly, RequireAuth, RouteGate } from './guards';
import { useVersionWatcher } from './hooks/useVersionWatcher';
import { loadLayout } from './layout/load';
import { LoginPage } from './pages/LoginPage';
import { ComingSoonPage, NotFoundPage } from './pages/SimplePages';
import { COMING_SOON_ROUTES, EXPIRED_ROUTE, type RouteDef } from './routes';

/** A private page: its path and gates (and title, for the "coming soon" page). */
export interface PageDef {
  path: string;
  role?: Role;
  features: PlanFeature[];
  titleKey?: string;
}

/** An area with the pages it serves. */
export interface AreaPages {
  area: AreaDef;
  pages: PageDef[];
}

export { expandPath };

/**
 * The private pages: the areas' routes (their manifests) and the shell's "coming soon" routes
 * (COMING_SOON_ROUTES). A path an area serves mounts the area, gated by the strictest of the area's and the
 * route's role and by both plan features; the other paths show "coming soon" with their gates. Paths are
 * compared case-insensitively, with optional segments expanded; an area's path wins over a placeholder.
 */
export function routeTable(routes: RouteDef[] = COMING_SOON_ROUTES, areas: AreaDef[] = AREAS): { areas: AreaPages[]; comingSoon: PageDef[] } {
  const claimed = new Set<string>();
  const areaPages = areas.map((area) => ({
    area,
    pages: area.routes.flatMap((r) =>
      expandPath(r.path).map((path) => {
        claimed.add(path.toLowerCase());
        return { path, role: stricterRole(area.role, r.role), features: featureSet(area.feature, r.feature), titleKey: r.titleKey };
      }),
    ),
  }));
  const comingSoon: PageDef[] = [];
  for (const d of routes) {
    for (const path of expandPath(d.path)) {
      if (!claimed.has(path.toLowerCase())) comingSoon.push({ path, role: d.role, features: featureSet(d.feature), titleKey: d.titleKey });
    }
  }
  return { areas: areaPages, comingSoon };
}

/**
 * The page of an area: one element for all the area's routes, so that moving between them (e.g. /tickets
 * to /tickets/:ticketId) keeps the area mounted; the gate of the matching route applies.
 */
function AreaPage({ area, pages }: AreaPages) {
  const { pathname } = useLocation();
  const page = pages.find((p) => matchPath({ path: p.path, end: true, caseSensitive: false }, pathname)) ?? pages[0];
  return (
    <RouteGate path={page.path} role={page.role} features={page.features}>
      <AreaOutlet area={area.name} />
    </RouteGate>
  );
}

/**
 * Keeps a company past its due date on /financeiro-aberto (spec 1-platform.md §4): a session whose company
 * has expired is sent there from any other private page, and so is one the API answers 403
 * ERR_SUBSCRIPTION_EXPIRED mid-session (the company expired while signed in).
 */
export function ExpiredGate({ children }: { children: ReactNode }) {
  const user = useSessionUser();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const onExpired = () => navigate(EXPIRED_ROUTE, { replace: true });
    window.addEventListener(SUBSCRIPTION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SUBSCRIPTION_EXPIRED_EVENT, onExpired);
  }, [navigate]);
  if (subscriptionStatus(user?.company ?? null).expired && pathname.toLowerCase() !== EXPIRED_ROUTE) return <Navigate to={EXPIRED_ROUTE} replace />;
  return <>{children}</>;
}

/** The signed-in frame loads after sign-in (shell/src/layout/load.ts), not with /login. */
const Layout = lazy(loadLayout);

function LazyLayout() {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<Loading label={t('common.loading')} />}>
      <Layout />
    </Suspense>
  );
}

/** Sign-up (with its phone-mask library) loads on demand, keeping it out of the sign-in page's bundle. */
const SignupPage = lazy(() => import('./pages/SignupPage').then((m) => ({ default: m.SignupPage })));

function LazySignup() {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<Loading label={t('common.loading')} />}>
      <SignupPage />
    </Suspense>
  );
}

/** The open-invoices page loads on demand (only expired companies see it): /login never downloads it. */
const ExpiredPage = lazy(() => import('./pages/ExpiredPage').then((m) => ({ default: m.ExpiredPage })));

function LazyExpired() {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<Loading label={t('common.loading')} />}>
      <ExpiredPage />
    </Suspense>
  );
}

/** Password recovery loads on demand too: /login never downloads it. */
const RecoveryPasswordPage = lazy(() => import('./pages/RecoveryPasswordPage').then((m) => ({ default: m.RecoveryPasswordPage })));

function LazyRecoveryPassword() {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<Loading label={t('common.loading')} />}>
      <RecoveryPasswordPage />
    </Suspense>
  );
}

function Toasts() {
  const mode = useThemeMode();
  return <ToastContainer position="top-right" autoClose={3000} newestOnTop theme={mode === 'dark' ? 'dark' : 'light'} />;
}

/** The routes: public-only sign-in, sign-up and password recovery, and the private pages inside the layout. */
export function AppRoutes() {
  const table = routeTable();
  return (
    <Routes>
      <Route path="/login" element={<PublicOnly><LoginPage /></PublicOnly>} />
      <Route path="/signup" element={<PublicOnly><LazySignup /></PublicOnly>} />
      <Route path="/recovery-password" element={<PublicOnly><LazyRecoveryPassword /></PublicOnly>} />
      <Route element={<RequireAuth><ExpiredGate><LazyLayout /></ExpiredGate></RequireAuth>}>
        <Route path={EXPIRED_ROUTE} element={<LazyExpired />} />
        {table.areas.map(({ area, pages }) => (
          <Route key={`area:${area.name}`} element={<AreaPage area={area} pages={pages} />}>
            {pages.map((p) => (
              <Route key={p.path} path={p.path} element={null} />
            ))}
          </Route>
        ))}
        {table.comingSoon.map((p) => (
          <Route
            key={p.path}
            path={p.path}
            element={
              <RouteGate path={p.path} role={p.role} features={p.features}>
                <ComingSoonPage titleKey={p.titleKey ?? 'comingSoon.title'} />
              </RouteGate>
            }
          />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

/** The shell's React root: shared query cache, theme, global styles, toasts, router. */
export function App() {
  useVersionWatcher();
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>
        <GlobalStyle />
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
        <Toasts />
      </AtendoThemeProvider>
    </QueryClientProvider>
  );
}
