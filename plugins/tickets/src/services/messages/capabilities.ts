import type { ChannelCapabilities } from '@atendo/sdk';

/**
 * What each built-in channel's provider lets us do to a message already sent (the adapters' `capabilities`:
 * channels/<name>/src/index.ts). Baileys edits and deletes for everyone; the WhatsApp Cloud API, Messenger and
 * Instagram document neither for a business's messages.
 */
const CHANNEL_EDITS: Record<string, Pick<ChannelCapabilities, 'edits' | 'deletes'>> = {
  whatsapp: { edits: true, deletes: true },
  whatsappapi: { edits: false, deletes: false },
  facebook: { edits: false, deletes: false },
  instagram: { edits: false, deletes: false },
};

/** True when the provider of `channel` can `what` (edit / delete) a sent message; false for an unknown channel. */
export function channelCan(channel: string, what: 'edits' | 'deletes'): boolean {
  return CHANNEL_EDITS[channel]?.[what] ?? false;
}
