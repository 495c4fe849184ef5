/** The chats plugin's public contract (`@atendo/plugin-chats/contract`), as `@atendo/sdk/plugins/chats`: see plugins/chats/README.md. */
export * from '@atendo/plugin-chats/contract';
