import { useSyncExternalStore } from 'react';

/**
 * Routing for areas without a router library (react-router would add ~15 KB gzipped to each): an area
 * reads its page from the URL. single-spa dispatches `popstate` on every URL change (the shell's router
 * navigating, `navigateToUrl`, back/forward), so what the area reads and the shell's router agree.
 */

declare global {
  interface Window {
    /** single-spa's `navigateToUrl`, set on the page by single-spa. */
    singleSpaNavigate?: (url: string) => void;
  }
}

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
 * Matches `pathname` against `/<section>` and `/<section>/:param` (case-insensitive, optional trailing
 * slash): null for other paths, `{}` for the section itself, `{param}` (URI-decoded when valid) for one
 * segment below it.
 */
export function matchSection(section: string, pathname: string): { param?: string } | null {
  const m = new RegExp(`^/${section.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/([^/]+))?/?$`, 'i').exec(pathname);
  if (!m) return null;
  if (m[1] === undefined) return {};
  try {
    return { param: decodeURIComponent(m[1]) };
  } catch {
    return { param: m[1] };
  }
}

/**
 * Navigates the page to `path` from inside an area: through single-spa's `navigateToUrl` when present (it
 * fires the `popstate` the shell's router follows), else a `pushState` plus a `popstate` event.
 */
export function navigateTo(path: string): void {
  if (typeof window === 'undefined') return;
  if (typeof window.singleSpaNavigate === 'function') {
    window.singleSpaNavigate(path);
    return;
  }
  window.history.pushState(window.history.state, '', path);
  window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
}

/**
 * Matches `pathname` against a react-router style `pattern` (`/users`, `/contact-lists/:id/contacts`,
 * optional segments `/chats/:id?`), case-insensitively and with an optional trailing slash: the params
 * (URI-decoded when valid) or null.
 */
export function matchRoutePath(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = pathname.split('/').filter(Boolean);
  const params: Record<string, string> = {};
  let i = 0;
  for (const seg of want) {
    const optional = seg.endsWith('?');
    const name = optional ? seg.slice(0, -1) : seg;
    const part = got[i];
    if (part === undefined) {
      if (optional) continue;
      return null;
    }
    if (name.startsWith(':')) {
      try {
        params[name.slice(1)] = decodeURIComponent(part);
      } catch {
        params[name.slice(1)] = part;
      }
    } else if (name.toLowerCase() !== part.toLowerCase()) {
      return null;
    }
    i++;
  }
  return i === got.length ? params : null;
}
