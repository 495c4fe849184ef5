/**
 * The messages-api plugin's contract (`@atendo/plugin-messages-api/contract`): the external send API's
 * wire shapes, error codes and constants (spec 3-campaigns-and-tools.md, "External messages API page",
 * "API send payload", calls "External API"). Types and `define*` calls only.
 */
import { defineErrors, Type, type Static } from '@atendo/sdk';

export const errors = defineErrors({
  ERR_INVALID_API_TOKEN: { status: 401, message: 'Missing or unknown connection token (Authorization: Bearer <token>)' },
  ERR_INVALID_NUMBER: { status: 400, message: 'The number is not a valid phone number' },
  ERR_OPTED_OUT: { status: 409, message: 'The contact opted out of bulk messages: nothing was sent' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** The route, relative to the API host. */
export const SEND_PATH = '/api/messages/send';
/** The multipart field of the file (one file). */
export const MEDIA_FIELD = 'medias';
/** Largest media file, in bytes (16 MiB). */
export const MEDIA_MAX_BYTES = 16 * 1024 * 1024;

/** JSON body of `POST /api/messages/send`. */
export const SendBody = Type.Object(
  {
    /** The recipient: international number with or without `+`, spaces or dashes (Brazil assumed without a country code). */
    number: Type.String({ minLength: 1, maxLength: 50 }),
    /** The text (1..4096 characters; for media: the caption, default the file name). */
    body: Type.String({ maxLength: 4096 }),
    /** A user of the token's company who sends (the ticket is opened with that user). */
    userId: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{0,10}$' }), Type.Null()])),
    /** A queue of the token's company for the ticket. */
    queueId: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{0,10}$' }), Type.Null()])),
    /** Sign the text with the user's name (`*Name:*` on its own line), as attendants do. */
    sendSignature: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')])),
    /**
     * Added (issue 34): the message is one of a bulk send (marketing, a mailing from another system). A
     * contact who opted out (an opt-out word, or an admin at its request) is skipped: 409 ERR_OPTED_OUT,
     * nothing stored or sent. Absent or false: a conversational message, sent whatever the opt-out.
     */
    bulk: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')])),
  },
  { additionalProperties: false },
);
export type SendBody = Static<typeof SendBody>;

/** Answer of a send: the success text of the spec, the stored message's id and the ticket's id. */
export const SendAnswer = Type.Object({
  message: Type.Literal('Mensagem enviada com sucesso'),
  messageId: Type.Integer(),
  ticketId: Type.Integer(),
  /** The number as sent to (digits, country code first). */
  number: Type.String(),
});
export type SendAnswer = Static<typeof SendAnswer>;
