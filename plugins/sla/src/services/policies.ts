import type { Knex } from 'knex';
import { AppError, iso, type AuditRequestLike, type AuditService } from '@atendo/sdk';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import { DEFAULT_WARN_PERCENT, type SlaPolicy, type SlaPolicyBody } from '../contract';

/** A `sla_policies` row (camelCase). */
export interface PolicyRow {
  companyId: number;
  queueId: number;
  firstResponseMinutes: number | null;
  resolutionMinutes: number | null;
  warnPercent: number;
  updatedAt: Date;
}

/**
 * The queues' SLA targets (`sla_policies`), scoped to the company. Queues themselves are read through the
 * queues service (`getQueue`, `listQueues`), never from their table.
 */
export class PolicyStore {
  constructor(
    private readonly db: Knex,
    private readonly queues: QueuesService,
    private readonly audit: AuditService,
  ) {}

  /** The queue's targets, or undefined when it has none. */
  async get(companyId: number, queueId: number, trx: Knex | Knex.Transaction = this.db): Promise<PolicyRow | undefined> {
    return (await trx('slaPolicies').where({ companyId, queueId }).first()) as PolicyRow | undefined;
  }

  /** Every queue of the company (the queues service's order) with its targets (null when none). */
  async list(companyId: number): Promise<SlaPolicy[]> {
    const [queues, rows] = await Promise.all([this.queues.listQueues(companyId), this.db('slaPolicies').where({ companyId }) as Promise<PolicyRow[]>]);
    const byQueue = new Map(rows.map((r) => [r.queueId, r]));
    return queues.map((q) => this.wire(q, byQueue.get(q.id)));
  }

  /**
   * Sets the queue's targets (both null removes them), audited as an update of the queue (`slaFirstResponseMinutes`,
   * `slaResolutionMinutes`, `slaWarnPercent`). Applies to the tickets whose clock starts afterwards (created,
   * reopened or moved into the queue). 404 ERR_NO_QUEUE_FOUND for a queue outside the company.
   */
  async put(req: AuditRequestLike & { auth: { companyId: number } }, queueId: number, body: SlaPolicyBody): Promise<SlaPolicy> {
    const companyId = req.auth.companyId;
    const queue = await this.queues.getQueue(companyId, queueId);
    if (!queue) throw new AppError('ERR_NO_QUEUE_FOUND');
    const row = await this.db.transaction(async (trx) => {
      const before = (await trx('slaPolicies').where({ companyId, queueId }).forUpdate().first()) as PolicyRow | undefined;
      let after: PolicyRow | undefined;
      if (body.firstResponseMinutes === null && body.resolutionMinutes === null) {
        await trx('slaPolicies').where({ companyId, queueId }).delete();
      } else {
        const values = {
          companyId,
          queueId,
          firstResponseMinutes: body.firstResponseMinutes,
          resolutionMinutes: body.resolutionMinutes,
          warnPercent: body.warnPercent ?? before?.warnPercent ?? DEFAULT_WARN_PERCENT,
          updatedAt: trx.fn.now(),
        };
        [after] = (await trx('slaPolicies').insert(values).onConflict(['companyId', 'queueId']).merge().returning('*')) as PolicyRow[];
      }
      const view = (r?: PolicyRow) => ({ slaFirstResponseMinutes: r?.firstResponseMinutes ?? null, slaResolutionMinutes: r?.resolutionMinutes ?? null, slaWarnPercent: r ? r.warnPercent : null });
      await this.audit.record(trx, { req, entity: 'queue', entityId: queueId, action: 'update', before: view(before), after: view(after) });
      return after;
    });
    return this.wire(queue, row);
  }

  private wire(queue: { id: number; name: string; color: string }, row: PolicyRow | undefined): SlaPolicy {
    return {
      queueId: queue.id,
      queueName: queue.name,
      queueColor: queue.color,
      firstResponseMinutes: row?.firstResponseMinutes ?? null,
      resolutionMinutes: row?.resolutionMinutes ?? null,
      warnPercent: row?.warnPercent ?? DEFAULT_WARN_PERCENT,
      updatedAt: row ? iso(row.updatedAt) : null,
    };
  }
}
