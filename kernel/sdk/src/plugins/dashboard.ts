/** The dashboard plugin's public contract (`@atendo/plugin-dashboard/contract`), as `@atendo/sdk/plugins/dashboard`: see plugins/dashboard/README.md. */
export * from '@atendo/plugin-dashboard/contract';
