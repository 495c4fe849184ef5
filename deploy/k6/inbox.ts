/**
 * Attendants browsing the inbox: each virtual user signs in once (again when its access token expires),
 * then loops: the ticket list of each tab (GET /tickets?status=open|pending|closed), a search, and the
 * messages of a ticket it sees (GET /messages/{ticketId}), with a think time between pages.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ATENDO_USERS=ana@example.com:pw1,bruno@example.com:pw2 deploy/k6/inbox.ts
 *
 * Settings (-e): ATENDO_USERS (email:password pairs, comma separated; VU n signs in as user n mod count) or
 * ATENDO_EMAIL + ATENDO_PASSWORD (every VU the same user), VUS (20), DURATION (1m), THINK (seconds between
 * pages, 1), SEARCH (search text, "pedido"). Thresholds: p95 < 300 ms per list and message page, < 500 ms
 * for a search, < 1% failed requests.
 */
import http, { type RefinedResponse } from 'k6/http';
import { check, sleep } from 'k6';
import { BASE_URL, auth, login, num, setting, thresholds, type Session } from './lib.ts';

export const options = {
  scenarios: {
    inbox: { executor: 'constant-vus', exec: 'browse', vus: num('VUS', 20), duration: setting('DURATION', '1m'), gracefulStop: '10s' },
  },
  thresholds: thresholds({ tickets: 300, search: 500, messages: 300 }),
};

function users(): { email: string; password: string }[] {
  const list = setting('ATENDO_USERS', '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf(':');
      return { email: pair.slice(0, i), password: pair.slice(i + 1) };
    });
  return list.length ? list : [{ email: setting('ATENDO_EMAIL'), password: setting('ATENDO_PASSWORD') }];
}

let session: Session | undefined;

/** GET with the VU's token; a 401/403 (expired token) signs in again once and retries. */
function get(url: string, name: string): RefinedResponse<'text'> {
  const all = users();
  const me = all[(__VU - 1) % all.length];
  session ??= login(me.email, me.password);
  let res = http.get(url, auth(session, name));
  if (res.status === 401 || res.status === 403) {
    session = login(me.email, me.password);
    res = http.get(url, auth(session, name));
  }
  return res;
}

export function browse(): void {
  const think = num('THINK', 1);
  let some: number | undefined;
  for (const tab of ['open', 'pending', 'closed']) {
    const res = get(`${BASE_URL}/tickets?status=${tab}&pageNumber=1&showAll=true`, 'tickets');
    check(res, { 'tickets 200': (r) => r.status === 200 });
    if (res.status === 200) some ??= (res.json('tickets.0.id') as number | undefined) ?? undefined;
    sleep(think);
  }
  const search = get(`${BASE_URL}/tickets?status=search&searchParam=${encodeURIComponent(setting('SEARCH', 'pedido'))}&pageNumber=1&showAll=true`, 'search');
  check(search, { 'search 200': (r) => r.status === 200 });
  sleep(think);
  if (some !== undefined) {
    const msgs = get(`${BASE_URL}/messages/${some}?pageNumber=1`, 'messages');
    check(msgs, { 'messages 200': (r) => r.status === 200 });
    sleep(think);
  }
}

export default browse;
