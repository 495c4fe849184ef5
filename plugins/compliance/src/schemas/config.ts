import { Type, type Static } from '@atendo/sdk';

/** The plugin's config, from env vars `COMPLIANCE_<KEY>`. */
export const ComplianceConfig = Type.Object({
  /** `COMPLIANCE_PAGE_SIZE`: audit entries per page of `GET /audit-logs`. */
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});
export type ComplianceConfig = Static<typeof ComplianceConfig>;
