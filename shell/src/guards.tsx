import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import { ERROR_TOAST_MS, useCompanyPlan, useSession, type PlanFeature } from '@atendo/web-api';
import { Loading } from '@atendo/web-ui';
import { hasFeature, hasRole, type Role } from './access';
import { HOME_AFTER_LOGIN } from './routes';

/** Delay before a refused page redirects (spec 1-platform.md §2: 1 second). */
export const REFUSED_REDIRECT_MS = 1000;

/** Private routes: signed-out visitors go to /login, which remembers where they came from. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { status } = useSession();
  const location = useLocation();
  if (status === 'loading') return <Loading label={t('common.loading')} />;
  if (status !== 'signedIn') return <Navigate to="/login" replace state={{ from: location }} />;
  return <>{children}</>;
}

let postLoginTarget: string | undefined;

/**
 * Where the public-only guard sends the user once signed in (set by the sign-in form just before it signs
 * the session in: the remembered location, /tickets, or /financeiro-aberto); undefined: /.
 */
export function setPostLoginTarget(target: string | undefined): void {
  postLoginTarget = target;
}

/** Sends a signed-in user to the sign-in form's target (used once), else to /. */
function SignedInRedirect() {
  const [to] = useState(() => postLoginTarget ?? '/');
  useEffect(() => {
    postLoginTarget = undefined;
  }, []);
  return <Navigate to={to} replace />;
}

/** Public-only routes (/login, /signup): signed-in users go to / (or to the sign-in form's target). */
export function PublicOnly({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { status } = useSession();
  if (status === 'loading') return <Loading label={t('common.loading')} />;
  if (status === 'signedIn') return <SignedInRedirect />;
  return <>{children}</>;
}

function Refused({ messageKey, to }: { messageKey: string; to: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  useEffect(() => {
    toast.error(t(messageKey), { toastId: messageKey, autoClose: ERROR_TOAST_MS });
    const timer = setTimeout(() => navigate(to, { replace: true }), REFUSED_REDIRECT_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [messageKey, to]);
  return null;
}

/**
 * Role and plan gate of a private page (spec 1-platform.md §2): a user below the page's role, or a company
 * whose plan lacks its feature, gets an error toast and is sent to / after 1 second. A non-admin opening
 * the dashboard (/) goes to /tickets at once.
 */
export function RouteGate({ role, features = [], path, children }: { role?: Role | null; features?: PlanFeature[]; path: string; children: ReactNode }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const plan = useCompanyPlan();
  const home = hasRole(user, 'admin') ? '/' : HOME_AFTER_LOGIN;
  if (!hasRole(user, role)) {
    if (path === '/') return <Navigate to={HOME_AFTER_LOGIN} replace />;
    return <Refused messageKey="errors.noPermission" to={home} />;
  }
  if (features.length) {
    if (plan.isPending) return <Loading label={t('common.loading')} />;
    if (features.some((f) => hasFeature(plan.data?.plan, f) !== true)) return <Refused messageKey="errors.featureNotInPlan" to={home} />;
  }
  return <>{children}</>;
}
