/** The integrations plugin's public contract (`@atendo/plugin-integrations/contract`), as `@atendo/sdk/plugins/integrations`: see plugins/integrations/README.md. */
export * from '@atendo/plugin-integrations/contract';
