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

export type PlanFeature = (typeof PLAN_FEATURES)[number];

/** Countable resources a plan limits: users, connections and queues per company. */
export const PLAN_LIMITS = ['users', 'connections', 'queues'] as const;
export type PlanLimit = (typeof PLAN_LIMITS)[number];

/** A plan as the API shows it. `amount` is a decimal string in BRL ("99.90"). */
export interface Plan {
  id: number;
  name: string;
  users: number;
  connections: number;
  queues: number;
  amount: string;
  isPublic: boolean;
  useWhatsapp: boolean;
  useFacebook: boolean;
  useInstagram: boolean;
  useCampaigns: boolean;
  useSchedules: boolean;
  useInternalChat: boolean;
  useExternalApi: boolean;
  useKanban: boolean;
  useOpenAi: boolean;
  useIntegration: boolean;
  createdAt: string;
  updatedAt: string;
}
