import type { Channel, ChannelAdapter } from '@atendo/sdk';
import { whatsappApiAdapter } from '@atendo/channel-whatsappapi';
import { facebookAdapter } from '@atendo/channel-facebook';
import { instagramAdapter } from '@atendo/channel-instagram';

/**
 * The channel adapters by channel. The Meta adapters are registered here; the Baileys adapter adds
 * `whatsapp` with `registerChannelAdapter` (its own consumer sends its commands: the outbound consumer of
 * this plugin only handles `META_OUTBOUND_CHANNELS`).
 */
export const channelAdapters = new Map<Channel, ChannelAdapter>([
  ['whatsappapi', whatsappApiAdapter],
  ['facebook', facebookAdapter],
  ['instagram', instagramAdapter],
]);

/** Adds (or replaces) the adapter of `adapter.channel`. */
export function registerChannelAdapter(adapter: ChannelAdapter): void {
  channelAdapters.set(adapter.channel, adapter);
}

/** Webhook `object` -> channel. */
export const META_OBJECT_CHANNEL: Readonly<Record<string, Channel>> = {
  page: 'facebook',
  instagram: 'instagram',
  whatsapp_business_account: 'whatsappapi',
};

/** Channels whose `message.send` commands this plugin's outbound consumer sends. */
export const META_OUTBOUND_CHANNELS: readonly Channel[] = ['whatsappapi', 'facebook', 'instagram'];
