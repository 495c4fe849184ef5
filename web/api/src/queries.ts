import { QueryClient, useQuery } from '@tanstack/react-query';
import { api } from './instance';
import { useSessionUser } from './session';
import type { Company, Plan } from './types';

/** The page's one react-query cache, shared by the shell and the areas. */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 30_000 } },
});

export type CompanyWithPlan = Company & { plan: Plan | null };

/** Query key of the signed-in company with its plan. */
export const companyPlanKey = (companyId: number | undefined) => ['companyPlan', companyId] as const;

/**
 * `GET /companies/listPlan/{companyId}`: the signed-in user's company with its plan and feature flags
 * (spec 1-platform.md §7). Used by the menu and by areas to gate features.
 */
export function useCompanyPlan() {
  const user = useSessionUser();
  const companyId = user?.companyId;
  return useQuery({
    queryKey: companyPlanKey(companyId),
    queryFn: ({ signal }) => api.get<CompanyWithPlan>(`/companies/listPlan/${companyId}`, { signal }),
    enabled: typeof companyId === 'number',
    staleTime: 60_000,
  });
}
