/**
 * The quick-messages plugin's contract (import it as `@atendo/plugin-quick-messages/contract`): the wire
 * schema of a quick message, the media it may carry and the plugin's error codes. Types and `define*`
 * calls only: importing it pulls neither fastify nor knex. Quick messages provides no service and
 * publishes no bus topic.
 */
import { defineErrors, Nullable, Type, UPLOAD_TYPES, type Static } from '@atendo/sdk';

/** Error codes owned by the quick-messages plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_QUICK_MESSAGE_FOUND: { status: 404, message: 'Quick message not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** Media a quick message may carry: images, audio, video, PDF and office documents. */
export const MEDIA_TYPES: readonly string[] = [...UPLOAD_TYPES.images, ...UPLOAD_TYPES.audio, ...UPLOAD_TYPES.video, ...UPLOAD_TYPES.documents];
/** Page size of `GET /quick-messages`. */
export const PAGE_SIZE = 20;

/** A quick message as the API answers it. `mediaPath` is a signed URL (7 days) or null. */
export const QuickMessageSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    userId: Nullable(Type.Integer()),
    shortcode: Type.String(),
    message: Type.String(),
    geral: Type.Boolean(),
    status: Type.Boolean(),
    isMedia: Type.Boolean(),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    mediaType: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type QuickMessage = Static<typeof QuickMessageSchema>;
