import { createWhatsappSessionsPlugin } from './plugin';

/** The whatsapp-sessions plugin (WhatsApp Web sessions through Baileys); see ./plugin.ts and README.md. */
export default createWhatsappSessionsPlugin();
