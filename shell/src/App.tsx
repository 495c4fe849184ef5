import { lazy, Suspense } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, matchPath, Route, Routes, useLocation } from 'react-router';
import { ToastContainer } from 'react-toastify';
import { queryClient, type PlanFeature } from '@atendo/web-api';
import { AtendoThemeProvider, GlobalStyle, Loading, useThemeMode } from '@atendo/web-ui';
import { useTranslation } from 'react-i18next';
import type { Role } from './access';
import { AREAS, AreaOutlet, type AreaDef } from './areas';
import { PublicOnly, RequireAuth, RouteGate } from './guards';
import { useVersionWatcher } from './hooks/useVersionWatcher';
import { loadLayout } from './layout/load';
import { LoginPage } from './pages/LoginPage';
import { ComingSoonPage, ExpiredPage, NotFoundPage } from './pages/SimplePages';
import { EXPIRED_ROUTE, PRIVATE_ROUTES, type RouteDef } from './routes';

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

/** Expands optional segments: `/tickets/:ticketId?` -> [`/tickets`, `/tickets/:ticketId`]. */
export function expandPath(path: string): string[] {
  let out = [''];
  for (const seg of path.split('/').filter(Boolean)) {
    if (seg.endsWith('?')) {
      const s = seg.slice(0, -1);
      out = out.flatMap((p) => [p, `${p}/${s}`]);
    } else {
      out = out.map((p) => `${p}/${seg}`);
    }
  }
  return out.map((p) => p || '/');
}

const RANK: Record<Role, number> = { user: 0, admin: 1, super: 2 };
const stricter = (a?: Role | null, b?: Role | null): Role | undefined => {
  const roles = [a, b].filter((r): r is Role => Boolean(r));
  return roles.length ? roles.reduce((x, y) => (RANK[y] > RANK[x] ? y : x)) : undefined;
};

/**
 * The private pages: the spec's route table (PRIVATE_ROUTES) and the areas (areas.json). A path an area
 * serves mounts the area, gated by the stricter of the area's and the route's role and by both plan
 * features; the other paths show "coming soon" with the route's gates. Paths are compared
 * case-insensitively, with optional segments expanded.
 */
export function routeTable(routes: RouteDef[] = PRIVATE_ROUTES, areas: AreaDef[] = AREAS): { areas: AreaPages[]; comingSoon: PageDef[] } {
  const defs = new Map<string, PageDef>();
  for (const d of routes) {
    for (const path of expandPath(d.path)) defs.set(path.toLowerCase(), { path, role: d.role, features: d.feature ? [d.feature] : [], titleKey: d.titleKey });
  }
  const claimed = new Set<string>();
  const areaPages = areas.map((area) => ({
    area,
    pages: area.routes.flatMap(expandPath).map((path) => {
      const key = path.toLowerCase();
      claimed.add(key);
      const d = defs.get(key);
      const features = [...new Set([...(d?.features ?? []), ...(area.feature ? [area.feature] : [])])];
      return { path, role: stricter(area.role, d?.role), features, titleKey: d?.titleKey };
    }),
  }));
  const comingSoon = [...defs.entries()].filter(([key]) => !claimed.has(key)).map(([, page]) => page);
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
      <Route element={<RequireAuth><LazyLayout /></RequireAuth>}>
        <Route path={EXPIRED_ROUTE} element={<ExpiredPage />} />
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
