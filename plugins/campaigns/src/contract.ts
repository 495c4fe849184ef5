/**
 * The campaigns plugin's contract (import it as `@atendo/plugin-campaigns/contract`): the error codes, the
 * wire schemas of contact lists, their items, campaigns and campaign settings, the socket event names,
 * the status machine's constants, the confirmation rule, the jobs it owns, the topic it publishes and the
 * `campaigns.number-checkers` extension point. Types and `define*` calls only: importing it pulls neither
 * fastify nor knex (the campaigns web area imports it).
 *
 * Spec: 3-campaigns-and-tools.md "Contact lists", "Contact list items", "Campaigns list", "Campaign report",
 * "Campaign settings", §3 ContactList / ContactListItem / Campaign / Campaign settings, §4 "Campaign status",
 * §5, §7, §9; wire-shapes.md "GET /campaigns", "GET /contact-lists", §5 events.
 */
import type { Knex } from 'knex';
import { defineErrors, defineExtensionPoint, defineJob, defineService, defineTopic, Nullable, Type, type Static } from '@atendo/sdk';

// ---------------------------------------------------------------------------------------------------
// Errors

/** Error codes owned by the campaigns plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_CONTACT_LIST_FOUND: { status: 404, message: 'Contact list not found' },
  ERR_NO_CONTACT_LIST_ITEM_FOUND: { status: 404, message: 'Contact list item not found' },
  ERR_CONTACT_LIST_ITEM_DUPLICATED: { status: 409, message: 'This number is already in the contact list' },
  ERR_NO_CAMPAIGN_FOUND: { status: 404, message: 'Campaign not found' },
  ERR_CAMPAIGN_NOT_EDITABLE: { status: 400, message: 'The campaign can no longer be changed' },
  ERR_CAMPAIGN_INVALID_TRANSITION: { status: 400, message: 'The campaign is not in a status that allows this' },
  ERR_CAMPAIGN_INCOMPLETE: { status: 400, message: 'A campaign needs a contact list, a connection and a message before it is scheduled' },
  ERR_CAMPAIGN_VARIABLE_DUPLICATED: { status: 400, message: 'Campaign variable keys must be unique' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---------------------------------------------------------------------------------------------------
// Constants

/** The plan flag that gates every route (spec §1). */
export const CAMPAIGNS_FEATURE = 'useCampaigns' as const;

/** Campaign statuses (spec §4 "Campaign status"; wire-shapes "GET /campaigns"). */
export const CAMPAIGN_STATUSES = ['INATIVA', 'PROGRAMADA', 'EM_ANDAMENTO', 'CANCELADA', 'FINALIZADA'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * The state of one recipient of a started campaign (a "shipping" row):
 * - `pending`: not sent yet;
 * - `confirmation`: the confirmation message was sent, the positive reply is awaited (`confirmationRequestedAt`);
 * - `confirmed`: a positive reply came while the campaign was cancelled; its message goes when it restarts;
 * - `delivered`: the campaign message was stored in the contact's ticket and handed to the channel (`deliveredAt`);
 * - `failed`: it could not be sent (`error`), or the channel refused it.
 */
export const SHIPPING_STATUSES = ['pending', 'confirmation', 'confirmed', 'delivered', 'failed'] as const;
export type ShippingStatus = (typeof SHIPPING_STATUSES)[number];

/** Message variants per campaign (spec §9). */
export const MESSAGE_VARIANTS = 5;
/** Page size of `GET /campaigns`, `GET /contact-lists` (wire-shapes) and `GET /contact-list-items`. */
export const PAGE_SIZE = 20;
/** Editing a scheduled campaign needs its scheduled time more than this far ahead (spec §4, §9): 1 hour. */
export const EDIT_LEAD_MS = 60 * 60 * 1000;
/** Name length of lists, items and campaigns (spec §5, §9). */
export const NAME_MIN = 2;
export const NAME_MAX = 50;
/** Contact list item number length (spec §5). */
export const NUMBER_MIN = 8;
export const NUMBER_MAX = 50;
/** Spreadsheet imports: accepted extensions (spec §5) and limits. */
export const SHEET_EXTENSIONS = ['.xls', '.xlsx', '.csv'] as const;
export const SHEET_MAX_BYTES = 10 * 1024 * 1024;
/** Campaign media: largest file. */
export const MEDIA_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The legal bases a contact-list item may record (issue 34 item 4; LGPD art. 7, in its order): I consent,
 * II legal obligation, III public policy, IV research, V contract, VI exercise of rights in legal claims,
 * VII protection of life, VIII health, IX legitimate interest, X credit protection.
 */
export const LEGAL_BASES = ['consent', 'legal-obligation', 'public-policy', 'research', 'contract', 'legal-claims', 'vital-interest', 'health', 'legitimate-interest', 'credit-protection'] as const;
export type LegalBasis = (typeof LEGAL_BASES)[number];

/**
 * Campaign settings choices (spec §9). Any whole number of seconds from 0 to 3600 (messages 0 to 1000
 * for `longerIntervalAfter`) is accepted by the API; the screen offers these.
 */
export const SETTING_CHOICES = {
  messageInterval: [0, 5, 10, 15, 20],
  longerIntervalAfter: [0, 5, 10, 15, 20],
  greaterInterval: [0, 20, 30, 40, 50, 60],
} as const;
/** Defaults of the campaign settings (spec §3 "Campaign settings"). */
export const SETTING_DEFAULTS = { messageInterval: 20, longerIntervalAfter: 20, greaterInterval: 60 } as const;

/**
 * The explicit positive replies that confirm a campaign's confirmation request (compared after trimming,
 * lower-casing, removing accents and the punctuation, spaces and emoji around the word): the whole reply must
 * be one of these. "1", "sim", "s", "yes", "y", "si" (es, "sí"), "ok", "okay", "confirmo", "confirmado",
 * "confirmar", "quero", "aceito", "evet" (tr), and the thumbs-up emoji alone. Anything else
 * ("2", "não", "sim, mas depois", a sticker, a photo) is not a confirmation.
 */
export const POSITIVE_REPLIES: readonly string[] = ['1', 'sim', 's', 'yes', 'y', 'si', 'ok', 'okay', 'confirmo', 'confirmado', 'confirmar', 'quero', 'aceito', 'evet'];
const THUMBS_UP = /^\u{1F44D}[\u{1F3FB}-\u{1F3FF}]?$/u;

/** True when `text` is an explicit positive reply (see POSITIVE_REPLIES). Pure. */
export function isPositiveReply(text: string | null | undefined): boolean {
  const raw = (text ?? '').trim();
  if (!raw || raw.length > 40) return false;
  if (THUMBS_UP.test(raw)) return true;
  const word = raw
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
  return POSITIVE_REPLIES.includes(word);
}

// ---------------------------------------------------------------------------------------------------
// Socket events (spec §7 "Live events", wire-shapes §5)

/** `company-{cid}-ContactList`: `{action: 'create'|'update', record: ContactList}` or `{action: 'delete', id}`. */
export const contactListEvent = (companyId: number) => `company-${companyId}-ContactList`;
/** `company-{cid}-ContactListItem`: `{action: 'create'|'update', record: ContactListItem}` or `{action: 'delete', id}`. */
export const contactListItemEvent = (companyId: number) => `company-${companyId}-ContactListItem`;
/**
 * `company-{cid}-ContactListItem-{listId}`: `{action: 'reload', records}` (the list's first page) after an
 * import, and while one runs `{action: 'import-progress', ...ImportProgress}` then `{action: 'import-done', ...}`.
 */
export const contactListItemsOfListEvent = (companyId: number, listId: number) => `company-${companyId}-ContactListItem-${listId}`;
/** `company-{cid}-campaign`: `{action: 'create'|'update', record: Campaign}` or `{action: 'delete', id}`. */
export const campaignEvent = (companyId: number) => `company-${companyId}-campaign`;
/** `company-{cid}-campaign-settings`: `{action: 'update', settings: CampaignSettingRow[]}` (admins' screens). */
export const campaignSettingsEvent = (companyId: number) => `company-${companyId}-campaign-settings`;

// ---------------------------------------------------------------------------------------------------
// Wire schemas

/** A contact list (GET /contact-lists rows). `contactsCount` is a string, as the product family's (a bigint count). */
export const ContactListSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    contactsCount: Type.String(),
    companyId: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type ContactList = Static<typeof ContactListSchema>;

/**
 * A contact list item. `number` is stored normalised (E.164 digits without '+', through libphonenumber;
 * digits it cannot read are kept as typed). `isWhatsappValid`: true or false when the company's WhatsApp
 * connection could check the number, null when no connection could (unknown: it is still sent).
 */
export const ContactListItemSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    number: Type.String(),
    email: Type.String(),
    isWhatsappValid: Nullable(Type.Boolean()),
    companyId: Type.Integer(),
    contactListId: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    /** The legal basis of the messages to this person (`LEGAL_BASES`), null when not recorded (issue 34). */
    legalBasis: Type.Optional(Nullable(Type.String())),
    /** When the person consented (ISO 8601), null when not recorded (issue 34). */
    consentAt: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: false },
);
export type ContactListItem = Static<typeof ContactListItemSchema>;

/** Progress of a spreadsheet import (events and the upload's answer). `errors`: rows refused, with the sheet's row number. */
export const ImportProgressSchema = Type.Object(
  {
    contactListId: Type.Integer(),
    status: Type.Union([Type.Literal('running'), Type.Literal('done')]),
    total: Type.Integer(),
    processed: Type.Integer(),
    created: Type.Integer(),
    updated: Type.Integer(),
    errors: Type.Array(Type.Object({ row: Type.Integer(), error: Type.String() })),
  },
  { additionalProperties: false },
);
export type ImportProgress = Static<typeof ImportProgressSchema>;

/** Counts of a campaign's recipients (the report's progress and cards). */
export const CampaignCountsSchema = Type.Object(
  {
    /** Recipients: the list's items with a number not known to be invalid (before start), or the shipping rows. */
    validContacts: Type.Integer(),
    pending: Type.Integer(),
    confirmationRequested: Type.Integer(),
    confirmed: Type.Integer(),
    delivered: Type.Integer(),
    failed: Type.Integer(),
    /** Added (issue 34): of `failed`, the recipients skipped because their contact opted out (absent before start). */
    optedOut: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type CampaignCounts = Static<typeof CampaignCountsSchema>;

/** One recipient of a started campaign (GET /campaigns/{id}?shipping=true). */
export const ShippingSchema = Type.Object(
  {
    id: Type.Integer(),
    number: Type.String(),
    name: Type.String(),
    status: Type.String(),
    /** 1..5: the message variant sent. */
    variant: Type.Integer(),
    whatsappId: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    confirmationRequestedAt: Nullable(Type.String()),
    confirmedAt: Nullable(Type.String()),
    deliveredAt: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type Shipping = Static<typeof ShippingSchema>;

const messageFields = Object.fromEntries(
  Array.from({ length: MESSAGE_VARIANTS }, (_, i) => [
    [`message${i + 1}`, Type.String()],
    [`confirmationMessage${i + 1}`, Type.String()],
  ]).flat(),
) as Record<`message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`, ReturnType<typeof Type.String>>;

/**
 * A campaign as every answer and event carries it (wire-shapes "GET /campaigns" plus the report's fields).
 * - `whatsappId`: the chosen connection ids joined by commas (`"3"`, `"3,5"`), or null; `whatsappIds` the same
 *   as numbers; `whatsapp` the first one `{id, name}` (the list's column), `whatsapps` all of them.
 * - `scheduledAt`, `completedAt`: ISO-8601 instants or null.
 * - `mediaPath`: a signed URL of the attached file (7 days) or null; `mediaName` its file name.
 * - `paused`: null, or why a running campaign waits (`connection`: none of its connections is connected).
 * - `counts`: the recipients' counts (see CampaignCounts).
 */
export const CampaignSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    ...messageFields,
    status: Type.Union(CAMPAIGN_STATUSES.map((s) => Type.Literal(s))),
    confirmation: Type.Boolean(),
    scheduledAt: Nullable(Type.String()),
    completedAt: Nullable(Type.String()),
    companyId: Type.Integer(),
    contactListId: Nullable(Type.Integer()),
    tagListId: Nullable(Type.Integer()),
    whatsappId: Nullable(Type.String()),
    whatsappIds: Type.Array(Type.Integer()),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    paused: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    contactList: Nullable(
      Type.Object(
        {
          id: Type.Integer(),
          name: Type.String(),
          companyId: Type.Integer(),
          contactsCount: Type.String(),
          createdAt: Type.String(),
          updatedAt: Type.String(),
          /** The list's items (id and number check only), with `shipping`: the product family's report counts the valid ones. */
          contacts: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), isWhatsappValid: Nullable(Type.Boolean()) }, { additionalProperties: false }))),
        },
        { additionalProperties: false },
      ),
    ),
    whatsapp: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), status: Type.String() }, { additionalProperties: false })),
    whatsapps: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), status: Type.String() }, { additionalProperties: false })),
    counts: CampaignCountsSchema,
    shipping: Type.Optional(Type.Array(ShippingSchema)),
  },
  { additionalProperties: false },
);
export type Campaign = Static<typeof CampaignSchema>;

/** One stored campaign setting (GET /campaign-settings): `value` is JSON text (`"20"`, `"[{\"key\":...}]"`). */
export const CampaignSettingRowSchema = Type.Object(
  { id: Type.Integer(), key: Type.String(), value: Type.String(), companyId: Type.Integer(), createdAt: Type.String(), updatedAt: Type.String() },
  { additionalProperties: false },
);
export type CampaignSettingRow = Static<typeof CampaignSettingRowSchema>;

/** A custom campaign variable: `{key}` in a message becomes `value`. */
export interface CampaignVariable {
  key: string;
  value: string;
}

/** The campaign settings of a company, parsed (defaults applied). Intervals in seconds. */
export interface CampaignSettings {
  messageInterval: number;
  longerIntervalAfter: number;
  greaterInterval: number;
  variables: CampaignVariable[];
}

/** Socket payloads. */
export type ContactListEvent = { action: 'create' | 'update'; record: ContactList } | { action: 'delete'; id: number };
export type ContactListItemEvent = { action: 'create' | 'update'; record: ContactListItem } | { action: 'delete'; id: number };
export type ContactListItemsOfListEvent =
  | { action: 'reload'; records: ContactListItem[] }
  | ({ action: 'import-progress' | 'import-done' } & ImportProgress);
export type CampaignEvent = { action: 'create' | 'update'; record: Campaign } | { action: 'delete'; id: number };

// ---------------------------------------------------------------------------------------------------
// Jobs and topics

/** Data of the campaign jobs. */
export interface CampaignJobData {
  companyId: number;
  campaignId: number;
}

/** Starts a scheduled campaign at its `scheduledAt` (key `start:<campaignId>`): PROGRAMADA -> EM_ANDAMENTO. */
export const startJob = defineJob<CampaignJobData>('campaigns.start');
/** The paced dispatcher of a running campaign (key `dispatch:<campaignId>`); reschedules itself at the next send time. */
export const dispatchJob = defineJob<CampaignJobData>('campaigns.dispatch');
/** Checks the unchecked numbers of a contact list through a number checker (key `check:<listId>`). */
export const checkNumbersJob = defineJob<{ companyId: number; contactListId: number }>('campaigns.check-numbers');
/** Every minute: re-arms running campaigns whose dispatcher job was lost (a node killed mid-run) and late starts. */
export const watchdogJob = defineJob<Record<string, never>>('campaigns.watchdog');

/** Payload of `campaign.status-changed`. */
export interface CampaignStatusChangedEvent {
  companyId: number;
  campaignId: number;
  from: CampaignStatus;
  to: CampaignStatus;
}
/** A campaign changed status (after commit). */
export const campaignStatusChanged = defineTopic<CampaignStatusChangedEvent>('campaign.status-changed', "a campaign's status changed");

// ---------------------------------------------------------------------------------------------------
// Extension point

/**
 * A WhatsApp number check a channel plugin can offer (`campaigns.number-checkers`): contributed by a plugin
 * with `campaigns` in its `optionalDependsOn`. Imports ask the first checker whose `channel` is the channel
 * of the company's default WhatsApp connection; without one, `isWhatsappValid` stays null (unknown).
 */
export interface NumberChecker {
  /** The connection channel it checks through (`whatsapp` for Baileys sessions). */
  channel: string;
  /**
   * For each number (E.164 digits), true (on WhatsApp), false (not on WhatsApp) or null (could not tell),
   * through connection `connectionId` of `companyId`. Must not throw for a single bad number.
   */
  check(companyId: number, connectionId: number, numbers: string[]): Promise<Map<string, boolean | null>>;
}
export const numberCheckers = defineExtensionPoint<NumberChecker>('campaigns.number-checkers');

// ---------------------------------------------------------------------------------------------------
// Service (issue 34: the data subject's rights)

/** Who a data-subject request is about: the contact and the identifiers campaigns hold copies of. */
export interface CampaignSubject {
  contactId: number;
  /** The contact's number (E.164 digits, as contact-list items store them); '' when none. */
  number: string;
  /** The contact's e-mail; '' or absent when none. */
  email?: string;
}

/** A contact-list item holding the person, as the export shows it. */
export interface SubjectListItem {
  id: number;
  contactListId: number;
  contactListName: string;
  name: string;
  number: string;
  email: string;
  legalBasis: string | null;
  consentAt: string | null;
  createdAt: string;
}

/** A campaign recipient row of the person, as the export shows it (what was sent and when). */
export interface SubjectShipping {
  campaignId: number;
  campaignName: string;
  status: string;
  variant: number;
  error: string | null;
  confirmationRequestedAt: string | null;
  confirmedAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/**
 * The campaigns service (`campaigns`), for the compliance plugin's export and anonymization (issue 34 item 2;
 * LGPD art. 18). A person is matched by contact id (recipients) and by number or e-mail (list items and
 * recipients), always within `companyId`.
 */
export interface CampaignsService {
  /** The person's contact-list items and campaign recipient rows, oldest first. */
  exportForContact(companyId: number, who: CampaignSubject): Promise<{ listItems: SubjectListItem[]; shippings: SubjectShipping[] }>;
  /**
   * Inside `trx`: deletes the person's contact-list items (a list entry has no use without the person) and
   * erases the name, number and e-mail of its campaign recipient rows, which stay for the campaigns' counts;
   * rows not sent yet fail with `ERR_ANONYMIZED` (never sent afterwards). `afterCommit` pushes the lists'
   * changes to the company's screens. Answers how many items were deleted and recipient rows erased.
   */
  anonymizeContact(companyId: number, who: CampaignSubject, trx: Knex.Transaction): Promise<{ listItems: number; shippings: number; afterCommit: () => Promise<void> }>;
}
/** The typed handle of the `campaigns` service. */
export const campaignsService = defineService<CampaignsService>('campaigns');
/** The recipient error of a row whose person was anonymized before it was sent. */
export const ANONYMIZED_ERROR = 'ERR_ANONYMIZED';
