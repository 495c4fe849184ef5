/** The quick-messages plugin's public contract (`@atendo/plugin-quick-messages/contract`), as `@atendo/sdk/plugins/quick-messages`: see plugins/quick-messages/README.md. */
export * from '@atendo/plugin-quick-messages/contract';
