/**
 * Attendants replying: each virtual user signs in as an attendant, takes a ticket (one of its open tickets,
 * else accepts a pending one: PUT /tickets/{id} {status: "open", userId}) and replies in it
 * (POST /messages/{ticketId} {body}), with a think time between replies. The replies go out through the
 * channels to Meta's Graph API: run the API against the local Graph stand-in (deploy/k6/graph-stub.mjs,
 * META_GRAPH_URL=http://127.0.0.1:8799), never against Meta.
 *
 *   node deploy/k6/graph-stub.mjs &       # answers like Graph's send endpoint
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ATENDO_USERS=ana@example.com:pw1,... deploy/k6/replies.ts
 *
 * Settings (-e): ATENDO_USERS or ATENDO_EMAIL + ATENDO_PASSWORD (as inbox.ts), VUS (10), DURATION (1m),
 * THINK (seconds between replies, 2). Needs pending tickets to take (run inbound.ts first or alongside).
 * Thresholds: p95 < 300 ms per reply (the API answers once the message is stored and the send is queued),
 * < 400 ms per accept, < 1% failed.
 */
import http from 'k6/http';
import { check, sleep } from 'k6';
import { BASE_URL, auth, login, num, setting, thresholds, type Session } from './lib.ts';

export const options = {
  scenarios: {
    replies: { executor: 'constant-vus', exec: 'reply', vus: num('VUS', 10), duration: setting('DURATION', '1m'), gracefulStop: '10s' },
  },
  thresholds: thresholds({ reply: 300, accept: 400, tickets: 300 }),
};

let session: Session | undefined;
let ticketId: number | undefined;
let sent = 0;

function me(): { email: string; password: string } {
  const list = setting('ATENDO_USERS', '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!list.length) return { email: setting('ATENDO_EMAIL'), password: setting('ATENDO_PASSWORD') };
  const pair = list[(__VU - 1) % list.length];
  return { email: pair.slice(0, pair.indexOf(':')), password: pair.slice(pair.indexOf(':') + 1) };
}

/** One of the VU's open tickets, else a pending one it accepts; undefined when there is none. */
function takeTicket(s: Session): number | undefined {
  const open = http.get(`${BASE_URL}/tickets?status=open&pageNumber=1`, auth(s, 'tickets'));
  const mine = open.status === 200 ? ((open.json('tickets') as { id: number; userId: number | null }[]) ?? []).find((t) => t.userId === s.userId) : undefined;
  if (mine) return mine.id;
  const pending = http.get(`${BASE_URL}/tickets?status=pending&pageNumber=1`, auth(s, 'tickets'));
  const list = pending.status === 200 ? ((pending.json('tickets') as { id: number }[]) ?? []) : [];
  if (!list.length) return undefined;
  const pick = list[Math.floor(Math.random() * list.length)];
  const res = http.put(`${BASE_URL}/tickets/${pick.id}`, JSON.stringify({ status: 'open', userId: s.userId }), auth(s, 'accept'));
  return res.status === 200 ? pick.id : undefined;
}

export function reply(): void {
  const who = me();
  session ??= login(who.email, who.password);
  ticketId ??= takeTicket(session);
  if (ticketId === undefined) {
    sleep(1); // nothing to answer yet
    return;
  }
  const res = http.post(`${BASE_URL}/messages/${ticketId}`, JSON.stringify({ body: `Resposta k6 #${++sent} (VU ${__VU})` }), auth(session, 'reply'));
  if (res.status === 401 || res.status === 403) session = undefined; // expired token: sign in again next time
  else if (res.status !== 200) ticketId = undefined; // closed or transferred meanwhile: take another
  check(res, { 'reply 200': (r) => r.status === 200 || r.status === 401 || r.status === 403 });
  sleep(num('THINK', 2));
}

export default reply;
