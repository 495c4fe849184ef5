import { useSyncExternalStore } from 'react';

declare global {
  interface Window {
    /** single-spa's `navigateToUrl`, set on the page by single-spa. */
    singleSpaNavigate?: (url: string) => void;
  }
}

/**
 * The area's routing without a router library (as the inbox does): it serves /chats and /chats/:id and
 * reads them from the page's URL. single-spa dispatches `popstate` on every URL change, so the URL read
 * here and the shell's router agree.
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

/** `{}` for /chats, `{id}` (decoded) for /chats/:id, null for any other path (case-insensitive, optional trailing slash). */
export function matchChatsRoute(pathname: string): { id?: string } | null {
  const m = /^\/chats(?:\/([^/]+))?\/?$/i.exec(pathname);
  if (!m) return null;
  if (m[1] === undefined) return {};
  try {
    return { id: decodeURIComponent(m[1]) };
  } catch {
    return { id: m[1] };
  }
}

/** The `:id` (a chat uuid) of the current URL, if any. */
export function useChatParam(): string | undefined {
  return matchChatsRoute(usePathname())?.id;
}

/** Navigates the page to `path` (through single-spa when present, else pushState + popstate). */
export function navigateTo(path: string): void {
  if (typeof window.singleSpaNavigate === 'function') {
    window.singleSpaNavigate(path);
    return;
  }
  window.history.pushState(window.history.state, '', path);
  window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
}

export const chatPath = (uuid: string) => `/chats/${uuid}`;
