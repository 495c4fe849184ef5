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
 * on `company-{id}-settings` events (seen by every node's hub). While a company's value is not known (or older than the TTL), the hub
 * holds the company's events until it is read (never a full number by accident, nor a masked one where
 * numbers are shown); when it cannot be read, sockets get masked copies.
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
        // A read that a settings change overtook (`forget` meanwhile) is not kept: it may be the old value.
        if (this.loading.get(companyId) === p) this.cache.set(companyId, { hidden, at: Date.now() });
        return hidden;
      })
      .finally(() => {
        if (this.loading.get(companyId) === p) this.loading.delete(companyId);
      });
    this.loading.set(companyId, p);
    return p;
  }

  /**
   * The cached value, synchronously (for socket delivery); undefined when unknown or stale, in which case a
   * load starts and the caller masks to be safe.
   */
  known(companyId: number): boolean | undefined {
    const hit = this.fresh(companyId);
    if (hit === undefined) this.hidden(companyId).catch(() => undefined);
    return hit;
  }

  /** The cached value when fresh, else undefined (no read started). */
  private fresh(companyId: number): boolean | undefined {
    const hit = this.cache.get(companyId);
    return hit && Date.now() - hit.at < LGPD_SETTING_TTL_MS ? hit.hidden : undefined;
  }

  /**
   * Resolves once the company's value is cached (`known` answers it), reading it when needed; a read that a
   * settings change overtook is read again (3 tries). Never rejects: when the value cannot be read it
   * resolves anyway (and `known` stays undefined: masked copies).
   */
  async ready(companyId: number): Promise<void> {
    for (let i = 0; i < 3 && this.fresh(companyId) === undefined; i++) {
      try {
        await this.hidden(companyId);
      } catch {
        return;
      }
    }
  }

  /** Drops the company's value (a settings change): the next delivery reads it again (a read in flight is not kept). */
  forget(companyId: number): void {
    this.cache.delete(companyId);
    this.loading.delete(companyId);
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
