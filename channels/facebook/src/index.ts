import { defineChannelAdapter, type ChannelCapabilities } from '@atendo/sdk';
import { messengerAccountIds, normalizeMessenger } from './normalize';
import { fetchMessengerProfile, sendMessenger } from './send';

export { normalizeMessenger, messengerAccountIds } from './normalize';
export { sendMessenger, fetchMessengerProfile, MESSENGER_SEND } from './send';

/**
 * Messenger: text and attachments (image, audio, video, file) out, quoted replies (`reply_to`), delivery and
 * read watermarks in; standard 24 h messaging window (`messaging_type: RESPONSE`). Reactions, edits and
 * deletes are not sent (no `SendCommand` operation; Messenger has no unsend webhook either).
 */
export const messengerCapabilities: ChannelCapabilities = {
  contentTypes: ['text', 'image', 'audio', 'video', 'document'],
  reactions: false,
  edits: false,
  deletes: false,
  readReceipts: true,
  quotedReplies: true,
  groups: false,
  messagingWindowHours: 24,
};

/**
 * The Messenger adapter (`facebook`): connection = the page id (`entry[].id`); `send` posts to
 * `/{PAGE_ID}/messages`; `fetchProfile` reads the sender's name (webhooks carry none).
 */
export const facebookAdapter = defineChannelAdapter({
  channel: 'facebook',
  capabilities: messengerCapabilities,
  normalize: normalizeMessenger,
  accountIds: messengerAccountIds,
  send: sendMessenger,
  fetchProfile: fetchMessengerProfile,
});

export default facebookAdapter;
