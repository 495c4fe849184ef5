/** The prompts plugin's public contract (`@atendo/plugin-prompts/contract`), as `@atendo/sdk/plugins/prompts`: see plugins/prompts/README.md. */
export * from '@atendo/plugin-prompts/contract';
