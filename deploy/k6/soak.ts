/**
 * Soak: the inbox browsing of inbox.ts and the inbound webhooks of inbound.ts together, at a moderate
 * load, for a long time (default 1 hour), to show leaks and drift: the thresholds must still hold at the
 * end, and the node's /metrics (process_resident_memory_bytes, nodejs_eventloop_lag_seconds,
 * atendo_bus_queue_depth) should stay flat while it runs.
 *
 *   k6 run -e BASE_URL=... -e ATENDO_USERS=... -e META_APP_SECRET=... -e PHONE_NUMBER_ID=... deploy/k6/soak.ts
 *
 * Settings (-e): SOAK_DURATION (1h), SOAK_VUS (10 browsing attendants), SOAK_RATE (20 webhooks per second),
 * plus those of inbox.ts and inbound.ts. Thresholds: as theirs, and p99 < 1 s for every request.
 */
import { browse } from './inbox.ts';
import { customerWrites } from './inbound.ts';
import { num, setting, thresholds } from './lib.ts';

export { browse, customerWrites };

const duration = setting('SOAK_DURATION', '1h');

export const options = {
  scenarios: {
    browsing: { executor: 'constant-vus', exec: 'browse', vus: num('SOAK_VUS', 10), duration, gracefulStop: '10s' },
    writingIn: { executor: 'constant-arrival-rate', exec: 'customerWrites', rate: num('SOAK_RATE', 20), timeUnit: '1s', duration, preAllocatedVUs: 20, maxVUs: 200 },
  },
  thresholds: { ...thresholds({ tickets: 300, search: 500, messages: 300, webhook: 200 }), http_req_duration: ['p(99)<1000'] },
};

export default browse;
