import { ListQuery, Type, type Static } from '@atendo/sdk';
import { QuickMessageSchema } from '../contract';

/** Ids old clients send in queries and bodies; ignored (the caller's company and id are used). */
const IgnoredId = Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 20 }), Type.Null()]));
const Fields = {
  shortcode: Type.String({ minLength: 1, maxLength: 50 }),
  message: Type.Optional(Type.Union([Type.String({ maxLength: 10000 }), Type.Null()])),
  geral: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.Boolean()),
  /** Sent by old clients before the media upload; ignored (media is set through /media-upload). */
  isMedia: Type.Optional(Type.Boolean()),
  mediaPath: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  mediaName: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  companyId: IgnoredId,
  userId: IgnoredId,
};

/** Body of `POST /quick-messages`: `shortcode` required. */
export const CreateBody = Type.Object(Fields);
/** Body of `PUT /quick-messages/:id`: every field optional. */
export const UpdateBody = Type.Partial(Type.Object(Fields));
/** What a create or update body may carry. */
export type QuickMessageBody = Partial<Static<typeof CreateBody>>;

/** Query of `GET /quick-messages` (`companyId`/`userId` of old clients are ignored). */
export const ListQuickQuery = Type.Object({ ...ListQuery.properties, companyId: Type.Optional(Type.String({ maxLength: 20 })), userId: Type.Optional(Type.String({ maxLength: 20 })) });
export type ListQuickQuery = Static<typeof ListQuickQuery>;
/** Query of `GET /quick-messages/list` (ignored ids only). */
export const ShortcutQuery = Type.Object({ companyId: Type.Optional(Type.String({ maxLength: 20 })), userId: Type.Optional(Type.String({ maxLength: 20 })) });
/** Answer of `GET /quick-messages`. */
export const QuickMessagePage = Type.Object({ records: Type.Array(QuickMessageSchema), count: Type.Integer(), hasMore: Type.Boolean() });
