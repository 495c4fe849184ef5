import type { Knex } from 'knex';
import { AppError, type IdentityService, type PublicUser, type References, type UserExtension } from '@atendo/sdk';
import type { ChatbotNode, Queue, QueueSchedule, QueuesService, QueueWithChatbots, UserQueueRef } from '../contract';
import { mapChatbotFkViolation, type ChatbotInput, type ChatbotStore } from './chatbots';
import { isOpenInSchedules } from './schedules';

/** The writable fields of a queue, already normalised (no empty strings). Absent keys are left unchanged. */
export type QueueInput = Partial<Omit<Queue, 'id' | 'companyId' | 'createdAt' | 'updatedAt'>>;

const UNIQUE_CODES = {
  queues_company_name_unique: 'ERR_QUEUE_NAME_ALREADY_EXISTS',
  queues_company_color_unique: 'ERR_QUEUE_COLOR_ALREADY_EXISTS',
} as const;

/**
 * Maps a unique violation on a queue's name or colour (concurrent writes) to its catalogue error, and a
 * foreign-key violation of a chatbot option (its target deleted concurrently) to its 404.
 */
function mapUniqueViolation(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint && e.constraint in UNIQUE_CODES) {
    throw new AppError(UNIQUE_CODES[e.constraint as keyof typeof UNIQUE_CODES]);
  }
  mapChatbotFkViolation(err);
}

const MAX_INT = 2147483647;

/** Normalises a `queues` row: `schedules` always an array. */
function toQueue(row: Record<string, unknown>): Queue {
  return { ...(row as unknown as Queue), schedules: Array.isArray(row.schedules) ? (row.schedules as QueueSchedule[]) : [] };
}

/**
 * Data access for queues and memberships. Every method takes the caller's `companyId` and filters on it;
 * multi-row writes run in one transaction and name/colour uniqueness is checked inside it (backed by the
 * unique indexes for concurrent writers).
 */
export class QueueStore implements QueuesService {
  constructor(private readonly db: Knex, private readonly identity: IdentityService, private readonly chatbots: ChatbotStore, private readonly refs: References) {}

  /** Other plugins' ids of a queue body must be records of the company (404 with the owner's code). */
  private async assertRefs(companyId: number, input: QueueInput): Promise<void> {
    await this.refs.assert(companyId, 'prompt', input.promptId, 'promptId');
    await this.refs.assert(companyId, 'integration', input.integrationId, 'integrationId');
    await this.refs.assert(companyId, 'fileList', input.fileListId, 'fileListId');
  }

  /** The company's queues ordered by `orderQueue` (nulls last), then id. */
  async list(companyId: number): Promise<Queue[]> {
    const rows = await this.db('queues').where({ companyId }).orderByRaw('order_queue ASC NULLS LAST, id ASC');
    return rows.map(toQueue);
  }

  async getQueue(companyId: number, id: number): Promise<Queue | undefined> {
    const row = await this.db('queues').where({ companyId, id }).first();
    return row ? toQueue(row) : undefined;
  }

  /** One queue with its ordered chatbot tree, or undefined when it does not exist in the company. */
  async getWithChatbots(companyId: number, id: number): Promise<QueueWithChatbots | undefined> {
    const queue = await this.getQueue(companyId, id);
    return queue ? { ...queue, chatbots: await this.chatbots.tree(companyId, id) } : undefined;
  }

  /**
   * Creates a queue within the plan's `queues` limit (400 ERR_PLAN_LIMIT_REACHED) and, in the same
   * transaction, its chatbot options `chatbots` (ordered as given, nested through `options`; see
   * `ChatbotStore.replaceChildren`: ids are refused with 404 ERR_NO_CHATBOT_FOUND, as they cannot belong to
   * a new queue). 409 ERR_QUEUE_NAME_ALREADY_EXISTS / ERR_QUEUE_COLOR_ALREADY_EXISTS on duplicates
   * (case-insensitive); 404 ERR_NO_QUEUE_FOUND / ERR_NO_USER_FOUND for option targets outside the company;
   * 400 ERR_VALIDATION for option rules.
   */
  async create(companyId: number, input: QueueInput & { name: string; color: string }, chatbots?: ChatbotInput[]): Promise<QueueWithChatbots> {
    await this.assertRefs(companyId, input);
    if (chatbots) await this.chatbots.precheck(companyId, chatbots);
    try {
      return await this.db.transaction(async (trx) => {
        await this.assertUnique(trx, companyId, input);
        const queue = await this.identity.withinPlanLimit(
          trx,
          companyId,
          'queues',
          async (t) => Number((await t('queues').where({ companyId }).count({ n: '*' }).first())?.n ?? 0),
          async () => {
            const [row] = await trx('queues').insert(this.toRow({ ...input }, companyId)).returning('*');
            return toQueue(row);
          },
        );
        if (chatbots?.length) {
          await this.chatbots.replaceChildren(trx, companyId, { queueId: queue.id }, chatbots);
          await this.chatbots.assertLimits(trx, companyId, queue.id);
        }
        return { ...queue, chatbots: await this.chatbots.tree(companyId, queue.id, trx) };
      });
    } catch (err) {
      mapUniqueViolation(err);
    }
  }

  /**
   * Updates the given fields and, when `chatbots` is a list, upserts the queue's chatbot tree in the same
   * transaction (options missing from the list are deleted; see `ChatbotStore.replaceChildren`). 404
   * ERR_NO_QUEUE_FOUND for ids outside the company; 404 ERR_NO_CHATBOT_FOUND for option ids of another
   * queue or company; 409 on duplicates; other errors as `create`.
   */
  async update(companyId: number, id: number, input: QueueInput, chatbots?: ChatbotInput[]): Promise<QueueWithChatbots> {
    await this.assertRefs(companyId, input);
    if (chatbots) await this.chatbots.precheck(companyId, chatbots);
    try {
      return await this.db.transaction(async (trx) => {
        // NO KEY UPDATE: serialises writers of this queue and its tree without blocking FK checks elsewhere.
        const current = await trx('queues').where({ companyId, id }).forNoKeyUpdate().first('id');
        if (!current) throw new AppError('ERR_NO_QUEUE_FOUND');
        await this.assertUnique(trx, companyId, input, id);
        const [row] = await trx('queues')
          .where({ companyId, id })
          .update({ ...this.toRow(input), updatedAt: trx.fn.now() })
          .returning('*');
        if (chatbots) {
          await this.chatbots.replaceChildren(trx, companyId, { queueId: id }, chatbots);
          await this.chatbots.assertLimits(trx, companyId, id);
        }
        return { ...toQueue(row), chatbots: await this.chatbots.tree(companyId, id, trx) };
      });
    } catch (err) {
      mapUniqueViolation(err);
    }
  }

  /** See `QueuesService.listQueues`. */
  listQueues(companyId: number): Promise<Queue[]> {
    return this.list(companyId);
  }

  /** See `QueuesService.chatbotTree`. */
  chatbotTree(companyId: number, queueId: number): Promise<ChatbotNode[]> {
    return this.chatbots.tree(companyId, queueId);
  }

  /** See `QueuesService.getOption`. */
  getOption(companyId: number, chatbotId: number): Promise<ChatbotNode | undefined> {
    return this.chatbots.getOption(companyId, chatbotId);
  }

  /** See `QueuesService.isOpenAt`. */
  async isOpenAt(companyId: number, queueId: number, date: Date, timeZone = 'America/Sao_Paulo'): Promise<boolean> {
    const queue = await this.getQueue(companyId, queueId);
    if (!queue) throw new AppError('ERR_NO_QUEUE_FOUND');
    return isOpenInSchedules(queue.schedules, date, timeZone);
  }

  /** Deletes a queue and its memberships; 404 ERR_NO_QUEUE_FOUND for ids outside the company. */
  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db('queues').where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_QUEUE_FOUND');
  }

  async listQueueIds(companyId: number, userId: number): Promise<number[]> {
    const rows: { queueId: number }[] = await this.db('userQueues as uq')
      .join('queues as q', 'q.id', 'uq.queueId')
      .where({ 'uq.companyId': companyId, 'q.companyId': companyId, 'uq.userId': userId })
      .orderByRaw('q.order_queue ASC NULLS LAST, q.id ASC')
      .select('uq.queueId');
    return rows.map((r) => r.queueId);
  }

  async userIdsOfQueue(companyId: number, queueId: number): Promise<number[]> {
    const rows: { userId: number }[] = await this.db('userQueues as uq')
      .join('queues as q', 'q.id', 'uq.queueId')
      .where({ 'uq.companyId': companyId, 'q.companyId': companyId, 'uq.queueId': queueId })
      .orderBy('uq.userId')
      .select('uq.userId');
    return rows.map((r) => r.userId);
  }

  /** Adds `queues: UserQueueRef[]` to every user, with one query for all of them (scoped to `companyId`). */
  async decorateUsers(companyId: number, users: PublicUser[]): Promise<void> {
    const ids = users.map((u) => u.id);
    const rows: { userId: number; queueId: number; ucAt: Date; uuAt: Date; name: string; color: string }[] = await this.db('userQueues as uq')
      .join('queues as q', 'q.id', 'uq.queueId')
      .where({ 'uq.companyId': companyId, 'q.companyId': companyId })
      .whereIn('uq.userId', ids)
      .orderByRaw('q.order_queue ASC NULLS LAST, q.id ASC')
      .select('uq.userId', 'uq.queueId', 'uq.createdAt as ucAt', 'uq.updatedAt as uuAt', 'q.name', 'q.color');
    const byUser = new Map<number, UserQueueRef[]>();
    for (const r of rows) {
      const list = byUser.get(r.userId) ?? [];
      list.push({ id: r.queueId, name: r.name, color: r.color, UserQueue: { userId: r.userId, queueId: r.queueId, createdAt: r.ucAt, updatedAt: r.uuAt } });
      byUser.set(r.userId, list);
    }
    for (const u of users) u.queues = byUser.get(u.id) ?? [];
  }

  /**
   * Replaces the memberships of `userId` with `queueIds` inside `trx` (kept rows keep their timestamps).
   * Every id must be a queue of `companyId`, else 404 ERR_NO_QUEUE_FOUND and nothing changes.
   */
  async saveUserQueues(trx: Knex.Transaction, companyId: number, userId: number, queueIds: unknown): Promise<void> {
    if (queueIds === undefined) return;
    const list = queueIds === null ? [] : queueIds;
    if (!Array.isArray(list) || list.length > 1000) throw new AppError('ERR_VALIDATION', 'queueIds must be an array of queue ids');
    const ids = [...new Set(list.map((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v)))];
    if (ids.some((v) => !Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_INT)) {
      throw new AppError('ERR_VALIDATION', 'queueIds must be an array of queue ids');
    }
    const wanted = ids as number[];
    if (wanted.length) {
      // FOR SHARE: a queue deleted concurrently cannot vanish between this check and the insert.
      const found = await trx('queues').where({ companyId }).whereIn('id', wanted).forShare().select('id');
      if (found.length !== wanted.length) throw new AppError('ERR_NO_QUEUE_FOUND');
    }
    await trx('userQueues').where({ userId }).whereNotIn('queueId', wanted).del();
    if (wanted.length) {
      await trx('userQueues')
        .insert(wanted.map((queueId) => ({ userId, queueId, companyId })))
        .onConflict(['userId', 'queueId'])
        .ignore();
    }
  }

  /** The `queues` user extension: decorates users with `queues` and saves `body.queueIds`. */
  userExtension(): UserExtension {
    return {
      name: 'queues',
      decorate: (companyId, users) => this.decorateUsers(companyId, users),
      save: (trx, companyId, userId, body) => this.saveUserQueues(trx, companyId, userId, body.queueIds),
    };
  }

  /** The narrow service other plugins use. */
  service(): QueuesService {
    return {
      listQueueIds: (c, u) => this.listQueueIds(c, u),
      userIdsOfQueue: (c, q) => this.userIdsOfQueue(c, q),
      getQueue: (c, id) => this.getQueue(c, id),
      listQueues: (c) => this.listQueues(c),
      isOpenAt: (c, q, date, tz) => this.isOpenAt(c, q, date, tz),
      chatbotTree: (c, q) => this.chatbotTree(c, q),
      getOption: (c, id) => this.getOption(c, id),
    };
  }

  private async assertUnique(trx: Knex.Transaction, companyId: number, input: QueueInput, exceptId?: number): Promise<void> {
    const same = (column: 'name' | 'color', value: string) => {
      const q = trx('queues').where({ companyId }).whereRaw(`lower(${column}) = lower(?)`, [value]);
      if (exceptId !== undefined) q.whereNot({ id: exceptId });
      return q.first('id');
    };
    if (input.name !== undefined && (await same('name', input.name))) throw new AppError('ERR_QUEUE_NAME_ALREADY_EXISTS');
    if (input.color !== undefined && (await same('color', input.color))) throw new AppError('ERR_QUEUE_COLOR_ALREADY_EXISTS');
  }

  /** Picks the known columns (never spreads input into SQL); `schedules` goes in as JSON. */
  private toRow(input: QueueInput, companyId?: number): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    if (companyId !== undefined) row.companyId = companyId;
    const keys = ['name', 'color', 'greetingMessage', 'outOfHoursMessage', 'orderQueue', 'ativarRoteador', 'tempoRoteador', 'integrationId', 'fileListId', 'promptId', 'closeTicket'] as const;
    for (const k of keys) if (input[k] !== undefined) row[k] = input[k];
    if (input.schedules !== undefined) row.schedules = JSON.stringify(input.schedules);
    return row;
  }
}
