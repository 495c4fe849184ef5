import type { ApiErrorBody, AuthAnswer } from './types';

/**
 * An HTTP error answer (or a network failure, status 0). `response` mirrors axios' shape
 * (`err.response.data.error`), which toastError and code ported from the product family's client read.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly data: ApiErrorBody | undefined;
  readonly response: { status: number; data: ApiErrorBody | undefined };
  readonly method: string;
  readonly path: string;

  constructor(status: number, data: ApiErrorBody | undefined, method: string, path: string, message?: string) {
    super(message ?? data?.message ?? (typeof data?.code === 'string' ? data.code : undefined) ?? data?.error ?? `HTTP ${status}`);
    this.name = 'HttpError';
    this.status = status;
    this.data = data;
    this.response = { status, data };
    this.method = method;
    this.path = path;
  }

  /**
   * The API's error code (`ERR_...`), if any: the body's `code` when present (answers whose `error` carries
   * something else, e.g. the JSON ticket of POST /tickets' 409), else its `error`.
   */
  get code(): string | undefined {
    if (typeof this.data?.code === 'string' && this.data.code) return this.data.code;
    return typeof this.data?.error === 'string' ? this.data.error : undefined;
  }
}

/** The API's answer to a company past its due date (every route but the open-invoices page's). */
export const SUBSCRIPTION_EXPIRED = 'ERR_SUBSCRIPTION_EXPIRED';

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  /** JSON-encoded unless it is FormData, Blob or a string. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * `false` for public calls (sign-in, sign-up, public plans): no bearer token, and no refresh or sign-out
   * on 401/403. Default true.
   */
  auth?: boolean;
}

export interface HttpClientOptions {
  /** API base URL (or a getter, read on every call). */
  baseUrl: string | (() => string);
  fetch?: typeof fetch;
  getToken: () => string | null;
  setToken: (token: string) => void;
  clearToken: () => void;
  /** After every successful refresh (new token stored). */
  onRefreshed?: (answer: AuthAnswer) => void;
  /** After a 401 (the session is over): the app signs out. */
  onSignedOut?: () => void;
  /**
   * After a 403 ERR_SUBSCRIPTION_EXPIRED (the company's due date has passed): no refresh is tried (a new
   * token would be refused the same way); the app shows the open-invoices page.
   */
  onSubscriptionExpired?: () => void;
}

export interface HttpClient {
  request<T = unknown>(method: string, path: string, opts?: RequestOptions): Promise<T>;
  get<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, opts?: RequestOptions): Promise<T>;
  put<T = unknown>(path: string, body?: unknown, opts?: RequestOptions): Promise<T>;
  patch<T = unknown>(path: string, body?: unknown, opts?: RequestOptions): Promise<T>;
  delete<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;
  /**
   * `POST /auth/refresh_token` with the refresh cookie: stores the new token and resolves `{token, user}`.
   * Concurrent callers share one call. A 401 clears the token and signs out.
   */
  refresh(): Promise<AuthAnswer>;
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204 || res.status === 205) return undefined;
  const text = await res.text();
  if (!text) return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function errorBody(body: unknown): ApiErrorBody | undefined {
  if (body && typeof body === 'object') return body as ApiErrorBody;
  if (typeof body === 'string' && body) return { error: body };
  return undefined;
}

/**
 * The API client (spec 1-platform.md §4 "Token refresh", wire-shapes §1.3), on `fetch`:
 * - every call sends cookies (`credentials: 'include'`) and, unless `auth: false`, `Authorization: Bearer
 *   <stored token>`;
 * - a 403 triggers one `POST /auth/refresh_token` and one retry of the same request (once per request);
 *   concurrent 403s share one refresh, and a request whose token was already replaced meanwhile is retried
 *   with the new token without another refresh;
 * - a 401 clears the token and calls `onSignedOut`;
 * - a 403 ERR_SUBSCRIPTION_EXPIRED calls `onSubscriptionExpired` and is not retried;
 * - answers resolve to the parsed JSON body (undefined when empty); failures reject with `HttpError`
 *   (status 0 for network errors).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = () => (typeof options.baseUrl === 'function' ? options.baseUrl() : options.baseUrl).replace(/\/+$/, '');
  const doFetch = (input: string, init: RequestInit) => (options.fetch ?? globalThis.fetch)(input, init);
  let refreshing: Promise<AuthAnswer> | undefined;

  const url = (path: string, query?: Query) => {
    let out = /^https?:\/\//i.test(path) ? path : `${base()}${path.startsWith('/') ? '' : '/'}${path}`;
    if (query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) qs.append(k, String(v));
      const s = qs.toString();
      if (s) out += (out.includes('?') ? '&' : '?') + s;
    }
    return out;
  };

  const signOut = () => {
    options.clearToken();
    options.onSignedOut?.();
  };

  async function send(method: string, path: string, opts: RequestOptions, token: string | null): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      const b = opts.body;
      if ((typeof FormData !== 'undefined' && b instanceof FormData) || (typeof Blob !== 'undefined' && b instanceof Blob) || typeof b === 'string') {
        body = b as BodyInit;
      } else {
        body = JSON.stringify(b);
        headers['Content-Type'] = 'application/json';
      }
    }
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      return await doFetch(url(path, opts.query), { method, headers, body, credentials: 'include', signal: opts.signal });
    } catch (err) {
      if ((err as { name?: string }).name === 'AbortError') throw err;
      throw new HttpError(0, undefined, method, path, (err as Error)?.message || 'Network error');
    }
  }

  function refresh(): Promise<AuthAnswer> {
    if (!refreshing) {
      refreshing = (async () => {
        const res = await send('POST', '/auth/refresh_token', { auth: false }, null);
        const body = await readBody(res);
        if (!res.ok) {
          if (res.status === 401) signOut();
          throw new HttpError(res.status, errorBody(body), 'POST', '/auth/refresh_token');
        }
        const answer = body as AuthAnswer;
        if (!answer || typeof answer.token !== 'string') throw new HttpError(res.status, { error: 'ERR_INVALID_REFRESH_ANSWER' }, 'POST', '/auth/refresh_token');
        options.setToken(answer.token);
        options.onRefreshed?.(answer);
        return answer;
      })().finally(() => {
        refreshing = undefined;
      });
    }
    return refreshing;
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}, retried = false): Promise<T> {
    const authed = opts.auth !== false;
    const token = authed ? options.getToken() : null;
    const res = await send(method, path, opts, token);
    const body = await readBody(res);
    if (res.ok) return body as T;
    const error = new HttpError(res.status, errorBody(body), method, path);
    if (!authed) throw error;
    if (res.status === 401) {
      signOut();
      throw error;
    }
    if (res.status === 403 && error.code === SUBSCRIPTION_EXPIRED) {
      options.onSubscriptionExpired?.();
      throw error;
    }
    if (res.status === 403 && !retried) {
      const current = options.getToken();
      if (!current || current === token) {
        try {
          await refresh();
        } catch (refreshError) {
          // A dead session (401) is the better reason to report; otherwise the original answer.
          throw refreshError instanceof HttpError && refreshError.status === 401 ? refreshError : error;
        }
      }
      return request<T>(method, path, opts, true);
    }
    throw error;
  }

  return {
    request: (m, p, o) => request(m, p, o),
    get: (p, o) => request('GET', p, o),
    delete: (p, o) => request('DELETE', p, o),
    post: (p, body, o) => request('POST', p, { ...o, body }),
    put: (p, body, o) => request('PUT', p, { ...o, body }),
    patch: (p, body, o) => request('PATCH', p, { ...o, body }),
    refresh,
  };
}
