/** The compliance plugin's public contract (`@atendo/plugin-compliance/contract`), as `@atendo/sdk/plugins/compliance`: see plugins/compliance/README.md. */
export * from '@atendo/plugin-compliance/contract';
