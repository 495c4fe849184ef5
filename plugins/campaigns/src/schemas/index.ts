import { BoolLike, IntLike, ListQuery, Nullable, Type, type Static } from '@atendo/sdk';
import { CampaignSchema, ContactListItemSchema, ContactListSchema, MESSAGE_VARIANTS } from '../contract';

/** Fields old clients send that the server sets itself (company from the token, media through /media-upload, status by the machine). */
const Ignored = {
  companyId: Type.Optional(Nullable(Type.Union([Type.Integer(), Type.String({ maxLength: 20 })]))),
  id: Type.Optional(Nullable(Type.Union([Type.Integer(), Type.String({ maxLength: 20 })]))),
};

// ---------------------------------------------------------------------------------------------------
// Contact lists

/** Body of `POST /contact-lists` and `PUT /contact-lists/{id}` (name 2..50, checked after trimming). */
export const ContactListBody = Type.Object({ name: Type.String({ maxLength: 200 }), ...Ignored });
export type ContactListBody = Static<typeof ContactListBody>;

/** Answer of `GET /contact-lists`: `count` is the number of matching lists (an integer, not the family's array). */
export const ContactListPage = Type.Object({ records: Type.Array(ContactListSchema), count: Type.Integer(), hasMore: Type.Boolean() });

// ---------------------------------------------------------------------------------------------------
// Items

/** Query of `GET /contact-list-items`. */
export const ItemsQuery = Type.Object({ ...ListQuery.properties, contactListId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export type ItemsQuery = Static<typeof ItemsQuery>;

const ItemFields = {
  name: Type.String({ maxLength: 200 }),
  number: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  email: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  isWhatsappValid: Type.Optional(Nullable(Type.Boolean())),
  /** Issue 34: the legal basis (`LEGAL_BASES` of the contract); '' or null: none recorded. */
  legalBasis: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  /** Issue 34: when the person consented: an ISO 8601 date (`YYYY-MM-DD`, midnight UTC) or date-time; '' or null: none recorded; not in the future. */
  consentAt: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
};
/** Body of `POST /contact-list-items`. */
export const CreateItemBody = Type.Object({ ...ItemFields, contactListId: IntLike({ minimum: 1 }), ...Ignored });
export type CreateItemBody = Static<typeof CreateItemBody>;
/** Body of `PUT /contact-list-items/{id}` (the same fields, every one optional). */
export const UpdateItemBody = Type.Object({ ...Type.Partial(Type.Object(ItemFields)).properties, contactListId: Type.Optional(IntLike({ minimum: 1 })), ...Ignored });
export type UpdateItemBody = Static<typeof UpdateItemBody>;

/** Answer of `GET /contact-list-items`. */
export const ItemPage = Type.Object({ contacts: Type.Array(ContactListItemSchema), count: Type.Integer(), hasMore: Type.Boolean() });

// ---------------------------------------------------------------------------------------------------
// Campaigns

const Text = Type.Optional(Nullable(Type.String({ maxLength: 4096 })));
const messageFields = Object.fromEntries(Array.from({ length: MESSAGE_VARIANTS }, (_, i) => [[`message${i + 1}`, Text], [`confirmationMessage${i + 1}`, Text]]).flat()) as Record<
  `message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`,
  typeof Text
>;
const OptionalId = Type.Optional(Nullable(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.String({ maxLength: 12 })])));
const CampaignFields = {
  ...messageFields,
  confirmation: Type.Optional(BoolLike()),
  /** `YYYY-MM-DD HH:mm:ss` (company time), an ISO-8601 time with offset, '' or null (no schedule). */
  scheduledAt: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  contactListId: OptionalId,
  tagListId: OptionalId,
  /** A connection id, ids joined by commas (`"3,5"`), an array of ids, '' or null. */
  whatsappId: Type.Optional(Nullable(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.String({ maxLength: 250 }), Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { maxItems: 20 })]))),
  // Set by the server: ignored when sent.
  status: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
  mediaPath: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  mediaName: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  completedAt: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  userId: Type.Optional(Nullable(Type.Union([Type.Integer(), Type.String({ maxLength: 20 })]))),
  ...Ignored,
};
/** Body of `POST /campaigns`. */
export const CreateCampaignBody = Type.Object({ name: Type.String({ maxLength: 200 }), ...CampaignFields });
export type CreateCampaignBody = Static<typeof CreateCampaignBody>;
/** Body of `PUT /campaigns/{id}`. */
export const UpdateCampaignBody = Type.Object({ name: Type.Optional(Type.String({ maxLength: 200 })), ...CampaignFields });
export type UpdateCampaignBody = Static<typeof UpdateCampaignBody>;

/**
 * Query of `GET /campaigns/{id}`: `shipping=true` adds the recipients (`shipping`) and the list's number
 * checks (`contactList.contacts`); absent, as the product family's report calls it, the same (it reads
 * both); `shipping=false` leaves them out (Atendo's screens, which read `counts`).
 */
export const CampaignGetQuery = Type.Object({ shipping: Type.Optional(Type.Boolean()) });

/** Answer of `GET /campaigns`. */
export const CampaignPage = Type.Object({ records: Type.Array(CampaignSchema), count: Type.Integer(), hasMore: Type.Boolean() });

// ---------------------------------------------------------------------------------------------------
// Settings

const Seconds = Type.Optional(IntLike({ minimum: 0, maximum: 3600 }));
/** Body of `POST /campaign-settings` (the product family's client sends `{settings: {...}}`). */
export const SettingsBody = Type.Object({
  settings: Type.Object(
    {
      messageInterval: Seconds,
      longerIntervalAfter: Type.Optional(IntLike({ minimum: 0, maximum: 1000 })),
      greaterInterval: Seconds,
      variables: Type.Optional(Type.Array(Type.Object({ key: Type.String({ maxLength: 100 }), value: Nullable(Type.String({ maxLength: 1000 })) }), { maxItems: 100 })),
    },
    { additionalProperties: false },
  ),
});
export type SettingsBody = Static<typeof SettingsBody>;

export const MessageAnswer = Type.Object({ message: Type.String() });
