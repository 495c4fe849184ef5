/** The announcements plugin's public contract (`@atendo/plugin-announcements/contract`), as `@atendo/sdk/plugins/announcements`: see plugins/announcements/README.md. */
export * from '@atendo/plugin-announcements/contract';
