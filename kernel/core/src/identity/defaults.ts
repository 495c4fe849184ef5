/**
 * Company settings (spec 1-platform.md §3 "Setting", wire-shapes §2 "CompaniesSettings") with their defaults.
 * Stored as key/value rows in `company_settings`; a key without a row has its default. Values are strings,
 * mostly 'enabled'/'disabled'.
 */
export const COMPANY_SETTING_DEFAULTS: Record<string, string> = {
  hoursCloseTicketsAuto: '9999999999',
  chatBotType: 'text',
  acceptCallWhatsapp: 'enabled',
  userRandom: 'disabled',
  sendGreetingMessageOneQueues: 'enabled',
  sendSignMessage: 'enabled',
  sendFarewellWaitingTicket: 'disabled',
  userRating: 'disabled',
  sendGreetingAccepted: 'enabled',
  CheckMsgIsGroup: 'enabled',
  sendQueuePosition: 'disabled',
  scheduleType: 'disabled',
  acceptAudioMessageContact: 'enabled',
  sendMsgTransfTicket: 'disabled',
  enableLGPD: 'disabled',
  requiredTag: 'disabled',
  lgpdDeleteMessage: 'disabled',
  lgpdHideNumber: 'disabled',
  lgpdConsent: 'disabled',
  lgpdLink: '',
  lgpdMessage: '',
  campaignsEnabled: 'false',
  transferMessage: '',
  greetingAcceptedMessage: '',
  /** IANA time zone of the company's opening hours and of the bot's clock variables. */
  timeZone: 'America/Sao_Paulo',
};

/** Allowed values of enumerated company settings; keys not listed take any string up to 5,000 chars. */
export const COMPANY_SETTING_VALUES: Record<string, string[]> = {
  scheduleType: ['disabled', 'queue', 'company', 'connection'],
  chatBotType: ['text', 'button', 'list'],
  campaignsEnabled: ['true', 'false'],
  hoursCloseTicketsAuto: [],
  lgpdLink: [],
  lgpdMessage: [],
  transferMessage: [],
  greetingAcceptedMessage: [],
  timeZone: [],
};
for (const [k, v] of Object.entries(COMPANY_SETTING_DEFAULTS)) {
  if (!(k in COMPANY_SETTING_VALUES) && (v === 'enabled' || v === 'disabled')) COMPANY_SETTING_VALUES[k] = ['enabled', 'disabled'];
}

/** Legacy key/value settings (`/settings`), per company, with their defaults. */
export const SETTING_DEFAULTS: Record<string, string> = {
  userCreation: 'enabled',
  userRating: 'disabled',
  scheduleType: 'disabled',
  chatBotType: 'text',
  CheckMsgIsGroup: 'enabled',
  call: 'disabled',
};

/** Setting keys only super users may change. */
export const SUPER_ONLY_SETTINGS = new Set(['userCreation']);

/** Months a recurrence advances the due date by (spec §4 "Company renewal"); both spellings accepted. */
export const RECURRENCE_MONTHS: Record<string, number> = {
  MONTHLY: 1, BIMONTHLY: 2, QUARTERLY: 3, SEMESTER: 6, YEARLY: 12,
  MENSAL: 1, BIMESTRAL: 2, TRIMESTRAL: 3, SEMESTRAL: 6, ANUAL: 12,
};

/** Company 1, the platform's own company, never expires. */
export const PLATFORM_COMPANY_ID = 1;
export const PLATFORM_DUE_DATE = '2999-12-31';
