import type { SeedContext } from '@atendo/sdk';

/**
 * First-start data (`definePlugin({seed})`), run at every boot after migrations: it must be idempotent.
 * Demo rows only when `ctx.demo` (npm start without SEED_DEMO=false).
 */
export async function seed(ctx: SeedContext): Promise<void> {
  if (!ctx.demo) return;
  const existing = await ctx.db('myFeatureEntries').where({ companyId: ctx.companyId }).first('id');
  if (!existing) await ctx.db('myFeatureEntries').insert({ companyId: ctx.companyId, title: 'Welcome entry' });
}
