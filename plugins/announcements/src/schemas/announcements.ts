import { BoolLike, IntLike, ListQuery, Nullable, Type, type Static } from '@atendo/sdk';
import { AnnouncementSchema } from '../contract';

/** Fields old clients send that the server sets itself (media through /media-upload, company from the token). */
const Ignored = {
  mediaPath: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  mediaName: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  companyId: Type.Optional(Nullable(Type.Union([Type.Integer(), Type.String({ maxLength: 20 })]))),
};
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Text = Type.String({ minLength: 1, maxLength: 10000 });
const Optional = {
  /** 1 high, 2 medium, 3 low; forms may send it as a digit string. */
  priority: Type.Optional(IntLike({ minimum: 1, maximum: 3 })),
  /** Active flag; forms may send 'true'/'false'. */
  status: Type.Optional(BoolLike()),
  /** The companies it is for (at most 1,000 ids); null or absent on create: every company. */
  targetCompanyIds: Type.Optional(Nullable(Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { maxItems: 1000, uniqueItems: true }))),
};

/** Body of `POST /announcements/`: `title` and `text` required. */
export const CreateBody = Type.Object({ title: Title, text: Text, ...Optional, ...Ignored });
/** Body of `PUT /announcements/:id`: every field optional. */
export const UpdateBody = Type.Object({ title: Type.Optional(Title), text: Type.Optional(Text), ...Optional, ...Ignored });
/** What a create or update body may carry. */
export type AnnouncementBody = Partial<Static<typeof CreateBody>>;

/** Query of `GET /announcements/`. */
export const ListAnnouncementsQuery = Type.Object({
  ...ListQuery.properties,
  /** Super users only: filter by the active flag (others always get the active ones). */
  status: Type.Optional(Type.Boolean()),
});
export type ListAnnouncementsQuery = Static<typeof ListAnnouncementsQuery>;

/** Answer of `GET /announcements/`. */
export const AnnouncementPage = Type.Object({ records: Type.Array(AnnouncementSchema), count: Type.Integer(), hasMore: Type.Boolean() });
