/** The contacts plugin's public contract (`@atendo/plugin-contacts/contract`), as `@atendo/sdk/plugins/contacts`: see plugins/contacts/README.md. */
export * from '@atendo/plugin-contacts/contract';
