import { defineChannelAdapter, type ChannelCapabilities } from '@atendo/sdk';
import { normalizeWhatsapp, whatsappAccountIds } from './normalize';
import { sendWhatsapp } from './send';

export { normalizeWhatsapp, whatsappAccountIds, toVcard } from './normalize';
export { sendWhatsapp, whatsappMediaKind, WHATSAPP_MAX_TEXT, WHATSAPP_MAX_CAPTION } from './send';

/**
 * What the WhatsApp Cloud channel does here: every content kind inbound; outbound text and media (send
 * implements text, image, audio, video, document, sticker); quoted replies; read receipts (status webhooks);
 * free-form messages only within the 24 h customer-service window (templates outside it are not sent by
 * this adapter). Reactions, edits and deletes arrive inbound but cannot be sent (`SendCommand` has no such
 * operation yet), so they are off.
 */
export const whatsappCapabilities: ChannelCapabilities = {
  contentTypes: ['text', 'image', 'audio', 'video', 'document', 'sticker'],
  reactions: true,
  edits: false,
  deletes: false,
  readReceipts: true,
  quotedReplies: true,
  groups: false,
  messagingWindowHours: 24,
};

/**
 * The WhatsApp Cloud API adapter (`whatsappapi`): `normalize` turns `whatsapp_business_account` webhook
 * bodies into envelopes (connection = `metadata.phone_number_id`), `send` posts to
 * `/{phone-number-id}/messages` and resolves with the wamid.
 */
export const whatsappApiAdapter = defineChannelAdapter({
  channel: 'whatsappapi',
  capabilities: whatsappCapabilities,
  normalize: normalizeWhatsapp,
  accountIds: whatsappAccountIds,
  send: sendWhatsapp,
});

export default whatsappApiAdapter;
