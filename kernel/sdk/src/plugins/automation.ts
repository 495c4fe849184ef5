/** The automation plugin's public contract (`@atendo/plugin-automation/contract`), as `@atendo/sdk/plugins/automation`: see plugins/automation/README.md. */
export * from '@atendo/plugin-automation/contract';
