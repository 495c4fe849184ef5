/**
 * Customers writing in: signed WhatsApp Cloud webhooks (POST /webhook, one text message each, as Meta
 * posts them, X-Hub-Signature-256 with the app secret) from many customer numbers, at a target rate
 * (constant arrival rate: the rate holds whatever the latency, up to MAX_VUS requests in flight).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e META_APP_SECRET=... -e PHONE_NUMBER_ID=... -e RATE=200 deploy/k6/inbound.ts
 *
 * Settings (-e): META_APP_SECRET (the API's META_APP_SECRET), PHONE_NUMBER_ID (the `facebookPageUserId` of a
 * WhatsApp Cloud connection of the company under test), RATE (webhooks per second, 100), DURATION (1m),
 * NUMBERS (distinct customer numbers, 5000: the first message of each opens a ticket), MAX_VUS (500).
 * Thresholds: p95 < 200 ms per webhook (the API answers once the body is on the bus), < 1% failed.
 * What happens after the answer (ticket, message, socket event) is measured by bench/inbound.ts.
 */
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, JSON_HEADERS, hex, metaSignature, num, setting, thresholds, whatsappText } from './lib.ts';

export const options = {
  scenarios: {
    inbound: {
      executor: 'constant-arrival-rate',
      exec: 'customerWrites',
      rate: num('RATE', 100),
      timeUnit: '1s',
      duration: setting('DURATION', '1m'),
      preAllocatedVUs: Math.min(num('MAX_VUS', 500), Math.max(10, num('RATE', 100))),
      maxVUs: num('MAX_VUS', 500),
    },
  },
  thresholds: thresholds({ webhook: 200 }),
};

export function customerWrites(): void {
  const secret = setting('META_APP_SECRET');
  const n = Math.floor(Math.random() * num('NUMBERS', 5000));
  const from = String(5511900000000 + n);
  const now = Date.now();
  const body = whatsappText({ phoneNumberId: setting('PHONE_NUMBER_ID'), from, name: `Cliente k6 ${n}`, wamid: `wamid.K6${hex(10).toUpperCase()}`, text: `k6 ${now}`, nowMs: now });
  const res = http.post(`${BASE_URL}/webhook`, body, { headers: { ...JSON_HEADERS, 'x-hub-signature-256': metaSignature(body, secret) }, tags: { name: 'webhook' } });
  check(res, { 'webhook 200': (r) => r.status === 200 });
}

export default customerWrites;
