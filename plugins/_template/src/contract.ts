/**
 * The my-feature plugin's contract (import it as `@atendo/plugin-my-feature/contract`): what other plugins
 * and areas may rely on. Types and `define*` calls only: importing it pulls neither fastify nor knex
 * (`import type` is fine), so a web area can import it too.
 */
import { defineErrors, defineService, defineTopic, Type, type Static } from '@atendo/sdk';

// ---- error codes: owned here, merged into the catalogue at boot (a code declared twice refuses boot)

export const errors = defineErrors({
  ERR_NO_MY_FEATURE_ENTRY_FOUND: { status: 404, message: 'Entry not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---- wire shapes

/** An entry as every answer shows it. Timestamps are ISO 8601 strings. */
export const MyFeatureEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    title: Type.String(),
    /** The user who created it (null once that user is deleted). */
    createdBy: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type MyFeatureEntry = Static<typeof MyFeatureEntrySchema>;

/** The socket.io event of the company's entries: `{action: 'create', record}` / `{action: 'delete', id}`. */
export const myFeatureEvent = (companyId: number) => `company-${companyId}-my-feature`;

// ---- bus topics this plugin owns (listed in definePlugin({topics}))

/** An entry was created (published after commit). */
export const entryCreated = defineTopic<{ companyId: number; entryId: number }>('my-feature.entry-created', 'An entry was created');

// ---- the service other plugins use (they declare `dependsOn: ['my-feature']`)

/** Every method is scoped to `companyId`: ids of another company are unknown. */
export interface MyFeatureService {
  /** One entry, or undefined. */
  get(companyId: number, id: number): Promise<MyFeatureEntry | undefined>;
  /** How many entries the company has. */
  count(companyId: number): Promise<number>;
}

/** The typed handle: `ctx.services.get(myFeatureService)`. */
export const myFeatureService = defineService<MyFeatureService>('my-feature');
