/**
 * The compliance plugin's contract (import it as `@atendo/plugin-compliance/contract`): its error codes and
 * wire shapes. Types and `define*` calls only: importing it pulls neither fastify nor knex.
 */
import { defineErrors, defineJob, defineService, Nullable, Type, type Static } from '@atendo/sdk';

// ---- error codes: owned here, merged into the catalogue at boot

export const errors = defineErrors({
  ERR_ANONYMIZE_NOT_CONFIRMED: { status: 400, message: 'Anonymization is irreversible: send {confirm: true}' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---- wire shapes

const Fields = Nullable(Type.Record(Type.String(), Type.Unknown()));

/** An audit entry as `GET /audit-logs` shows it (`userName`: the acting user's name, when the user still exists). */
export const AuditEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    actorKind: Type.String(),
    userId: Nullable(Type.Integer()),
    userName: Nullable(Type.String()),
    actorLabel: Nullable(Type.String()),
    entity: Type.String(),
    entityId: Nullable(Type.String()),
    action: Type.String(),
    before: Fields,
    after: Fields,
    ip: Nullable(Type.String()),
    createdAt: Type.String(),
  },
  { additionalProperties: false },
);
export type AuditEntryOut = Static<typeof AuditEntrySchema>;

/** Body of `POST /contacts/:id/anonymize`: the UI's confirmation (the action is irreversible). */
export const AnonymizeBody = Type.Object({ confirm: Type.Boolean() }, { additionalProperties: false });

/** Answer of `POST /contacts/:id/anonymize`: what was erased. */
export const AnonymizeAnswer = Type.Object({
  contactId: Type.Integer(),
  tickets: Type.Integer(),
  messages: Type.Integer(),
  schedules: Type.Integer(),
  /** Contact-list items deleted (0 without the campaigns plugin). */
  listItems: Type.Integer(),
  /** Campaign recipient rows erased (0 without the campaigns plugin). */
  campaignRecipients: Type.Integer(),
});

/** A contact's privacy state (`GET /contacts/:id/privacy`). */
export const PrivacySchema = Type.Object({
  contactId: Type.Integer(),
  lgpdAcceptedAt: Nullable(Type.String()),
  anonymizedAt: Nullable(Type.String()),
  optedOutAt: Nullable(Type.String()),
  optOutKeyword: Nullable(Type.String()),
});

/** The company's compliance settings (`GET/PUT /compliance/settings`). */
export const SettingsSchema = Type.Object({
  optOutKeywords: Type.Array(Type.String()),
  optOutReply: Type.String(),
  retentionDays: Nullable(Type.Integer()),
});

/** Body of `PUT /compliance/settings` (every field optional; `retentionDays` null turns retention off). */
export const SettingsBody = Type.Object(
  {
    optOutKeywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { minItems: 1, maxItems: 20 })),
    optOutReply: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    retentionDays: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
  },
  { additionalProperties: false },
);

/** An opted-out contact as `GET /compliance/opt-outs` lists it. */
export const OptOutSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  number: Type.String(),
  channel: Type.String(),
  optedOutAt: Nullable(Type.String()),
  optOutKeyword: Nullable(Type.String()),
  anonymizedAt: Nullable(Type.String()),
});

/** A contact's opt-out state after a change. */
export const OptOutStateSchema = Type.Object({ contactId: Type.Integer(), optedOutAt: Nullable(Type.String()), optOutKeyword: Nullable(Type.String()), anonymizedAt: Nullable(Type.String()) });

/** Query of `GET /compliance/retention/preview`: the number of days to try. */
export const RetentionPreviewQuery = Type.Object({ days: Type.Integer({ minimum: 1, maximum: 3650 }) }, { additionalProperties: false });
/** Answer of the preview: how many contacts would be anonymized now. */
export const RetentionPreviewSchema = Type.Object({ days: Type.Integer(), contacts: Type.Integer() });

/** The compliance service (tests and operators): runs the retention job's work now. */
export interface ComplianceService {
  /** Anonymizes, for every company with retention on, the contacts past it; answers the count per company id. */
  runRetention(now?: Date): Promise<Map<number, number>>;
}
/** The typed handle of the `compliance` service. */
export const complianceService = defineService<ComplianceService>('compliance');
/** The daily retention job. */
export const retentionJob = defineJob<Record<string, never>>('compliance.retention');
