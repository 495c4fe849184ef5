import { useSyncExternalStore } from 'react';
import { navigateTo } from '../conversation/navigation';

/**
 * The inbox's routing, without a router library: the area serves two paths, /tickets and
 * /tickets/:ticketId, and reads them from the page's URL. single-spa dispatches `popstate` on every URL
 * change (the shell's router navigating, `navigateToUrl`, back/forward), so the URL read here and the
 * shell's router agree. (react-router would add ~15 KB gzipped to the area for this.)
 */

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  return () => window.removeEventListener('popstate', listener);
}

const currentPath = () => window.location.pathname;

/** The page's path, re-rendering on URL changes. */
export function usePathname(): string {
  return useSyncExternalStore(subscribe, currentPath, () => '/');
}

/**
 * The route of `pathname` among the area's (case-insensitive, an optional trailing slash): `{}` for
 * /tickets, `{ticketId}` (decoded) for /tickets/:ticketId, null for any other path.
 */
export function matchTicketsRoute(pathname: string): { ticketId?: string } | null {
  const m = /^\/tickets(?:\/([^/]+))?\/?$/i.exec(pathname);
  if (!m) return null;
  if (m[1] === undefined) return {};
  try {
    return { ticketId: decodeURIComponent(m[1]) };
  } catch {
    return { ticketId: m[1] };
  }
}

/** The `:ticketId` of the current URL (/tickets/:ticketId), if any. */
export function useTicketId(): string | undefined {
  return matchTicketsRoute(usePathname())?.ticketId;
}

/** Navigation inside the area: to a path of the page (through single-spa when present). */
export function useNavigate(): (path: string) => void {
  return navigateTo;
}
