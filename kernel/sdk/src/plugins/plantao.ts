/** The plantao plugin's public contract (`@atendo/plugin-plantao/contract`), as `@atendo/sdk/plugins/plantao`: see plugins/plantao/README.md. */
export * from '@atendo/plugin-plantao/contract';
