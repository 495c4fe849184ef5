import { defineService } from './contracts';
import { AppError, type ErrorCode } from './errors';

/** The kinds of records other plugins' bodies refer to by id. */
export type ReferenceKind = 'prompt' | 'integration' | 'fileList' | 'tag' | 'connection' | 'queue';

/** How the plugin owning a kind checks ids: which of `ids` are records of `companyId`. */
export interface ReferenceProvider {
  /** The ids among `ids` that are records of the company (any order). */
  existing(companyId: number, ids: number[]): Promise<number[]>;
  /** The catalogue code (a 404 of the owning plugin) thrown when one is not. */
  code: ErrorCode;
}

/**
 * The kernel's `references` service: a body field holding another plugin's id (a queue's `promptId`, a
 * campaign's `tagListId`, a user's `whatsappId`...) is checked against the caller's company by the plugin
 * owning that kind, without the plugins depending on each other (which dependency cycles would forbid).
 * The owner calls `provide(kind, ...)` in `register()`; a plugin storing such an id calls `assert(...)` before
 * writing it. Any plugin may use it (`ctx.services.get(referencesService)`: the kernel provides it).
 */
export interface References {
  /** Declares the checker of `kind` (one per kind: its owning plugin). */
  provide(kind: ReferenceKind, provider: ReferenceProvider): void;
  /**
   * Throws unless every id (null, undefined, 0 and '' are "none" and pass) is a record of `kind` of
   * `companyId`: the owner's 404 code; when no loaded plugin owns `kind`, 400 ERR_VALIDATION (nothing it
   * could refer to exists), except for `integration`: without the integrations plugin, an integration id names
   * a third party's conversation handler (SDK `conversationHandlers`), which no table holds.
   */
  assert(companyId: number, kind: ReferenceKind, ids: number | readonly number[] | null | undefined, field: string): Promise<void>;
}

/** The service handle (provided by the kernel). */
export const referencesService = defineService<References>('references');

/** The kernel's implementation of `References` (one per kernel). */
export function createReferences(): References {
  const providers = new Map<ReferenceKind, ReferenceProvider>();
  return {
    provide(kind, provider) {
      if (providers.has(kind)) throw new Error(`references: ${kind} is already provided`);
      providers.set(kind, provider);
    },
    async assert(companyId, kind, ids, field) {
      const wanted = [...new Set((Array.isArray(ids) ? ids : [ids]).filter((v): v is number => typeof v === 'number' && v > 0))];
      if (!wanted.length) return;
      const p = providers.get(kind);
      if (!p) {
        // A third party's conversation handler may answer for an integration id of its own (no table to check).
        if (kind === 'integration') return;
        throw new AppError('ERR_VALIDATION', `${field}: no ${kind} can be referred to here`);
      }
      const found = new Set(await p.existing(companyId, wanted));
      if (wanted.some((id) => !found.has(id))) throw new AppError(p.code);
    },
  };
}
