import type { Envelope, NormalizeOptions } from '@atendo/sdk';
import { messagingAccountIds, normalizeMessaging, type Resolve } from '@atendo/channel-meta-common';

/**
 * Messenger webhooks (`object: "page"`) to envelopes; the connection is found by the page id (`entry[].id`).
 * The event grammar (messages, echoes, postbacks, reactions, edits, delivery/read watermarks) is shared with
 * Instagram: see `normalizeMessaging` in @atendo/channel-meta-common. Pure; never throws.
 */
export function normalizeMessenger(raw: unknown, resolve: Resolve, opts?: NormalizeOptions): Envelope[] {
  return normalizeMessaging('facebook', raw, resolve, opts);
}

/** The page ids a body addresses. */
export const messengerAccountIds = messagingAccountIds;
