import type { Envelope, NormalizeOptions } from '@atendo/sdk';
import { messagingAccountIds, normalizeMessaging, type Resolve } from '@atendo/channel-meta-common';

/**
 * Instagram messaging webhooks (`object: "instagram"`) to envelopes; the connection is found by the
 * Instagram professional account id (`entry[].id`, `1784…`). Same grammar as Messenger (see
 * `normalizeMessaging`), with Instagram's differences handled there: echoes arrive on `messages` with
 * `is_echo`, read receipts name one message (`read.mid`), unsends are `message.is_deleted`, edits may carry
 * no text, attachments include `story_mention`, `share`, `ig_post`, `ig_reel`, `unsupported_type`. Pure.
 */
export function normalizeInstagram(raw: unknown, resolve: Resolve, opts?: NormalizeOptions): Envelope[] {
  return normalizeMessaging('instagram', raw, resolve, opts);
}

/** The Instagram account ids a body addresses. */
export const instagramAccountIds = messagingAccountIds;
