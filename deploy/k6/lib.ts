/**
 * Shared pieces of Atendo's k6 scenarios: settings from `-e NAME=value` (or the environment), sign-in, a
 * signed WhatsApp Cloud webhook, and the thresholds every scenario keeps (p95 per request kind, error rate).
 * Point the scenarios only at a server you run (see README.md).
 */
import http from 'k6/http';
import crypto from 'k6/crypto';
import { check, fail, sleep } from 'k6';

/** Base URL of the API: http://127.0.0.1:8080, or <origin>/backend behind the web server or Caddy. */
export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');

/** A setting: `-e NAME=value`, else `fallback`; a missing required one stops the run with its name. */
export function setting(name: string, fallback?: string): string {
  const v = __ENV[name];
  if (v !== undefined && v !== '') return v;
  if (fallback === undefined) fail(`set ${name} (k6 run -e ${name}=...)`);
  return fallback as string;
}

export const num = (name: string, fallback: number): number => {
  const v = Number(setting(name, String(fallback)));
  return Number.isFinite(v) ? v : fallback;
};

export const JSON_HEADERS = { 'content-type': 'application/json' };

export interface Session {
  token: string;
  companyId: number;
  userId: number;
}

/**
 * Signs in (POST /auth/login) and returns the access token; fails the iteration on anything but 200.
 * Scenarios sign in once per VU (or once in setup()) and reuse the token: the API allows
 * LOGIN_IP_RATE_LIMIT (60) sign-ins a minute per client address, and a load test runs from one address.
 * When that limit answers 429 anyway (more VUs than it allows in a minute), the sign-in waits the
 * answer's Retry-After and tries again (up to `maxWaitS` seconds in all); those 429s are expected answers
 * (not counted in http_req_failed).
 */
export function login(email: string, password: string, maxWaitS = 120): Session {
  const params = { headers: JSON_HEADERS, tags: { name: 'login' }, responseCallback: http.expectedStatuses(200, 429) };
  let waited = 0;
  let res = http.post(`${BASE_URL}/auth/login`, JSON.stringify({ email, password }), params);
  while (res.status === 429 && waited < maxWaitS) {
    const wait = Math.min(Math.max(Number(res.headers['Retry-After']) || 1, 1), maxWaitS - waited);
    sleep(wait);
    waited += wait;
    res = http.post(`${BASE_URL}/auth/login`, JSON.stringify({ email, password }), params);
  }
  if (!check(res, { 'login 200': (r) => r.status === 200 })) fail(`login as ${email}: HTTP ${res.status} ${String(res.body).slice(0, 200)}`);
  const body = res.json() as { token: string; user: { id: number; companyId: number } };
  return { token: body.token, companyId: body.user.companyId, userId: body.user.id };
}

export const auth = (s: Session, name: string) => ({ headers: { ...JSON_HEADERS, authorization: `Bearer ${s.token}` }, tags: { name } });

/** `X-Hub-Signature-256` of `body` with the Meta app secret, as Meta signs webhooks. */
export function metaSignature(body: string, appSecret: string): string {
  return `sha256=${crypto.hmac('sha256', appSecret, body, 'hex')}`;
}

/** A WhatsApp Cloud webhook body carrying one inbound text message (Meta's shape, compact JSON). */
export function whatsappText(opts: { phoneNumberId: string; from: string; name: string; wamid: string; text: string; nowMs: number }): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: opts.phoneNumberId },
              contacts: [{ profile: { name: opts.name }, wa_id: opts.from }],
              messages: [{ from: opts.from, id: opts.wamid, timestamp: String(Math.floor(opts.nowMs / 1000)), text: { body: opts.text }, type: 'text' }],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });
}

/** Random hex of `bytes` bytes (message ids that never repeat across VUs and runs). */
export const hex = (bytes: number): string => Array.from(new Uint8Array(crypto.randomBytes(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');

/** The thresholds of every scenario: per-request-kind p95 (ms) and at most 1% failed requests. */
export function thresholds(p95: Record<string, number>): Record<string, string[]> {
  const out: Record<string, string[]> = { http_req_failed: ['rate<0.01'], checks: ['rate>0.99'] };
  for (const [name, ms] of Object.entries(p95)) out[`http_req_duration{name:${name}}`] = [`p(95)<${ms}`];
  return out;
}
