// k6 load script for a running Atendo API: GET /health and POST /auth/login.
//
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ATENDO_EMAIL=admin@example.com -e ATENDO_PASSWORD=... \
//     deploy/k6/health-and-login.js
//
// Options (all through -e): BASE_URL (default http://127.0.0.1:8080), ATENDO_EMAIL and ATENDO_PASSWORD
// (required: an existing user), VUS (default 10), DURATION (default 30s), LOGIN_EVERY (one login per N
// iterations of a virtual user, default 10: logins hash with argon2 and cost far more than /health).
// The run is bounded by DURATION and stops by itself. Point it only at a server you run.
import http from 'k6/http';
import { check, fail, sleep } from 'k6';

const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const EMAIL = __ENV.ATENDO_EMAIL;
const PASSWORD = __ENV.ATENDO_PASSWORD;
const LOGIN_EVERY = Math.max(1, parseInt(__ENV.LOGIN_EVERY || '10', 10));

export const options = {
  scenarios: {
    api: {
      executor: 'constant-vus',
      vus: parseInt(__ENV.VUS || '10', 10),
      duration: __ENV.DURATION || '30s',
      gracefulStop: '10s',
    },
  },
  thresholds: {
    // Every request answered as expected (a 429 from the login rate limit counts as a failure).
    checks: ['rate>0.99'],
    'http_req_duration{name:health}': ['p(95)<200'],
    'http_req_duration{name:login}': ['p(95)<1500'],
  },
};

// Fails fast, before the load starts, when the server or the credentials are wrong.
export function setup() {
  if (!EMAIL || !PASSWORD) fail('set ATENDO_EMAIL and ATENDO_PASSWORD (-e ATENDO_EMAIL=... -e ATENDO_PASSWORD=...)');
  const health = http.get(`${BASE_URL}/health`);
  if (health.status !== 200) fail(`GET ${BASE_URL}/health answered ${health.status}: ${health.body}`);
  const login = postLogin();
  if (login.status !== 200) fail(`POST ${BASE_URL}/auth/login answered ${login.status}: ${login.body}`);
  return {};
}

function postLogin() {
  return http.post(`${BASE_URL}/auth/login`, JSON.stringify({ email: EMAIL, password: PASSWORD }), {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: 'login' },
  });
}

export default function () {
  const health = http.get(`${BASE_URL}/health`, { tags: { name: 'health' } });
  check(health, {
    'health: 200': (r) => r.status === 200,
    'health: status ok': (r) => r.status === 200 && r.json('status') === 'ok',
  });

  // __ITER counts this virtual user's iterations from 0.
  if (__ITER % LOGIN_EVERY === 0) {
    const login = postLogin();
    check(login, {
      'login: 200': (r) => r.status === 200,
      'login: token': (r) => r.status === 200 && typeof r.json('token') === 'string',
      'login: refresh cookie': (r) => r.status === 200 && Object.prototype.hasOwnProperty.call(r.cookies, 'jrt'),
    });
  }

  sleep(0.1);
}
