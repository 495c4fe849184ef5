import { PermanentError, RetryableError } from '@atendo/sdk';

/**
 * Default Graph API base URL. GRAPH_API.md cites the 2026 Message API reference for v23–v25, so the newest
 * documented version is the default; `META_GRAPH_URL` overrides it (other versions, a proxy, a test server).
 */
export const DEFAULT_GRAPH_URL = 'https://graph.facebook.com/v25.0';
/** Default timeout of one Graph call, in milliseconds. */
export const DEFAULT_GRAPH_TIMEOUT_MS = 15_000;

/**
 * Everything we know about a failed Graph call (GRAPH_API.md §4). Safe to log: no token, no message text.
 */
export interface GraphErrorInfo {
  /** HTTP status of the answer; absent for network errors and timeouts. */
  httpStatus?: number;
  /** Graph `error.code` (190, 100, 130429, ...). */
  code?: number;
  /** Graph `error.error_subcode`. */
  subcode?: number;
  /** Graph `error.type` (`OAuthException`, `IGApiException`, ...). */
  type?: string;
  /** Graph `error.message`, or our description of a network failure. */
  message: string;
  /** WhatsApp `error.error_data.details`, else `error_user_msg`. */
  details?: string;
  /** Meta's support trace id; log it. */
  fbtraceId?: string;
  /** How long Meta asks us to wait before trying again (Retry-After, or BUC `estimated_time_to_regain_access`). */
  retryAfterMs?: number;
  /** True when classified as worth retrying. */
  retryable: boolean;
}

/** A Graph failure worth retrying (throttling, 5xx, timeouts, network). The bus requeues it. */
export class GraphRetryableError extends RetryableError {
  readonly graph: GraphErrorInfo;
  constructor(info: GraphErrorInfo, options?: { cause?: unknown }) {
    super(describe(info), options);
    this.name = 'GraphRetryableError';
    this.graph = info;
  }
}

/** A Graph failure that will never succeed as sent (auth, invalid recipient, window closed). Dead-lettered. */
export class GraphPermanentError extends PermanentError {
  readonly graph: GraphErrorInfo;
  constructor(info: GraphErrorInfo, options?: { cause?: unknown }) {
    super(describe(info), options);
    this.name = 'GraphPermanentError';
    this.graph = info;
  }
}

function describe(info: GraphErrorInfo): string {
  const code = info.code !== undefined ? `(#${info.code}${info.subcode !== undefined ? `/${info.subcode}` : ''}) ` : '';
  const http = info.httpStatus !== undefined ? ` [HTTP ${info.httpStatus}]` : '';
  return `Graph API: ${code}${info.message}${info.details && info.details !== info.message ? `: ${info.details}` : ''}${http}`;
}

/** The Graph details of an error thrown by this package, if it is one. */
export function graphErrorOf(err: unknown): GraphErrorInfo | undefined {
  return err instanceof GraphRetryableError || err instanceof GraphPermanentError ? err.graph : undefined;
}

/**
 * Codes worth retrying (GRAPH_API.md §4): throttles 4 (app), 17 (user), 32 (pages), 341 (app limit),
 * 613 (custom, incl. 613/2534040 IG rate limit), 80001–80009 and 80014 (BUC limits, incl. 80007 WABA);
 * temporary failures 1 and 2; WhatsApp 130429 (throughput), 131056 (pair rate limit), 131057 (throughput
 * upgrade), 131000/131016 (something went wrong / service unavailable), 133004 (server unavailable).
 */
export const RETRYABLE_CODES: ReadonlySet<number> = new Set([
  1, 2, 4, 17, 32, 341, 613, 80001, 80002, 80003, 80004, 80005, 80006, 80007, 80008, 80009, 80014, 130429, 131000, 131016, 131056, 131057,
  133004,
]);

/**
 * Codes that never succeed on retry even when Meta answers 5xx: auth (190, 102, 463, 467), permissions (10,
 * 200–299), invalid parameter/recipient (100, 551), blocked (368), WhatsApp undeliverable (131026), not in
 * the allowed list (131030), outside the 24 h window (131047), unsupported (131051), invalid parameter
 * (131008, 131009, 131021), template problems (132000–132016).
 */
export const PERMANENT_CODES: ReadonlySet<number> = new Set([
  10, 100, 102, 190, 368, 463, 467, 551, 131008, 131009, 131021, 131026, 131030, 131031, 131047, 131051, 132000, 132001, 132005, 132007, 132012,
  132015, 132016,
]);

/**
 * Retryable or not, for a Graph error code (and HTTP status when known). Unknown codes: retryable on 5xx,
 * 429 and 408, permanent otherwise (a 4xx that is not a throttle will fail the same way again).
 */
export function isRetryableGraphError(code: number | undefined, httpStatus?: number, transient?: boolean): boolean {
  if (code !== undefined && RETRYABLE_CODES.has(code)) return true;
  if (code !== undefined && (PERMANENT_CODES.has(code) || (code >= 200 && code <= 299))) return false;
  if (transient) return true;
  if (httpStatus === undefined) return code === undefined; // network failure / timeout
  return httpStatus >= 500 || httpStatus === 429 || httpStatus === 408;
}

/** Reads the wait Meta asks for: `Retry-After` (seconds) or BUC `estimated_time_to_regain_access` (minutes). */
export function retryAfterMs(headers: Headers): number | undefined {
  const ra = headers.get('retry-after');
  if (ra && /^\d{1,6}$/.test(ra.trim())) return Number(ra.trim()) * 1000;
  const buc = headers.get('x-business-use-case-usage');
  if (buc) {
    try {
      const parsed = JSON.parse(buc) as Record<string, { estimated_time_to_regain_access?: unknown }[]>;
      let minutes = 0;
      for (const list of Object.values(parsed)) {
        for (const item of Array.isArray(list) ? list : []) {
          const m = Number(item?.estimated_time_to_regain_access);
          if (Number.isFinite(m) && m > minutes) minutes = m;
        }
      }
      if (minutes > 0) return minutes * 60_000;
    } catch {
      /* unreadable header: no hint */
    }
  }
  return undefined;
}

/** Builds the typed error for a non-2xx Graph answer (`body` is the parsed JSON, or undefined). */
export function graphErrorFromResponse(httpStatus: number, body: unknown, headers: Headers): GraphRetryableError | GraphPermanentError {
  const e = (body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined) as Record<string, unknown> | undefined;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : undefined);
  const str = (v: unknown) => (typeof v === 'string' && v.length ? v.slice(0, 1000) : undefined);
  const code = num(e?.code);
  const errorData = (e?.error_data && typeof e.error_data === 'object' ? e.error_data : undefined) as Record<string, unknown> | undefined;
  const info: GraphErrorInfo = {
    httpStatus,
    code,
    subcode: num(e?.error_subcode),
    type: str(e?.type),
    message: str(e?.message) ?? `HTTP ${httpStatus}`,
    details: str(errorData?.details) ?? str(e?.error_user_msg),
    fbtraceId: str(e?.fbtrace_id),
    retryAfterMs: retryAfterMs(headers),
    retryable: false,
  };
  info.retryable = isRetryableGraphError(code, httpStatus, e?.is_transient === true);
  return info.retryable ? new GraphRetryableError(info) : new GraphPermanentError(info);
}

/** One Graph request. `path` is relative to the base URL (`104512345678901/messages`); ids must be URL-safe. */
export interface GraphRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Access token, sent as `Authorization: Bearer` (never in the URL, so it stays out of access logs). */
  token: string;
  query?: Record<string, string>;
  /** JSON body. */
  json?: unknown;
  /** Multipart body (media upload). */
  form?: FormData;
}

export interface GraphClientOptions {
  /** Base URL with the version (`https://graph.facebook.com/v25.0`); default `DEFAULT_GRAPH_URL`. */
  baseUrl?: string;
  /** Per-call timeout in milliseconds; default 15000. */
  timeoutMs?: number;
  /** fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

/**
 * A small fetch-based Graph API client with our own base URL (fb-messenger-bot-api hard-codes its host in a
 * static, see README). Every failure is thrown as `GraphRetryableError` or `GraphPermanentError`:
 * network errors and timeouts are retryable; non-2xx answers are classified by `isRetryableGraphError`;
 * a 2xx answer that is not JSON is permanent (the call may have taken effect, so retrying could duplicate).
 */
export class GraphClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: GraphClientOptions = {}) {
    this.baseUrl = (opts.baseUrl || DEFAULT_GRAPH_URL).replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_GRAPH_TIMEOUT_MS;
    this.fetchImpl = opts.fetch ?? fetch;
  }

  /** The absolute URL of `path` with `query`. */
  url(path: string, query?: Record<string, string>): string {
    const u = new URL(`${this.baseUrl}/${path.replace(/^\/+/, '')}`);
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    return u.toString();
  }

  /** Sends the request and resolves with the parsed JSON answer. */
  async request<T = unknown>(req: GraphRequest): Promise<T> {
    if (!req.token) throw new GraphPermanentError({ message: 'the connection has no access token', retryable: false });
    const headers: Record<string, string> = { authorization: `Bearer ${req.token}`, accept: 'application/json' };
    let body: string | FormData | undefined;
    if (req.form) body = req.form;
    else if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(req.path, req.query), { method: req.method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const timeout = (err as { name?: string })?.name === 'TimeoutError' || (err as { name?: string })?.name === 'AbortError';
      throw new GraphRetryableError({ message: timeout ? `timed out after ${this.timeoutMs} ms` : `network error: ${(err as Error)?.message ?? String(err)}`, retryable: true }, { cause: err });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new GraphRetryableError({ httpStatus: res.status, message: 'the answer was cut off', retryable: true }, { cause: err });
    }
    let parsed: unknown;
    try {
      parsed = text.length ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) throw graphErrorFromResponse(res.status, parsed, res.headers);
    if (parsed === undefined || typeof parsed !== 'object' || parsed === null) {
      throw new GraphPermanentError({ httpStatus: res.status, message: 'the Graph API answered 2xx without a JSON object', retryable: false });
    }
    return parsed as T;
  }
}
