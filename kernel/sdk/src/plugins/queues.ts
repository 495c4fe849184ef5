/** The queues plugin's public contract (`@atendo/plugin-queues/contract`), as `@atendo/sdk/plugins/queues`: see plugins/queues/README.md. */
export * from '@atendo/plugin-queues/contract';
