/**
 * The compliance plugin's contract (import it as `@atendo/plugin-compliance/contract`): its error codes and
 * wire shapes. Types and `define*` calls only: importing it pulls neither fastify nor knex.
 */
import { defineErrors, Nullable, Type, type Static } from '@atendo/sdk';

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
