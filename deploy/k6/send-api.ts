/**
 * The external send API (spec 3-campaigns-and-tools.md, "Messages API": POST {api host}/api/messages/send
 * with a bearer token, JSON body {number, body, userId?, queueId?}; plugins/messages-api): another system
 * sending WhatsApp messages through Atendo at a target rate. The token is a connection's `token` (the
 * connection form shows it) of a company whose plan has useExternalApi; set MESSAGES_API_RATE_LIMIT above
 * RATE*60 or the run measures the rate limit (429). Messages go out through the connection of the token,
 * so run the API against the local Graph stand-in (graph-stub.mjs), never against Meta.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEND_API_TOKEN=... -e RATE=20 deploy/k6/send-api.ts
 *
 * Settings (-e): SEND_API_TOKEN (the connection's API token), RATE (sends per second, 20), DURATION (1m),
 * NUMBERS (distinct recipients, 1000), MAX_VUS (100), MEDIA_SHARE (0..1, 0: the share of sends that are
 * multipart with a small PNG in `medias`, as the media form of the API page sends). Thresholds: p95 < 400 ms
 * for text sends and < 800 ms for media sends, < 1% failed.
 */
import http from 'k6/http';
import { check } from 'k6';
import encoding from 'k6/encoding';
import { BASE_URL, JSON_HEADERS, num, setting, thresholds } from './lib.ts';

export const options = {
  scenarios: {
    sendApi: { executor: 'constant-arrival-rate', exec: 'send', rate: num('RATE', 20), timeUnit: '1s', duration: setting('DURATION', '1m'), preAllocatedVUs: 20, maxVUs: num('MAX_VUS', 100) },
  },
  thresholds: thresholds({ send: 400, sendMedia: 800 }),
};

/** A 1x1 PNG (the media sends' file: the server checks the type by content). */
const PNG = encoding.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==');

export function send(): void {
  const number = String(5511920000000 + Math.floor(Math.random() * num('NUMBERS', 1000)));
  const auth = { authorization: `Bearer ${setting('SEND_API_TOKEN')}` };
  if (Math.random() < num('MEDIA_SHARE', 0)) {
    const res = http.post(`${BASE_URL}/api/messages/send`, { number, body: `Arquivo k6 ${Date.now()}`, medias: http.file(PNG, 'k6.png', 'image/png') }, { headers: auth, tags: { name: 'sendMedia' } });
    check(res, { 'send media 200': (r) => r.status === 200 });
    return;
  }
  const res = http.post(`${BASE_URL}/api/messages/send`, JSON.stringify({ number, body: `Aviso k6 ${Date.now()}` }), {
    headers: { ...JSON_HEADERS, ...auth },
    tags: { name: 'send' },
  });
  check(res, { 'send 200': (r) => r.status === 200 });
}

export default send;
