/**
 * The channel icon of a ticket row (spec 2-tickets.md §2 "Ticket card / row"): WhatsApp (also the
 * WhatsApp API channel, with a small badge), Facebook Messenger and Instagram, in their brand colours.
 * 16 px, drawn inline (no icon font).
 */
const PATHS = {
  whatsapp:
    'M12 2a10 10 0 0 0-8.6 15.1L2 22l5-1.3A10 10 0 1 0 12 2zm5.3 14.1c-.2.6-1.3 1.2-1.8 1.3-.5.1-1 .1-1.7-.1a15 15 0 0 1-1.5-.6 12 12 0 0 1-4.6-4.1c-.6-.8-1-1.8-1-2.8 0-1 .5-1.5.8-1.8.2-.2.5-.3.7-.3h.5c.2 0 .4 0 .6.5l.8 2c.1.2.1.3 0 .5l-.3.5-.4.4c-.1.1-.3.3-.1.6.2.3.7 1.1 1.5 1.8 1 .9 1.8 1.2 2.1 1.3.3.1.4.1.6-.1l.8-1c.2-.2.4-.2.6-.1l1.9.9c.3.1.4.2.5.3.1.2.1.7-.1 1.3z',
  facebook:
    'M12 2C6.5 2 2 6.1 2 11.2c0 2.9 1.4 5.5 3.7 7.2V22l3.4-1.9c.9.3 1.9.4 2.9.4 5.5 0 10-4.1 10-9.2S17.5 2 12 2zm1 12.4l-2.5-2.7-5 2.7 5.5-5.8 2.6 2.7 4.9-2.7-5.5 5.8z',
  instagram:
    'M7.5 2h9A5.5 5.5 0 0 1 22 7.5v9a5.5 5.5 0 0 1-5.5 5.5h-9A5.5 5.5 0 0 1 2 16.5v-9A5.5 5.5 0 0 1 7.5 2zm0 2A3.5 3.5 0 0 0 4 7.5v9A3.5 3.5 0 0 0 7.5 20h9a3.5 3.5 0 0 0 3.5-3.5v-9A3.5 3.5 0 0 0 16.5 4h-9zM12 7a5 5 0 1 1 0 10 5 5 0 0 1 0-10zm0 2a3 3 0 1 0 0 6 3 3 0 0 0 0-6zm5.3-3.3a1 1 0 1 1 0 2 1 1 0 0 1 0-2z',
} as const;

const COLORS: Record<keyof typeof PATHS, string> = { whatsapp: '#25D366', facebook: '#0866FF', instagram: '#E1306C' };

/** The icon of `channel` ('whatsapp', 'whatsappapi', 'facebook', 'instagram'; unknown ones show WhatsApp's). */
export function ChannelIcon({ channel, label, size = 16 }: { channel: string; label: string; size?: number }) {
  const kind: keyof typeof PATHS = channel === 'facebook' ? 'facebook' : channel === 'instagram' ? 'instagram' : 'whatsapp';
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" role="img" aria-label={label} data-testid="channel-icon" data-channel={channel} focusable="false">
      <title>{label}</title>
      <path d={PATHS[kind]} fill={COLORS[kind]} fillRule="evenodd" />
      {channel === 'whatsappapi' ? <circle cx="20" cy="20" r="4" fill="#1565C0" stroke="#fff" strokeWidth="1.5" /> : null}
    </svg>
  );
}
