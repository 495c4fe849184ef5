import type { PlanFeature } from './wire/plan';
import { defineTopic } from './contracts';

export { PLAN_FEATURES, type PlanFeature } from './wire/plan';

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

/** Kernel event: a plan was created, changed or deleted (every node drops its cached plans). Payload `{}`. */
export const planChanged = defineTopic<{ companyId?: number }>('plan.changed', "a plan changed; cached plans are stale");
/** Kernel event: a company's plan, due date or status changed. */
export const companyChanged = defineTopic<{ companyId?: number }>('company.changed', "a company changed; its cached plan is stale");
