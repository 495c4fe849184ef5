import { Type, type Static } from '@atendo/sdk';
import { ANSWER_TTL_MS } from './services/answer-cache';

/**
 * The tickets plugin's config (`definePlugin({configSchema})`), read from env vars `TICKETS_<KEY>`; the
 * kernel validates it at boot (coercing strings, filling defaults) and refuses to start on a bad value.
 */
export const TicketsConfig = Type.Object({
  /**
   * `TICKETS_LIST_CACHE_MS`: how long a cached `GET /tickets` / `GET /ticket/kanban` answer may live, in
   * milliseconds (0 to 600,000; default 10,000). 0 stores none (concurrent identical requests still share
   * one computation). Answers are forgotten at once by the company's events; this is a safety net.
   */
  listCacheMs: Type.Integer({ minimum: 0, maximum: 600_000, default: ANSWER_TTL_MS }),
});
export type TicketsConfig = Static<typeof TicketsConfig>;
