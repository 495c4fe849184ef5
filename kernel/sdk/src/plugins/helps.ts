/** The helps plugin's public contract (`@atendo/plugin-helps/contract`), as `@atendo/sdk/plugins/helps`: see plugins/helps/README.md. */
export * from '@atendo/plugin-helps/contract';
