/**
 * The contacts plugin's contract (import it as `@atendo/plugin-contacts/contract`): the `contacts` service
 * ref and interface, the `contacts.decorators` extension point, the wire types and schemas of a contact,
 * and the plugin's error codes. Types and `define*` calls only: importing it pulls neither fastify nor knex.
 */
import type { Knex } from 'knex';
import { defineErrors, defineExtensionPoint, defineService, Nullable, Type, type AuthUser } from '@atendo/sdk';
import { TagSchema, type Tag } from '@atendo/plugin-tags/contract';

/** Error codes owned by the contacts plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  // Codes of the product family's wire (spec 2-tickets.md §8), owned here.
  ERR_DUPLICATED_CONTACT: { status: 409, message: 'Contact number must be unique' },
  ERR_NO_CONTACT_FOUND: { status: 404, message: 'Contact not found' },
  ERR_NO_IMPORT_FOUND: { status: 404, message: 'Import job not found' },
  // Issue 33 item 5: a merge must follow a preview of the contacts as they are.
  ERR_MERGE_PREVIEW_STALE: { status: 409, message: 'The contacts changed since the merge preview: preview the merge again' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** Channels a contact belongs to. */
export const CONTACT_CHANNELS = ['whatsapp', 'whatsappapi', 'facebook', 'instagram'] as const;
export type ContactChannel = (typeof CONTACT_CHANNELS)[number];

/** A contact as the API shows it (wire-shapes §2 "Contact"). Timestamps are ISO strings. */
export interface Contact {
  id: number;
  companyId: number;
  name: string;
  /** Digits for phones, PSID/IGSID for Meta channels, group JID user part for groups. */
  number: string;
  email: string;
  /** The picture URL the channel gave (remote). */
  profilePicUrl: string | null;
  /** The picture to show: a stored file under /public/company{id}/contacts/, else `profilePicUrl`. */
  urlPicture: string | null;
  isGroup: boolean;
  disableBot: boolean;
  acceptAudioMessage: boolean;
  /** false = blocked. */
  active: boolean;
  channel: ContactChannel;
  remoteJid: string | null;
  /** WhatsApp LID JID, when known. */
  lid: string | null;
  lgpdAcceptedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactExtraInfo {
  id: number;
  contactId: number;
  name: string;
  value: string;
  createdAt: string;
  updatedAt: string;
}

/** A tag of a contact with its join row (`contact.tags[i].ContactTag`). */
export type ContactTagRef = Tag & { createdAt: string; updatedAt: string; ContactTag: { contactId: number; tagId: number; createdAt: string; updatedAt: string } };

/** A contact with its extra info and tags (`GET /contacts/:id`). */
export interface ContactDetails extends Contact {
  extraInfo: ContactExtraInfo[];
  tags: ContactTagRef[];
}

/** A row of `GET /contacts`: `contacts.decorators` contributors may fill `tickets` or add keys. */
export type ContactListItem = Contact & { tags: ContactTagRef[]; tickets: Record<string, unknown>[] };

/**
 * A contribution to `contacts.decorators`: adds keys to the rows of a `GET /contacts` page (all of one
 * company, never empty), in place. Must not remove or rename keys; runs in contribution order.
 */
export type ContactDecorator = (companyId: number, contacts: ContactListItem[]) => Promise<void>;

/** Extension point `contacts.decorators` (declare `dependsOn: ['contacts']` to contribute). */
export const contactDecorators = defineExtensionPoint<ContactDecorator>('contacts.decorators');

/**
 * What a plugin holding rows of contacts does when duplicates are merged (issue 33 item 5, "one contact per
 * person"): the contacts plugin runs a merge in ONE transaction - it locks the contacts, calls every
 * contribution's `merge` with that transaction, moves its own rows (tags, extra info), records the sources'
 * numbers and LIDs as the target's aliases, deletes the sources and writes the audit entries - so a merge is
 * done whole or not at all (a crash or an error in any contribution rolls everything back).
 * Contributors never read the contacts tables; they move their own rows from `sourceIds` to `targetId`.
 */
export interface ContactMerger {
  /** Who contributes (the plugin id): names the counts in logs. */
  id: string;
  /**
   * What `merge` would move, read-only: counts by kind (`{tickets: 3, messages: 120}`; keys are the
   * preview's `counts` keys, so pick distinct ones). All ids are contacts of `companyId`.
   */
  preview(companyId: number, targetId: number, sourceIds: number[]): Promise<Record<string, number>>;
  /**
   * Moves the contributor's rows of `sourceIds` to `targetId` inside `trx` (writes only through `trx`; bus
   * events with `ctx.bus.publish(topic, payload, {trx})`). Answers the counts moved and, optionally, the
   * pushes to run after the commit (never throwing). Throwing rolls the whole merge back.
   */
  merge(companyId: number, targetId: number, sourceIds: number[], trx: Knex.Transaction): Promise<{ counts: Record<string, number>; afterCommit?: () => Promise<void> }>;
}

/** Extension point `contacts.mergers` (declare `dependsOn: ['contacts']` to contribute). */
export const contactMergers = defineExtensionPoint<ContactMerger>('contacts.mergers');

/**
 * What a caller knows about a number (the inbound pipeline about a sender, a campaign about a list row, the
 * messages API about a recipient). Absent or null fields never overwrite stored ones.
 *
 * One contact per person (issue 33 item 5): a phone `number` (channel whatsapp/whatsappapi, not a group)
 * finds the contact stored under it, else under its Brazilian 9th-digit twin (libphonenumber-js: `55 11
 * 9XXXX-XXXX` and the 12-digit WhatsApp id `55 11 XXXX-XXXX` are one person), else a contact that has it
 * as an alias (a merged duplicate's number); a WhatsApp `lid` finds the contact holding that LID (or that
 * has it as an alias). A contact known only by its LID (`number` = the LID's digits) takes the phone number
 * when a later message brings both. A new contact keeps the spelling given.
 *
 * The naming rule, applied here for every path that finds or creates contacts by number: `name` names a
 * contact this call creates. An existing contact keeps the name the tenant gave it, unless `nameFrom` is
 * 'profile' (the sender's own profile name, from the channel: inbound messages refresh it). A campaign's
 * list, the messages API and other callers never rename the tenant's contacts.
 */
export interface FindOrCreateInput {
  /** The channel identity (see `Contact.number`), already canonical: it is not reformatted. */
  number: string;
  name?: string | null;
  /**
   * Whose name `name` is: 'caller' (default) - a name the caller holds for the number (a list row, an API
   * call), used only when the contact is created; 'profile' - the contact's own profile name sent by the
   * channel, which also renames an existing contact.
   */
  nameFrom?: 'caller' | 'profile';
  channel: ContactChannel;
  isGroup?: boolean;
  remoteJid?: string | null;
  lid?: string | null;
  profilePicUrl?: string | null;
}

/** Options of `findOrCreateMany` (added, additive). */
export interface FindOrCreateManyOptions {
  /**
   * Filled with the tags of every answered contact (as `tagsOf`; new contacts: []), read with the contacts'
   * own rows: no separate `tagsOf` read for callers that show them.
   */
  tagsOut?: Map<number, ContactTagRef[]>;
}

/**
 * The `contacts` service other plugins get with `ctx.services.get(contactsService)` (declare
 * `dependsOn: ['contacts']`). Every method is scoped to `companyId`: ids of another company are unknown.
 * Answers are never masked: callers showing numbers to a user apply `shouldMask`/`maskNumber`.
 */
export interface ContactsService {
  /** One contact with extra info and tags, or undefined. */
  get(companyId: number, id: number): Promise<ContactDetails | undefined>;
  /**
   * The contacts of `companyId` among `ids` (unknown ids skipped), in no particular order. `trx` (added,
   * additive): read inside that transaction (contacts it created are seen before it commits).
   */
  getMany(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<Contact[]>;
  /**
   * Finds the person's contact (its number, the number's 9th-digit twin, its LID, an alias: see
   * FindOrCreateInput) or creates it: `findOrCreateMany` for one input (idempotent and race-safe: parallel
   * calls for one person give one row; without `trx` it runs in its own transaction).
   * An existing contact gets `profilePicUrl`, `lid` and `remoteJid` only when given and different, and
   * `name` only when it is a profile name (`nameFrom: 'profile'`, see FindOrCreateInput).
   * Emits `company-{cid}-contact` create/update when something was written, after `trx` commits (or at
   * once without `trx`). 400 ERR_VALIDATION for an empty or over-long number.
   */
  findOrCreate(companyId: number, input: FindOrCreateInput, trx?: Knex.Transaction): Promise<Contact>;
  /**
   * Added (additive, for the inbound pipeline): `findOrCreate` for many inputs of one company, whatever their
   * number, in one read when every contact exists unchanged (the rows locked FOR KEY SHARE until `trx` ends,
   * so a merge or a delete of them waits), else also: the addresses merged into contacts (aliases),
   * transaction advisory locks on the unknown ones' number keys and LIDs, a second look-up, one insert of
   * the people still unknown (`ON CONFLICT DO NOTHING`) and one update of the changed contacts; with the same
   * rules: the person is resolved as FindOrCreateInput says, an existing contact gets `profilePicUrl`, `lid`
   * and `remoteJid` only when given and different, `name` only from a profile (`nameFrom: 'profile'`), and
   * a LID-only contact the phone number a later input brings; race-safe (parallel calls give one row per
   * person, whatever the spelling); `company-{cid}-contact` create/update events after the transaction
   * commits (without `trx` it runs in its own). Answers one contact per input, in input order (inputs naming
   * one person share the contact; for them the last given fields win). 400 ERR_VALIDATION for an empty or
   * over-long number.
   */
  findOrCreateMany?(companyId: number, inputs: FindOrCreateInput[], trx?: Knex.Transaction, opts?: FindOrCreateManyOptions): Promise<Contact[]>;
  /**
   * Added (additive): `getMany` with each contact's tags (`tagsOf`'s answer: every found contact's id is a
   * key), in one statement, plus one read of the tags when some contact has any. Callers that show contacts
   * with their tags (ticket payloads) save the separate `tagsOf` read.
   */
  getManyWithTags?(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<{ contacts: Contact[]; tags: Map<number, ContactTagRef[]> }>;
  /** Added (additive): the contact whose stored `number` is exactly `number` (no reformatting), or undefined. */
  getByNumber?(companyId: number, number: string): Promise<Contact | undefined>;
  /** The LGPD display mask (`5511987654321` -> `55119******21`); groups unchanged. */
  maskNumber(number: string, isGroup: boolean): string;
  /** True when `caller` must see masked numbers: profile user (not super) and lgpdHideNumber enabled. */
  shouldMask(companyId: number, caller: AuthUser): Promise<boolean>;
  /** Tags of each contact (every id of `contactIds` is a key; tags ordered by name). */
  tagsOf(companyId: number, contactIds: number[]): Promise<Map<number, ContactTagRef[]>>;
  /** True when the contact has at least one tag (the requiredTag rule of tickets). */
  hasTags(companyId: number, contactId: number): Promise<boolean>;
  /**
   * Ids of up to `limit` (1..10,000, default 1,000) contacts of `companyId` matching a free-text `term`,
   * newest contact first: the lower-cased name contains the term, or, when the term looks like a phone
   * number (only digits, spaces and `+ - ( ) .`), the number contains its digits. [] for a blank term.
   * Backs the ticket search (`contactId IN (...)`) without other plugins reading `contacts`.
   * `exactNumber` (for viewers of masked numbers, lgpdHideNumber): a number matches only as a whole (its
   * national or international spelling), and names that are the number do not match by substring.
   */
  searchIds(companyId: number, term: string, limit?: number, opts?: { exactNumber?: boolean }): Promise<number[]>;
  /**
   * Records when the contact accepted the LGPD terms (`at`), or clears it (null: refused or withdrawn);
   * emits `company-{cid}-contact` update. 404 ERR_NO_CONTACT_FOUND. Used by the automation bot.
   */
  setLgpdAcceptedAt(companyId: number, contactId: number, at: Date | null): Promise<void>;
  /**
   * Added (additive, for campaigns to the contacts of a tag): the company's active, non-group WhatsApp contacts
   * (channel whatsapp or whatsappapi) having tag `tagId` with a non-empty number, ordered by contact id (at most `limit`, default 100,000). With
   * `trx`, read inside that transaction.
   */
  withTag?(companyId: number, tagId: number, opts?: { trx?: Knex.Transaction; limit?: number }): Promise<Pick<Contact, 'id' | 'name' | 'number' | 'email' | 'channel'>[]>;
  /** Added (additive): how many contacts `withTag` would answer, per tag id (every id of `tagIds` is a key). */
  countWithTags?(companyId: number, tagIds: number[]): Promise<Map<number, number>>;
  /**
   * Added (additive, issue 34: the data subject's privacy state): each found contact's anonymization and
   * opt-out (every found id is a key; unknown ids are left out).
   */
  privacyOf?(companyId: number, ids: number[]): Promise<Map<number, ContactPrivacy>>;
  /**
   * Added (additive, issue 34: anonymization, LGPD art. 18): inside `trx`, erases the contact's name (it
   * becomes `#<id>`), number (`anon-<id>`), e-mail, pictures, WhatsApp ids and extra info, and sets
   * `anonymizedAt`; tags, flags and the consent dates stay. Emits `update` after `trx` commits.
   * 404 ERR_NO_CONTACT_FOUND.
   */
  anonymize?(companyId: number, id: number, trx: Knex.Transaction): Promise<void>;
  /**
   * Added (additive, issue 34: opt-out): records that the contact opted out with `keyword` (`at` now), or
   * clears it (`null`: reversed at the customer's request). Emits `update`. 404 ERR_NO_CONTACT_FOUND.
   */
  setOptOut?(companyId: number, id: number, optOut: { keyword: string; at?: Date } | null): Promise<ContactPrivacy>;
  /** Added (additive, issue 34: campaigns skip them): which of `numbers` (stored spelling) belong to opted-out contacts. */
  optedOutNumbers?(companyId: number, numbers: string[]): Promise<Set<string>>;
  /** Added (additive, issue 34: the opt-out view): a page of the company's opted-out contacts, latest first. */
  listOptedOut?(companyId: number, page: { offset: number; limit: number }): Promise<{ contacts: (Pick<Contact, 'id' | 'name' | 'number' | 'channel'> & ContactPrivacy)[]; count: number }>;
}

/** A contact's privacy state (issue 34). Timestamps are ISO strings. */
export interface ContactPrivacy {
  anonymizedAt: string | null;
  optedOutAt: string | null;
  optOutKeyword: string | null;
}

/** The typed handle of the `contacts` service. */
export const contactsService = defineService<ContactsService>('contacts');

const NullableString = Nullable(Type.String());
/** A contact as every answer shows it (wire-shapes §2 "Contact"). Timestamps are ISO strings. */
export const ContactSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    name: Type.String(),
    number: Type.String(),
    email: Type.String(),
    profilePicUrl: NullableString,
    urlPicture: NullableString,
    isGroup: Type.Boolean(),
    disableBot: Type.Boolean(),
    acceptAudioMessage: Type.Boolean(),
    active: Type.Boolean(),
    channel: Type.String(),
    remoteJid: NullableString,
    lid: NullableString,
    lgpdAcceptedAt: NullableString,
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);

export const ExtraInfoSchema = Type.Object(
  { id: Type.Integer(), contactId: Type.Integer(), name: Type.String(), value: Type.String(), createdAt: Type.String(), updatedAt: Type.String() },
  { additionalProperties: false },
);

/** A tag of a contact with its join row, as `contact.tags[i]` (wire-shapes §0 "Join-table objects"). */
export const ContactTagSchema = Type.Object(
  {
    ...TagSchema.properties,
    ContactTag: Type.Object(
      { contactId: Type.Integer(), tagId: Type.Integer(), createdAt: Type.String(), updatedAt: Type.String() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** `GET /contacts/:id` and write answers: the contact with its extra info and tags. */
export const ContactDetailsSchema = Type.Object(
  { ...ContactSchema.properties, extraInfo: Type.Array(ExtraInfoSchema), tags: Type.Array(ContactTagSchema) },
  { additionalProperties: false },
);

