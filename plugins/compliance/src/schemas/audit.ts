import { IsoDateTime, Type, type Static } from '@atendo/sdk';
import { AuditEntrySchema } from '../contract';

/**
 * Query of `GET /audit-logs`: `entity`, `entityId`, `userId`, `action`, `from`/`to` (ISO instants,
 * inclusive), 1-based `pageNumber`; `companyId` (super users only: one company; absent = every company).
 */
export const AuditQuery = Type.Object(
  {
    entity: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z-]+$' })),
    entityId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    userId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z-]+$' })),
    from: Type.Optional(IsoDateTime),
    to: Type.Optional(IsoDateTime),
    companyId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
    pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;

/** Answer of `GET /audit-logs`. */
export const AuditPage = Type.Object({ records: Type.Array(AuditEntrySchema), count: Type.Integer(), hasMore: Type.Boolean() });
