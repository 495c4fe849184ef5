/**
 * Runtime settings of the web UI. The static server writes them into `/env.js`
 * (`window.__ATENDO_ENV__ = {API_URL: ...}`), loaded before any bundle, so one build serves any API.
 */
export interface AtendoEnv {
  /** Base URL of the Atendo API and socket.io, without a trailing slash. */
  API_URL: string;
}

declare global {
  interface Window {
    __ATENDO_ENV__?: Partial<AtendoEnv>;
  }
}

/** Where the API is: `window.__ATENDO_ENV__.API_URL`, else http://localhost:8080. */
export function apiUrl(): string {
  const fromEnv = typeof window !== 'undefined' ? window.__ATENDO_ENV__?.API_URL : undefined;
  return (fromEnv || 'http://localhost:8080').replace(/\/+$/, '');
}
