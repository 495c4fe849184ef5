/** The files plugin's public contract (`@atendo/plugin-files/contract`), as `@atendo/sdk/plugins/files`: see plugins/files/README.md. */
export * from '@atendo/plugin-files/contract';
