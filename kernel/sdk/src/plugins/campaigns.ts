/** The campaigns plugin's public contract (`@atendo/plugin-campaigns/contract`), as `@atendo/sdk/plugins/campaigns`: see plugins/campaigns/README.md. */
export * from '@atendo/plugin-campaigns/contract';
