/**
 * The echo-integration plugin's contract: its error codes and the wire shape of a canned reply. Types and
 * `define*` calls only.
 */
import { defineErrors, Type, type Static } from '@atendo/sdk';

// Error codes carry the plugin id, so they never collide with the product's or another plugin's (the
// kernel refuses to boot when two plugins declare one code). Their texts: i18n/errors.json.
export const errors = defineErrors({
  ERR_NO_ECHO_INTEGRATION_REPLY_FOUND: { status: 404, message: 'Canned reply not found' },
  ERR_ECHO_INTEGRATION_KEYWORD_IN_USE: { status: 409, message: 'This keyword already has a reply' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** A canned reply: a customer message equal to `keyword` (case and spaces aside) is answered `reply`. */
export const EchoReplySchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    keyword: Type.String(),
    reply: Type.String(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type EchoReply = Static<typeof EchoReplySchema>;
