import { BoolLike, Type, type Static } from '@atendo/sdk';
import { NotificationSchema } from '../contract';

/** `GET /notifications` query: 1-based `pageNumber`; `unread=true` for the unread ones only. */
export const ListNotificationsQuery = Type.Object({
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  unread: Type.Optional(BoolLike()),
});
export type ListNotificationsQuery = Static<typeof ListNotificationsQuery>;

/** A page of the caller's notifications and how many are unread. */
export const NotificationPage = Type.Object(
  { records: Type.Array(NotificationSchema), count: Type.Integer(), unread: Type.Integer(), hasMore: Type.Boolean() },
  { additionalProperties: false },
);
