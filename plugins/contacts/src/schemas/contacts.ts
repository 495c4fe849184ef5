import { Type, type Static } from '@atendo/sdk';
import { CONTACT_CHANNELS, ContactSchema, ContactTagSchema } from '../contract';

/** Page size of `GET /contacts` (wire-shapes "GET /contacts"). */
export const CONTACTS_PAGE_SIZE = 100;
/** Most rows `GET /contacts/list` answers. */
export const CONTACTS_LIST_MAX = 1000;
/** Most extra-info fields a contact keeps. */
export const MAX_EXTRA_INFO = 50;

const EMAIL_PATTERN = '^$|^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$';

export const ChannelSchema = Type.Union(CONTACT_CHANNELS.map((c) => Type.Literal(c)));

/** A row of `GET /contacts`: the contact, its tags and what decorators add (`tickets` from the tickets plugin). */
export const ContactListItemSchema = Type.Object(
  {
    ...ContactSchema.properties,
    tags: Type.Array(ContactTagSchema),
    tickets: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

export const ContactLightSchema = Type.Object(
  { id: Type.Integer(), name: Type.String(), number: Type.String(), channel: Type.String(), isGroup: Type.Boolean() },
  { additionalProperties: false },
);

/**
 * Query of `GET /contacts`: `searchParam` (name contains, case-insensitive, or number contains),
 * `pageNumber` (1-based, 100 a page), `contactTag` (JSON number[]: contacts with any of these tags),
 * `isGroup` ('true'|'false'), `channel`. `companyId` from old clients is ignored.
 */
export const ContactsPageQuery = Type.Object({
  searchParam: Type.Optional(Type.String({ maxLength: 200 })),
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  contactTag: Type.Optional(Type.String({ maxLength: 2000 })),
  isGroup: Type.Optional(Type.String({ pattern: '^(true|false)$' })),
  channel: Type.Optional(ChannelSchema),
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ContactsPageQuery = Static<typeof ContactsPageQuery>;

/** Query of `GET /contacts/list`. */
export const ContactsListQuery = Type.Object({
  searchParam: Type.Optional(Type.String({ maxLength: 200 })),
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ContactsListQuery = Static<typeof ContactsListQuery>;

const ExtraInfoItem = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.String({ maxLength: 1000 }) },
  // Old clients send the stored rows back (id, contactId, timestamps): extra keys are dropped.
  { additionalProperties: false },
);

const contactFields = {
  name: Type.String({ minLength: 2, maxLength: 50 }),
  /** Digits, optionally with spaces, dashes, parentheses, dots and a leading '+'; 8 to 50 characters. */
  number: Type.String({ minLength: 8, maxLength: 50 }),
  email: Type.Union([Type.String({ maxLength: 255, pattern: EMAIL_PATTERN }), Type.Null()]),
  disableBot: Type.Boolean(),
  acceptAudioMessage: Type.Boolean(),
  channel: ChannelSchema,
  extraInfo: Type.Array(ExtraInfoItem, { maxItems: MAX_EXTRA_INFO }),
  /** `""`/null (not accepted) or an ISO date-time. */
  lgpdAcceptedAt: Type.Union([Type.String({ maxLength: 40 }), Type.Null()]),
};

/** Body of `POST /contacts`. */
export const CreateContactBody = Type.Object(
  {
    name: contactFields.name,
    number: contactFields.number,
    email: Type.Optional(contactFields.email),
    disableBot: Type.Optional(contactFields.disableBot),
    acceptAudioMessage: Type.Optional(contactFields.acceptAudioMessage),
    channel: Type.Optional(contactFields.channel),
    extraInfo: Type.Optional(contactFields.extraInfo),
    lgpdAcceptedAt: Type.Optional(contactFields.lgpdAcceptedAt),
  },
  { additionalProperties: false },
);
export type CreateContactBody = Static<typeof CreateContactBody>;

/** Body of `PUT /contacts/:id`: every field optional; `extraInfo`, when given, replaces the list. */
export const UpdateContactBody = Type.Partial(CreateContactBody, { additionalProperties: false });
export type UpdateContactBody = Static<typeof UpdateContactBody>;

/** Body of `POST /contactsImport` (one sheet row, as the old client posts them). */
export const ImportRowBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
    number: Type.String({ minLength: 1, maxLength: 50 }),
    email: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ImportRowBody = Static<typeof ImportRowBody>;

export const BlockBody = Type.Object({ active: Type.Boolean() }, { additionalProperties: false });
export type BlockBody = Static<typeof BlockBody>;

/** Body of `POST /tags/sync`: the contact's complete tag list, as `[{id}]` or ids. */
export const SyncTagsBody = Type.Object(
  {
    contactId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
    tags: Type.Array(
      Type.Union([
        Type.Integer({ minimum: 1, maximum: 2147483647 }),
        Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) }, { additionalProperties: true }),
      ]),
      { maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
export type SyncTagsBody = Static<typeof SyncTagsBody>;

export const ContactIdParams = Type.Object({ contactId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export type ContactIdParams = Static<typeof ContactIdParams>;

export const NumberParams = Type.Object({ number: Type.String({ minLength: 1, maxLength: 60 }) });
export type NumberParams = Static<typeof NumberParams>;

export const JobParams = Type.Object({ jobId: Type.String({ pattern: '^[0-9a-f-]{36}$' }) });
export type JobParams = Static<typeof JobParams>;

export const ImportProgressSchema = Type.Object(
  {
    jobId: Type.String(),
    status: Type.String(),
    processed: Type.Integer(),
    total: Type.Integer(),
    created: Type.Integer(),
    updated: Type.Integer(),
    errors: Type.Array(Type.Object({ row: Type.Integer(), error: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

/** Email check shared by the import (the API bodies use the schema pattern). */
export const EMAIL_RE = new RegExp(EMAIL_PATTERN);

// ---------------------------------------------------------------------------------------------------
// Merging duplicates (issue 33 item 5)

const ContactId = Type.Integer({ minimum: 1, maximum: 2147483647 });

/** `POST /contacts/merge/preview`: the contact kept (`targetId`) and the duplicates folded into it. */
export const MergePreviewBody = Type.Object(
  { targetId: ContactId, sourceIds: Type.Array(ContactId, { minItems: 1, maxItems: 20 }) },
  { additionalProperties: false },
);

/** `POST /contacts/merge`: as the preview, with the preview's `previewToken`. */
export const MergeBody = Type.Object(
  { targetId: ContactId, sourceIds: Type.Array(ContactId, { minItems: 1, maxItems: 20 }), previewToken: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

/** What moves, by kind (`tags`, `extraInfo`, `aliases`, and the contributing plugins' keys: `tickets`, `messages`, ...). */
export const MergeCountsSchema = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));

/** The preview's answer. */
export const MergePreviewSchema = Type.Object(
  {
    target: ContactSchema,
    sources: Type.Array(ContactSchema),
    result: ContactSchema,
    counts: MergeCountsSchema,
    previewToken: Type.String(),
  },
  { additionalProperties: false },
);

/** `GET /contacts/duplicates`: groups of contacts that look like one person. */
export const DuplicatesSchema = Type.Object(
  {
    groups: Type.Array(
      Type.Object(
        { reasons: Type.Array(Type.Union([Type.Literal('ninthDigit'), Type.Literal('lid')])), contacts: Type.Array(ContactSchema) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
