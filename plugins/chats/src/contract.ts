/**
 * The chats plugin's contract (import it as `@atendo/plugin-chats/contract`): the wire schemas of a chat,
 * a participant and a message, the plugin's limits and error codes. Types and `define*` calls only:
 * importing it pulls neither fastify nor knex. Chats provides no service and publishes no bus topic.
 */
import { defineErrors, Nullable, Type, type Static } from '@atendo/sdk';

/** Error codes owned by the chats plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_CHAT_FOUND: { status: 404, message: 'Chat not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** Chats and messages per page. */
export const PAGE_SIZE = 20;
/** `lastMessage` keeps this many characters of the newest message (a preview for lists). */
export const LAST_MESSAGE_MAX = 500;
/** Messages one user may post per minute (all chats together). */
export const MESSAGE_RATE_LIMIT = 120;

const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false });

/** A participant of a chat with the number of messages they have not read yet. */
export const ChatUserSchema = Type.Object(
  { id: Type.Integer(), chatId: Type.Integer(), userId: Type.Integer(), unreads: Type.Integer(), user: Nullable(UserRef) },
  { additionalProperties: false },
);

/** A chat as the API answers it (spec 3-campaigns-and-tools.md §3 "Chat"). */
export const ChatSchema = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    title: Type.String(),
    ownerId: Nullable(Type.Integer()),
    owner: Nullable(UserRef),
    lastMessage: Type.String(),
    companyId: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    users: Type.Array(ChatUserSchema),
  },
  { additionalProperties: false },
);
export type Chat = Static<typeof ChatSchema>;

/** A chat message as the API answers it (spec §3 "Chat message"). */
export const ChatMessageSchema = Type.Object(
  {
    id: Type.Integer(),
    chatId: Type.Integer(),
    senderId: Nullable(Type.Integer()),
    sender: Nullable(UserRef),
    message: Type.String(),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type ChatMessage = Static<typeof ChatMessageSchema>;
