import { Type, type Static } from '@atendo/sdk';

/** The schedules plugin's config (env `SCHEDULES_<KEY>`), validated at boot. */
export const SchedulesConfig = Type.Object({
  /**
   * `SCHEDULES_MAX_ATTEMPTS`: attempts of a schedule's send job before it is marked ERRO with the reason
   * (retries wait e^attempt seconds: 2.7 s, 7.4 s, 20 s, 55 s...).
   */
  maxAttempts: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
});
export type SchedulesConfig = Static<typeof SchedulesConfig>;
