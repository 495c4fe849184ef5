/**
 * Smoke: GET /health and /ready, and a sign-in every LOGIN_EVERY iterations (logins hash with argon2 and
 * cost far more than the probes). A quick check that a deployment answers before the heavier scenarios.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ATENDO_EMAIL=admin@example.com -e ATENDO_PASSWORD=... deploy/k6/smoke.ts
 *
 * Settings (-e): VUS (10), DURATION (30s), LOGIN_EVERY (10). Thresholds: p95 < 200 ms for the probes,
 * < 800 ms for a sign-in, < 1% failed.
 */
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, login, num, setting, thresholds } from './lib.ts';

export const options = {
  scenarios: { smoke: { executor: 'constant-vus', exec: 'smoke', vus: num('VUS', 10), duration: setting('DURATION', '30s'), gracefulStop: '10s' } },
  thresholds: thresholds({ health: 200, ready: 200, login: 800 }),
};

export function smoke(): void {
  check(http.get(`${BASE_URL}/health`, { tags: { name: 'health' } }), { 'health 200': (r) => r.status === 200 });
  check(http.get(`${BASE_URL}/ready`, { tags: { name: 'ready' } }), { 'ready 200': (r) => r.status === 200 });
  if (__ITER % num('LOGIN_EVERY', 10) === 0) login(setting('ATENDO_EMAIL'), setting('ATENDO_PASSWORD'));
}

export default smoke;
