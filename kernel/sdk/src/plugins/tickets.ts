/** The tickets plugin's public contract (`@atendo/plugin-tickets/contract`), as `@atendo/sdk/plugins/tickets`: see plugins/tickets/README.md. */
export * from '@atendo/plugin-tickets/contract';
