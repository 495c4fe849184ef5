/**
 * Typed contracts between plugins: service refs, bus topics and extension points.
 *
 * A plugin publishes its contract from one file, `src/contract.ts`, importable without pulling fastify or
 * knex (types and `define*` calls only). Other plugins import that file (through the package's
 * `@atendo/plugin-<id>/contract` entry) and never the provider's `src/` internals.
 *
 * - `defineService<T>(id)`: a typed handle for a service. The provider calls `ctx.services.provide(ref, impl)`;
 *   a consumer declares the provider in `dependsOn` (or `optionalDependsOn`) and calls `ctx.services.get(ref)`.
 *   The loader refuses a `get` of a service whose provider the caller did not declare.
 * - `defineTopic<Payload>(name)`: a bus topic with its payload type, declared once next to its owner and
 *   listed in the owner's `definePlugin({topics})`; the loader refuses two owners for one name.
 * - `defineExtensionPoint<T>(id)`: a place where other plugins contribute implementations (counters,
 *   decorators, conversation handlers…). The owner `declare`s it and reads the contributions; contributors
 *   `contribute` after declaring the owner in `dependsOn`/`optionalDependsOn`.
 */

/** A typed service handle. `T` is the service interface. */
export interface ServiceRef<T> {
  readonly kind: 'service';
  /** Service id, conventionally the providing plugin's id (`queues`, `tickets`). */
  readonly id: string;
  /** Phantom field carrying the type; never set. */
  readonly __type?: T;
}

/** Declares a typed service handle. Call once, in the provider's `contract.ts`. */
export function defineService<T>(id: string): ServiceRef<T> {
  assertName('service', id, /^[a-z][a-z0-9-]*$/);
  return Object.freeze({ kind: 'service', id }) as ServiceRef<T>;
}

/** A bus topic and the payload type of its messages. */
export interface Topic<Payload> {
  readonly kind: 'topic';
  /** Dot-separated name: events `<aggregate>.<past tense>` (`ticket.closed`), commands `<aggregate>.<verb>`. */
  readonly name: string;
  /** One line on what a message on this topic means (shown in boot errors and docs). */
  readonly description?: string;
  readonly __payload?: Payload;
}

/** Declares a typed topic. Call once, next to the owner (the SDK for channel topics, else a plugin contract). */
export function defineTopic<Payload>(name: string, description?: string): Topic<Payload> {
  assertName('topic', name, /^[a-z][a-zA-Z0-9-]*(\.[a-z][a-zA-Z0-9-]*)+$/);
  return Object.freeze({ kind: 'topic', name, description }) as Topic<Payload>;
}

/** The payload type of a topic. */
export type PayloadOf<T> = T extends Topic<infer P> ? P : never;

/** An extension point: a typed list of contributions owned by one plugin. */
export interface ExtensionPoint<T> {
  readonly kind: 'extension-point';
  /** `<owner plugin id>.<name>`, e.g. `tags.counters`, `tickets.conversation-handlers`. */
  readonly id: string;
  readonly __type?: T;
}

/** Declares an extension point. Call once, in the owner's `contract.ts`. */
export function defineExtensionPoint<T>(id: string): ExtensionPoint<T> {
  assertName('extension point', id, /^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/);
  return Object.freeze({ kind: 'extension-point', id }) as ExtensionPoint<T>;
}

/** The contributions made to a declared extension point, as the owner sees them. */
export interface Contributions<T> {
  /** Every contribution so far, in registration order (contributors register after the owner). */
  all(): readonly T[];
  /** Called for each contribution, including those already made. Returns an unsubscribe function. */
  onContribute(fn: (item: T, contributor: string) => void): () => void;
}

/** Services of the plugin's declared dependencies, typed by their refs. */
export interface ServiceRegistry {
  /** Offers a service; each ref is provided once (by the plugin that owns its contract). */
  provide<T>(ref: ServiceRef<T>, service: T): void;
  /**
   * The service behind `ref`. Throws when its provider is not in this plugin's `dependsOn` /
   * `optionalDependsOn`, or when it is not provided (the provider is not loaded).
   */
  get<T>(ref: ServiceRef<T>): T;
  /** True when the service is provided and this plugin may use it (an optional dependency that is loaded). */
  has(ref: ServiceRef<unknown>): boolean;
}

/** Extension points the plugin owns or contributes to. */
export interface ExtensionRegistry {
  /** Owner: declares a point (once, in `register`) and returns its live contributions. */
  declare<T>(point: ExtensionPoint<T>): Contributions<T>;
  /** Contributor: adds an implementation to a point owned by a declared dependency. */
  contribute<T>(point: ExtensionPoint<T>, item: T): void;
  /** True when the point is declared and this plugin may contribute to it. */
  has(point: ExtensionPoint<unknown>): boolean;
}

function assertName(what: string, name: string, re: RegExp): void {
  if (typeof name !== 'string' || !re.test(name)) throw new Error(`invalid ${what} name: ${String(name)}`);
}
