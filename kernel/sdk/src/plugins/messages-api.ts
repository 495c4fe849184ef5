/** The messages-api plugin's public contract (`@atendo/plugin-messages-api/contract`), as `@atendo/sdk/plugins/messages-api`: see plugins/messages-api/README.md. */
export * from '@atendo/plugin-messages-api/contract';
