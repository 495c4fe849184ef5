/** The tags plugin's public contract (`@atendo/plugin-tags/contract`), as `@atendo/sdk/plugins/tags`: see plugins/tags/README.md. */
export * from '@atendo/plugin-tags/contract';
