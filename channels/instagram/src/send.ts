import type { AdapterConnection, AdapterContext, ContactProfile, SendCommand, SendResult } from '@atendo/sdk';
import { fetchMessagingProfile, sendMessaging, type MessagingSendProfile } from '@atendo/channel-meta-common';

/**
 * Instagram Send API rules: `POST /me/messages` (valid for both flavours: a Page token on graph.facebook.com
 * resolves `me` to the page linked to the account; an Instagram-Login token on graph.instagram.com to the
 * account itself), text up to 1000 UTF-8 bytes.
 */
export const INSTAGRAM_SEND: MessagingSendProfile = {
  channel: 'instagram',
  path: () => 'me/messages',
  maxTextBytes: 1000,
  reactions: true,
};

/** Sends text or one attachment (by our signed URL) to an IGSID; resolves with the `message_id` (or `id`). */
export function sendInstagram(conn: AdapterConnection, cmd: SendCommand, ctx: AdapterContext): Promise<SendResult> {
  return sendMessaging(INSTAGRAM_SEND, conn, cmd, ctx);
}

/** `GET /{igsid}?fields=name,username,profile_pic` -> name (else username), username, picture URL. */
export function fetchInstagramProfile(conn: AdapterConnection, igsid: string, ctx: AdapterContext): Promise<ContactProfile> {
  return fetchMessagingProfile('instagram', conn, igsid, ctx);
}
