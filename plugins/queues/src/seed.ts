import type { SeedContext } from '@atendo/sdk';

/** Demo queues of company 1 and the demo attendants serving them (SEED_DEMO only). */
export const DEMO_QUEUES = [
  { name: 'Comercial', color: '#2563EB', greetingMessage: 'Olá! Você está no Comercial. Em que podemos ajudar?', orderQueue: 1 },
  { name: 'Suporte', color: '#16A34A', greetingMessage: 'Olá! Você está no Suporte. Descreva o seu problema, por favor.', orderQueue: 2 },
  { name: 'Financeiro', color: '#F97316', greetingMessage: 'Olá! Você está no Financeiro. Informe o seu CPF ou CNPJ, por favor.', orderQueue: 3 },
] as const;
const DEMO_MEMBERSHIPS: Record<string, string[]> = {
  'ana@example.com': ['Comercial', 'Suporte'],
  'bruno@example.com': ['Suporte'],
  'carla@example.com': ['Comercial', 'Suporte', 'Financeiro'],
};

/**
 * Idempotent demo seed: creates the missing demo queues in company 1 and adds the demo attendants that
 * exist to them. Runs under an advisory lock so several nodes starting together seed once.
 */
export async function seedQueues(ctx: SeedContext): Promise<void> {
  if (!ctx.demo) return;
  const companyId = ctx.companyId;
  const users = await ctx.identity.listUsers(companyId);
  await ctx.db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(4242101)');
    const ids = new Map<string, number>();
    for (const q of DEMO_QUEUES) {
      const found = await trx('queues').where({ companyId }).whereRaw('lower(name) = lower(?)', [q.name]).first('id');
      if (found) ids.set(q.name, found.id);
      else {
        const [row] = await trx('queues').insert({ companyId, ...q }).returning('id');
        ids.set(q.name, row.id);
      }
    }
    for (const u of users) {
      const names = DEMO_MEMBERSHIPS[u.email.toLowerCase()];
      if (!names) continue;
      const rows = names.map((n) => ({ userId: u.id, queueId: ids.get(n)!, companyId }));
      await trx('userQueues').insert(rows).onConflict(['userId', 'queueId']).ignore();
    }
  });
  ctx.log.info('demo queues seeded');
}
