/**
 * The stored access token. Like the product family's client, `localStorage.token` holds the token
 * JSON-encoded (`JSON.stringify(token)`, wire-shapes §0); a raw token is read too.
 */
export const TOKEN_KEY = 'token';

/** localStorage keys the session writes and sign-out removes. */
export const SESSION_KEYS = ['token', 'companyId', 'userId', 'companyDueDate', 'cshow'] as const;

export function readToken(): string | null {
  try {
    const raw = window.localStorage.getItem(TOKEN_KEY);
    if (!raw) return null;
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === 'string' && parsed ? parsed : null;
    } catch {
      return raw;
    }
  } catch {
    return null;
  }
}

export function writeToken(token: string): void {
  try {
    window.localStorage.setItem(TOKEN_KEY, JSON.stringify(token));
  } catch {
    /* storage unavailable */
  }
}

/** Removes the token and the other session keys. */
export function clearSessionStorage(): void {
  try {
    for (const k of SESSION_KEYS) window.localStorage.removeItem(k);
  } catch {
    /* storage unavailable */
  }
}
