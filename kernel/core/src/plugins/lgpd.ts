import type { FastifyInstance } from 'fastify';
import { maskNumbersDeep, masksNumbersFor, type AuthUser, type IdentityService, type Realtime } from '@atendo/sdk';

/** How long a company's lgpdHideNumber value is reused (ms); a settings event forgets it at once on every node. */
export const LGPD_SETTING_TTL_MS = 5000;

/**
 * The LGPD number mask of the kernel (company setting `lgpdHideNumber`, issue 18 item 5): one serializer
 * (`maskNumbersDeep` of the SDK) applied to
 * - every HTTP answer to a viewer who is not an admin (`masksNumbersFor`: profile user, not super) of a
 *   company with the setting enabled (a `preSerialization` hook, so no route can forget it);
 * - every socket event delivered to such a viewer's sockets (the realtime hub asks `hidden`/`known` and
 *   sends the masked copy to them, the full payload to the others).
 * HTTP reads it through the identity's settings cache (forgotten by every settings write and every node's
 * settings event, so a change holds at once on the node that made it); socket delivery caches it per company for LGPD_SETTING_TTL_MS, forgotten
 * on `company-{id}-settings` events (seen by every node's hub). While a company's value is not known yet, sockets get masked copies
 * (never a full number by accident).
 */
export class LgpdPolicy {
  private readonly cache = new Map<number, { hidden: boolean; at: number }>();
  private readonly loading = new Map<number, Promise<boolean>>();

  constructor(private readonly identity: Pick<IdentityService, 'getCompanySetting'>) {}

  /** Whether `companyId` hides numbers (cached). */
  async hidden(companyId: number): Promise<boolean> {
    const hit = this.cache.get(companyId);
    if (hit && Date.now() - hit.at < LGPD_SETTING_TTL_MS) return hit.hidden;
    const pending = this.loading.get(companyId);
    if (pending) return pending;
    const p = this.identity
      .getCompanySetting(companyId, 'lgpdHideNumber')
      .then((v: string) => {
        const hidden = v === 'enabled';
        this.cache.set(companyId, { hidden, at: Date.now() });
        return hidden;
      })
      .finally(() => this.loading.delete(companyId));
    this.loading.set(companyId, p);
    return p;
  }

  /**
   * The cached value, synchronously (for socket delivery); undefined when unknown or stale, in which case a
   * load starts and the caller masks to be safe.
   */
  known(companyId: number): boolean | undefined {
    const hit = this.cache.get(companyId);
    if (hit && Date.now() - hit.at < LGPD_SETTING_TTL_MS) return hit.hidden;
    this.hidden(companyId).catch(() => undefined);
    return undefined;
  }

  forget(companyId: number): void {
    this.cache.delete(companyId);
  }

  /**
   * Whether `viewer` must get masked numbers right now (HTTP): asked for every answer to a viewer who is not
   * an admin (the identity's settings cache; admins cost nothing), so a changed setting holds at once.
   */
  async masksFor(viewer: Pick<AuthUser, 'companyId' | 'profile' | 'super'> | null | undefined): Promise<boolean> {
    if (!viewer || !masksNumbersFor(viewer)) return false;
    return (await this.identity.getCompanySetting(viewer.companyId, 'lgpdHideNumber')) === 'enabled';
  }

  /** Installs the HTTP serializer and the cache invalidation (settings events of every node). */
  install(app: FastifyInstance, realtime: Pick<Realtime, 'observe'>): void {
    realtime.observe((companyId, event) => {
      if (companyId !== null && event === `company-${companyId}-settings`) this.forget(companyId);
    });
    app.addHook('preSerialization', async (req, _reply, payload) => {
      const auth = (req as { auth?: AuthUser | null }).auth;
      if (!auth || payload === null || typeof payload !== 'object') return payload;
      return (await this.masksFor(auth)) ? maskNumbersDeep(payload) : payload;
    });
  }
}
