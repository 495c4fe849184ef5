declare global {
  interface Window {
    /** single-spa's `navigateToUrl`, set on the page by single-spa. */
    singleSpaNavigate?: (url: string) => void;
  }
}

/**
 * Navigates the page to `path` from inside the area (it has no router of its own): through single-spa's
 * `navigateToUrl` when present (it fires the `popstate` the shell's router follows), else a `pushState`
 * plus a `popstate` event.
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

/** The path of a ticket's conversation. */
export const ticketPath = (uuid: string) => `/tickets/${uuid}`;
