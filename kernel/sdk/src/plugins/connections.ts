/** The connections plugin's public contract (`@atendo/plugin-connections/contract`), as `@atendo/sdk/plugins/connections`: see plugins/connections/README.md. */
export * from '@atendo/plugin-connections/contract';
