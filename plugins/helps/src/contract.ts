/**
 * The helps plugin's contract (import it as `@atendo/plugin-helps/contract`): the wire schema of a help
 * entry and the plugin's error codes. Types and `define*` calls only: importing it pulls neither fastify
 * nor knex. Helps provides no service and publishes no bus topic.
 */
import { defineErrors, Type, type Static } from '@atendo/sdk';

/** Error codes owned by the helps plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_HELP_FOUND: { status: 404, message: 'Help entry not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** A help entry as the API answers it. Help entries are platform-wide: there is no `companyId`. */
export const HelpSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    video: Type.String(),
    description: Type.String(),
    link: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Help = Static<typeof HelpSchema>;
