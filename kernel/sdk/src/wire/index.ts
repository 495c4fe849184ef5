/**
 * `@atendo/sdk/wire`: the shapes and pure helpers that travel between the API and the browser, shared by
 * plugins and micro-frontends. Types and dependency-free functions only: nothing here may import fastify,
 * knex, node built-ins or the rest of the SDK, so areas bundle it (rspack) without pulling the server.
 */
export * from './plan';
export * from './tickets';
