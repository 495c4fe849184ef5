import { defineChannelAdapter, type ChannelCapabilities } from '@atendo/sdk';
import { instagramAccountIds, normalizeInstagram } from './normalize';
import { fetchInstagramProfile, sendInstagram } from './send';

export { normalizeInstagram, instagramAccountIds } from './normalize';
export { sendInstagram, fetchInstagramProfile, INSTAGRAM_SEND } from './send';

/**
 * Instagram: text and attachments (image, audio, video, PDF file) out, quoted replies (`reply_to`), per-message
 * read receipts in; 24 h messaging window. Reactions/edits/deletes are received but not sent by this adapter.
 */
export const instagramCapabilities: ChannelCapabilities = {
  contentTypes: ['text', 'image', 'audio', 'video', 'document'],
  reactions: true,
  edits: false,
  deletes: false,
  readReceipts: true,
  quotedReplies: true,
  groups: false,
  messagingWindowHours: 24,
};

/**
 * The Instagram adapter (`instagram`): connection = the Instagram account id (`entry[].id`); `send` posts
 * to `/me/messages`; `fetchProfile` reads the sender's name and username.
 */
export const instagramAdapter = defineChannelAdapter({
  channel: 'instagram',
  capabilities: instagramCapabilities,
  normalize: normalizeInstagram,
  accountIds: instagramAccountIds,
  send: sendInstagram,
  fetchProfile: fetchInstagramProfile,
});

export default instagramAdapter;
