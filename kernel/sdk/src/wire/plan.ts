/** Plan feature flags (spec 1-platform.md §3 "Plan"); each gates a set of routes and screens. */
export const PLAN_FEATURES = [
  'useWhatsapp',
  'useFacebook',
  'useInstagram',
  'useCampaigns',
  'useSchedules',
  'useInternalChat',
  'useExternalApi',
  'useKanban',
  'useOpenAi',
  'useIntegration',
] as const;

/** One plan feature flag. */
export type PlanFeature = (typeof PLAN_FEATURES)[number];

