import { IntLike, ListQuery, Type, type Static } from '@atendo/sdk';
import { ChatMessageSchema, ChatSchema } from '../contract';

/** `:id` is the chat's integer id or its uuid. */
export const ChatParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36, pattern: '^(\\d{1,10}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$' }) });

const Title = Type.String({ minLength: 1, maxLength: 200 });
/** Participants as the product family's dialog sends them: `{id, name}` (only `id` is read). */
export const Participants = Type.Array(Type.Object({ id: IntLike({ minimum: 1 }), name: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])) }), { maxItems: 500 });
export type Participants = Static<typeof Participants>;

/** Body of `POST /chats`. */
export const CreateBody = Type.Object({ title: Title, users: Participants });
export type CreateBody = Static<typeof CreateBody>;
/** Body of `PUT /chats/:id`. */
export const UpdateBody = Type.Object({ title: Type.Optional(Title), users: Type.Optional(Participants) });
export type UpdateBody = Static<typeof UpdateBody>;
/** Body of `POST /chats/:id/messages`. */
export const MessageBody = Type.Object({ message: Type.String({ minLength: 1, maxLength: 10000 }) });
/** Body of `POST /chats/:id/read`. */
export const ReadBody = Type.Object({ userId: IntLike({ minimum: 1 }) });
/** Query of `GET /chats/:id/messages`. */
export const MessagesQuery = Type.Object({ pageNumber: ListQuery.properties.pageNumber });

/** Answer of `GET /chats`. */
export const ChatPage = Type.Object({ records: Type.Array(ChatSchema), count: Type.Integer(), hasMore: Type.Boolean() });
/** Answer of `GET /chats/:id/messages`. */
export const MessagePage = Type.Object({ records: Type.Array(ChatMessageSchema), count: Type.Integer(), hasMore: Type.Boolean() });
