/**
 * Smoke: GET /health and /ready, and a signed-in call (GET /auth/me) with a token from one sign-in in
 * setup(): a quick check that a deployment answers before the heavier scenarios. (Signing in per iteration
 * would measure the API's sign-in limit, 60 a minute per client address, instead: 429s.)
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ATENDO_EMAIL=admin@example.com -e ATENDO_PASSWORD=... deploy/k6/smoke.ts
 *
 * Settings (-e): VUS (10), DURATION (30s). Thresholds: p95 < 200 ms for the probes and the signed-in call,
 * < 800 ms for the sign-in, < 1% failed.
 */
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, auth, login, num, setting, thresholds, type Session } from './lib.ts';

export const options = {
  scenarios: { smoke: { executor: 'constant-vus', exec: 'smoke', vus: num('VUS', 10), duration: setting('DURATION', '30s'), gracefulStop: '10s' } },
  thresholds: thresholds({ health: 200, ready: 200, me: 200, login: 800 }),
};

/** One sign-in for the whole run; every VU uses its token. */
export function setup(): Session {
  return login(setting('ATENDO_EMAIL'), setting('ATENDO_PASSWORD'));
}

export function smoke(session: Session): void {
  check(http.get(`${BASE_URL}/health`, { tags: { name: 'health' } }), { 'health 200': (r) => r.status === 200 });
  check(http.get(`${BASE_URL}/ready`, { tags: { name: 'ready' } }), { 'ready 200': (r) => r.status === 200 });
  check(http.get(`${BASE_URL}/auth/me`, auth(session, 'me')), { 'me 200': (r) => r.status === 200 });
}

export default smoke;
