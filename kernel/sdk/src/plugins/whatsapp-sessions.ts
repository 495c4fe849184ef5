/** The whatsapp-sessions plugin's public contract (`@atendo/plugin-whatsapp-sessions/contract`), as `@atendo/sdk/plugins/whatsapp-sessions`: see plugins/whatsapp-sessions/README.md. */
export * from '@atendo/plugin-whatsapp-sessions/contract';
