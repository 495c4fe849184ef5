import type { AdapterConnection, AdapterContext, ContactProfile, SendCommand, SendResult } from '@atendo/sdk';
import { fetchMessagingProfile, sendMessaging, type MessagingSendProfile } from '@atendo/channel-meta-common';

/** Messenger Send API rules: `POST /{PAGE_ID}/messages`, text up to 2000 characters. */
export const MESSENGER_SEND: MessagingSendProfile = {
  channel: 'facebook',
  path: (conn: AdapterConnection) => `${encodeURIComponent(conn.externalAccountId ?? '')}/messages`,
  maxTextChars: 2000,
};

/** Sends text or one attachment (by our signed URL) to a PSID; resolves with the `message_id`. */
export function sendMessenger(conn: AdapterConnection, cmd: SendCommand, ctx: AdapterContext): Promise<SendResult> {
  return sendMessaging(MESSENGER_SEND, conn, cmd, ctx);
}

/** `GET /{psid}?fields=first_name,last_name,profile_pic` -> name "First Last", picture URL. */
export function fetchMessengerProfile(conn: AdapterConnection, psid: string, ctx: AdapterContext): Promise<ContactProfile> {
  return fetchMessagingProfile('facebook', conn, psid, ctx);
}
