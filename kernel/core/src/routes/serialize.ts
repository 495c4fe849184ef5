import type { PublicUser } from '@atendo/sdk';
import type { Identity } from '../identity/service';
import { toPublicUser } from '../identity/service';
import { PLATFORM_COMPANY_ID, PLATFORM_DUE_DATE } from '../identity/defaults';
import { withPictureUrl } from './users';

/**
 * The signed-in user as login and refresh answer it: the union of the product family's two shapes
 * (wire-shapes §6.1) without secrets: user fields, `queues`, and `company` with its `plan` and
 * `companieSettings` (an array of one settings object).
 */
export async function sessionUser(identity: Identity, row: Record<string, unknown>, uploads?: { url(companyId: number, path: string): string }): Promise<PublicUser> {
  const user = toPublicUser(row);
  const companyId = user.companyId;
  const [decorated] = await identity.decorate(companyId, [user]);
  const company = await identity.getCompany(companyId);
  const plan = await identity.getCompanyPlan(companyId);
  const settings = await identity.companySettingsObject(companyId);
  return {
    ...withPictureUrl(decorated, uploads),
    queues: (decorated.queues as unknown[]) ?? [],
    company: company
      ? { ...company, dueDate: company.id === PLATFORM_COMPANY_ID ? PLATFORM_DUE_DATE : company.dueDate, plan: plan ?? null, companieSettings: [settings] }
      : null,
  };
}
