import { useSyncExternalStore } from 'react';

/**
 * The admin area's routing, without a router library (as the inbox's, microfrontends/inbox/src/lib/router.ts):
 * the page is read from the URL; single-spa dispatches `popstate` on every URL change, so the shell's router
 * and this area agree.
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

/** The pages of the area. */
export type AdminRoute = 'announcements';

/** The area's page for `pathname` (case-insensitive, optional trailing slash), or null. */
export function matchAdminRoute(pathname: string): AdminRoute | null {
  if (/^\/announcements\/?$/i.test(pathname)) return 'announcements';
  return null;
}
