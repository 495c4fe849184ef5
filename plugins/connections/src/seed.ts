import { randomBytes } from 'node:crypto';
import { AppError, type SeedContext } from '@atendo/sdk';
import { queuesService } from '@atendo/plugin-queues/contract';
import type { Channel } from './contract';
import { generateToken } from './services/connections';

/** Demo connections of company 1, one per channel (SEED_DEMO only). */
export const DEMO_CONNECTIONS: { name: string; channel: Channel; facebookPageUserId: string | null }[] = [
  { name: 'WhatsApp Demo', channel: 'whatsapp', facebookPageUserId: null },
  { name: 'WhatsApp Cloud Demo', channel: 'whatsappapi', facebookPageUserId: '100000000000001' },
  { name: 'Facebook Demo', channel: 'facebook', facebookPageUserId: '100000000000002' },
  { name: 'Instagram Demo', channel: 'instagram', facebookPageUserId: '17800000000000003' },
];
const DEMO_GREETING = 'Olá! Bem-vindo(a) ao atendimento. Escolha um departamento:';

/**
 * Idempotent demo seed: the demo connections missing in company 1 (within its plan's `connections` limit),
 * "WhatsApp Demo" the default when the company has none, each linked to every queue of company 1 the queues
 * plugin knows (the queues its users serve). Runs under the company's default lock, so several nodes
 * starting together seed once.
 */
export async function seedConnections(ctx: SeedContext): Promise<void> {
  if (!ctx.demo) return;
  const companyId = ctx.companyId;
  let queueIds: number[] = [];
  if (ctx.services.has(queuesService)) {
    const svc = ctx.services.get(queuesService);
    const ids = new Set<number>();
    for (const u of await ctx.identity.listUsers(companyId)) for (const q of await svc.listQueueIds(companyId, u.id)) ids.add(q);
    queueIds = [...ids].sort((a, b) => a - b);
  }
  let created = 0;
  await ctx.db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [1129270862, companyId]);
    for (const demo of DEMO_CONNECTIONS) {
      let row = await trx('whatsapps').where({ companyId }).whereRaw('lower(name) = lower(?)', [demo.name]).first('id');
      if (!row) {
        if (demo.facebookPageUserId && (await trx('whatsapps').where({ channel: demo.channel, facebookPageUserId: demo.facebookPageUserId }).first('id'))) continue;
        try {
          row = await ctx.identity.withinPlanLimit(
            trx,
            companyId,
            'connections',
            async (t) => Number((await t('whatsapps').where({ companyId }).count({ n: '*' }).first())?.n ?? 0),
            async () => {
              const hasDefault = await trx('whatsapps').where({ companyId, isDefault: true }).first('id');
              const meta = demo.channel !== 'whatsapp';
              const [inserted] = await trx('whatsapps')
                .insert({
                  companyId,
                  name: demo.name,
                  channel: demo.channel,
                  status: meta ? 'CONNECTED' : 'DISCONNECTED',
                  isDefault: !hasDefault && demo.channel === 'whatsapp',
                  token: generateToken(),
                  greetingMessage: DEMO_GREETING,
                  facebookPageUserId: demo.facebookPageUserId,
                  facebookUserToken: meta ? randomBytes(32).toString('hex') : null,
                })
                .returning('id');
              return inserted;
            },
          );
          created++;
        } catch (err) {
          if (err instanceof AppError && err.code === 'ERR_PLAN_LIMIT_REACHED') break;
          throw err;
        }
      }
      if (row && queueIds.length) {
        await trx('whatsappQueues')
          .insert(queueIds.map((queueId) => ({ whatsappId: row.id, queueId, companyId })))
          .onConflict(['whatsappId', 'queueId'])
          .ignore();
      }
    }
  });
  ctx.log.info({ created }, 'demo connections seeded');
}
