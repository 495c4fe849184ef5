import { Type, type Static } from '@atendo/sdk';

/**
 * The campaigns plugin's config, read from env vars `CAMPAIGNS_<KEY>` and validated at boot. Defaults live here.
 */
export const CampaignsConfig = Type.Object({
  /** `CAMPAIGNS_IMPORT_MAX_ROWS`: most data rows one spreadsheet import takes (more: 400 ERR_SHEET_TOO_MANY_ROWS). */
  importMaxRows: Type.Integer({ minimum: 1, maximum: 200_000, default: 20_000 }),
  /** `CAMPAIGNS_BATCH_SIZE`: most recipients the dispatcher sends in one transaction when messageInterval is 0. */
  batchSize: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  /** `CAMPAIGNS_RUN_BUDGET_MS`: how long one dispatcher job run goes on sending before a fresh run takes over, ms. */
  runBudgetMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 2_000 }),
  /**
   * `CAMPAIGNS_CONFIRMATION_TTL_SECONDS`: how long a recipient asked for a confirmation has to answer (default
   * 24 hours). Then the recipient fails (`CONFIRMATION_EXPIRED`) and the campaign can end: it is FINALIZADA only
   * when every recipient was delivered or failed.
   */
  confirmationTtlSeconds: Type.Integer({ minimum: 1, maximum: 30 * 86_400, default: 86_400 }),
});
export type CampaignsConfig = Static<typeof CampaignsConfig>;
