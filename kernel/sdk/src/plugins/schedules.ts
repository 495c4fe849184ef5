/** The schedules plugin's public contract (`@atendo/plugin-schedules/contract`), as `@atendo/sdk/plugins/schedules`: see plugins/schedules/README.md. */
export * from '@atendo/plugin-schedules/contract';
