import type { Knex } from 'knex';
import { AppError, type IdentityService, type References } from '@atendo/sdk';
import { MAX_CHATBOT_DEPTH, type Chatbot, type ChatbotNode, type ChatbotQueueType } from '../contract';
/** Most options (all levels) one queue may hold. */
export const MAX_CHATBOT_OPTIONS = 500;

/**
 * A normalised option of a request body (no empty strings, ids numeric). Absent keys keep the stored value
 * (or the column default for a new option). `options` absent keeps the option's children as they are;
 * `options: []` removes them; a list is upserted (see `ChatbotStore.replaceChildren`).
 */
export interface ChatbotInput {
  id?: number;
  name?: string;
  greetingMessage?: string | null;
  queueType?: ChatbotQueueType;
  optQueueId?: number | null;
  optUserId?: number | null;
  optIntegrationId?: number | null;
  optFileId?: number | null;
  closeTicket?: boolean;
  isAgent?: boolean;
  options?: ChatbotInput[];
}

type Db = Knex | Knex.Transaction;
type Row = Chatbot & { companyId: number; lvl: number };
/** Where a subtree starts: the root options of a queue, the children of an option, or one option. */
type Start = { queueId: number } | { parentId: number } | { id: number };

const FIELDS = ['name', 'greetingMessage', 'queueType', 'optQueueId', 'optUserId', 'optIntegrationId', 'optFileId', 'closeTicket', 'isAgent'] as const;
/** Recursion guard for the tree queries (trees are at most MAX_CHATBOT_DEPTH deep). */
const CTE_GUARD = 64;

const FK_CODES = {
  chatbots_opt_queue_id_foreign: 'ERR_NO_QUEUE_FOUND',
  chatbots_queue_id_foreign: 'ERR_NO_QUEUE_FOUND',
  chatbots_opt_user_id_foreign: 'ERR_NO_USER_FOUND',
  chatbots_chatbot_id_foreign: 'ERR_NO_CHATBOT_FOUND',
} as const;

/**
 * Maps a foreign-key violation of `chatbots` (a referenced queue, user or option deleted by a concurrent
 * request between our check and our write) to its catalogue 404; rethrows anything else.
 */
export function mapChatbotFkViolation(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23503' && e.constraint && e.constraint in FK_CODES) throw new AppError(FK_CODES[e.constraint as keyof typeof FK_CODES]);
  throw err;
}

function toChatbot(row: Row): Chatbot {
  return {
    id: row.id,
    name: row.name,
    greetingMessage: row.greetingMessage,
    queueId: row.queueId,
    chatbotId: row.chatbotId,
    isAgent: row.isAgent,
    queueType: row.queueType,
    optQueueId: row.optQueueId,
    optUserId: row.optUserId,
    optIntegrationId: row.optIntegrationId,
    optFileId: row.optFileId,
    closeTicket: row.closeTicket,
    order: row.order,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Builds the ordered forest of `rows` (by `order`, then id); rows whose parent is absent are roots. */
function buildTree(rows: Row[]): ChatbotNode[] {
  const nodes = new Map<number, ChatbotNode>();
  for (const r of rows) nodes.set(r.id, { ...toChatbot(r), options: [] });
  const roots: ChatbotNode[] = [];
  for (const n of nodes.values()) {
    const parent = n.chatbotId !== null ? nodes.get(n.chatbotId) : undefined;
    (parent ? parent.options : roots).push(n);
  }
  const sort = (list: ChatbotNode[]) => {
    list.sort((x, y) => x.order - y.order || x.id - y.id);
    for (const n of list) sort(n.options);
  };
  sort(roots);
  return roots;
}

/** Every option of `items` (depth first), with 400 ERR_VALIDATION on duplicated ids or too many options. */
function flatten(items: ChatbotInput[]): ChatbotInput[] {
  const out: ChatbotInput[] = [];
  const ids = new Set<number>();
  const walk = (list: ChatbotInput[]) => {
    for (const it of list) {
      out.push(it);
      if (out.length > MAX_CHATBOT_OPTIONS) throw new AppError('ERR_VALIDATION', `a queue holds at most ${MAX_CHATBOT_OPTIONS} chatbot options`);
      if (it.id !== undefined) {
        if (ids.has(it.id)) throw new AppError('ERR_VALIDATION', `chatbot option ${it.id} appears more than once`);
        ids.add(it.id);
      }
      if (it.options) walk(it.options);
    }
  };
  walk(items);
  return out;
}

/** Stored values of `fields` overlaid with the input's defined keys. */
function merged(current: Partial<Chatbot> | undefined, input: ChatbotInput): Partial<Chatbot> {
  const out: Partial<Chatbot> = { queueType: 'text', ...(current ?? {}) };
  for (const k of FIELDS) if (input[k] !== undefined) (out as Record<string, unknown>)[k] = input[k];
  return out;
}

/** The writable columns an input sets (never spreads input into SQL). */
function columns(input: ChatbotInput): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const k of FIELDS) if (input[k] !== undefined) row[k] = input[k];
  return row;
}

/**
 * Chatbot option trees of queues. Every method takes the caller's `companyId` and filters on it. Writes to
 * a queue's tree run in one transaction that first locks the queue row (`FOR NO KEY UPDATE`, so foreign-key
 * checks of other transactions on that queue are not blocked), which serialises concurrent edits of one tree.
 */
export class ChatbotStore {
  constructor(private readonly db: Knex, private readonly identity: IdentityService, private readonly refs: References) {}

  /** Rows of a subtree with their level (`lvl`, 1 for the start rows), ordered by level, order, id. */
  private async rows(db: Db, companyId: number, start: Start): Promise<Row[]> {
    return db
      .withRecursive('tree', (qb) => {
        qb.select('c.*', db.raw('1 AS lvl')).from('chatbots as c').where('c.companyId', companyId);
        if ('queueId' in start) qb.where('c.queueId', start.queueId);
        else if ('parentId' in start) qb.where('c.chatbotId', start.parentId);
        else qb.where('c.id', start.id);
        qb.unionAll((u) => {
          u.select('c.*', db.raw('tree.lvl + 1'))
            .from('chatbots as c')
            .join('tree', 'c.chatbotId', 'tree.id')
            .where('c.companyId', companyId)
            .where('tree.lvl', '<', CTE_GUARD);
        });
      })
      .select('*')
      .from('tree')
      .orderBy([{ column: 'lvl' }, { column: 'order' }, { column: 'id' }]);
  }

  /** The ordered option tree of a queue (`[]` when the queue has none or is not in the company). */
  async tree(companyId: number, queueId: number, db: Db = this.db): Promise<ChatbotNode[]> {
    return buildTree(await this.rows(db, companyId, { queueId }));
  }

  /** One option with its ordered sub-options, or undefined when it is not an option of the company. */
  async getOption(companyId: number, id: number, db: Db = this.db): Promise<ChatbotNode | undefined> {
    const [root] = buildTree(await this.rows(db, companyId, { id }));
    return root;
  }

  /**
   * The queue whose tree holds option `id`, and the option's level (1 for a root option), following parents
   * within the company; undefined when the option is unknown in the company.
   */
  async locate(companyId: number, id: number, db: Db = this.db): Promise<{ queueId: number; depth: number } | undefined> {
    const chain: { queueId: number | null; lvl: number }[] = await db
      .withRecursive('up', (qb) => {
        qb.select('c.id', 'c.chatbotId', 'c.queueId', db.raw('1 AS lvl')).from('chatbots as c').where({ 'c.companyId': companyId, 'c.id': id });
        qb.unionAll((u) => {
          u.select('c.id', 'c.chatbotId', 'c.queueId', db.raw('up.lvl + 1'))
            .from('chatbots as c')
            .join('up', 'c.id', 'up.chatbotId')
            .where('c.companyId', companyId)
            .where('up.lvl', '<', CTE_GUARD);
        });
      })
      .select('queueId', 'lvl')
      .from('up')
      .orderBy('lvl', 'desc');
    const top = chain[0];
    return top && top.queueId !== null ? { queueId: top.queueId, depth: top.lvl } : undefined;
  }

  /**
   * Checks the users the options hand tickets to (`optUserId`) before a write: each must be a user of the
   * company (404 ERR_NO_USER_FOUND); so must the integrations (`optIntegrationId`, 404
   * ERR_NO_INTEGRATION_FOUND) and file lists (`optFileId`, 404 ERR_NO_FILE_LIST_FOUND) they name. Also refuses duplicated ids and oversized trees (400 ERR_VALIDATION).
   */
  async precheck(companyId: number, items: ChatbotInput[]): Promise<void> {
    const flat = flatten(items);
    const userIds = [...new Set(flat.map((i) => i.optUserId).filter((v): v is number => typeof v === 'number'))];
    const users = await Promise.all(userIds.map((id) => this.identity.getUser(companyId, id)));
    if (users.some((u) => !u)) throw new AppError('ERR_NO_USER_FOUND');
    const ids = (k: 'optIntegrationId' | 'optFileId') => flat.map((i) => i[k]).filter((v): v is number => typeof v === 'number');
    await this.refs.assert(companyId, 'integration', ids('optIntegrationId'), 'optIntegrationId');
    await this.refs.assert(companyId, 'fileList', ids('optFileId'), 'optFileId');
  }

  /**
   * Within `trx`: every `optQueueId` must be a queue of the company (404 ERR_NO_QUEUE_FOUND), and the merged
   * option (stored values overlaid with the input) must satisfy its type: 'queue' needs `optQueueId`,
   * 'attendent' needs `optUserId`; new options need a name (400 ERR_VALIDATION).
   */
  private async checkItems(trx: Knex.Transaction, companyId: number, flat: ChatbotInput[], current: Map<number, Partial<Chatbot>>): Promise<void> {
    for (const it of flat) {
      const m = merged(it.id !== undefined ? current.get(it.id) : undefined, it);
      if (!m.name) throw new AppError('ERR_VALIDATION', 'chatbot option name is required');
      if (m.queueType === 'queue' && !m.optQueueId) throw new AppError('ERR_VALIDATION', "a chatbot option of type 'queue' needs optQueueId");
      if (m.queueType === 'attendent' && !m.optUserId) throw new AppError('ERR_VALIDATION', "a chatbot option of type 'attendent' needs optUserId");
    }
    const queueIds = [...new Set(flat.map((i) => i.optQueueId).filter((v): v is number => typeof v === 'number'))];
    if (queueIds.length) {
      const found = await trx('queues').where({ companyId }).whereIn('id', queueIds).select('id');
      if (found.length !== queueIds.length) throw new AppError('ERR_NO_QUEUE_FOUND');
    }
  }

  /**
   * Within `trx` (the queue row already locked): replaces the children of `parent` (a queue's root options,
   * or an option's sub-options) with `items`, recursively:
   * - an item with `id` updates that option, which must already be in this subtree (else 404
   *   ERR_NO_CHATBOT_FOUND; options of another queue or company are never taken over); it may move to
   *   another place of the subtree; an item without `id` inserts a new option;
   * - `order` of each option becomes its index in its list;
   * - options of the subtree that the items do not mention are deleted with their sub-options, except the
   *   children of a mentioned item whose `options` key is absent (those are kept as they are).
   * Call `assertLimits` afterwards.
   */
  async replaceChildren(trx: Knex.Transaction, companyId: number, parent: { queueId: number } | { chatbotId: number }, items: ChatbotInput[]): Promise<void> {
    const existing = await this.rows(trx, companyId, 'queueId' in parent ? { queueId: parent.queueId } : { parentId: parent.chatbotId });
    const byId = new Map<number, Row>(existing.map((r) => [r.id, r]));
    const flat = flatten(items);
    for (const it of flat) if (it.id !== undefined && !byId.has(it.id)) throw new AppError('ERR_NO_CHATBOT_FOUND');
    await this.checkItems(trx, companyId, flat, byId);

    const explicit = new Set(flat.flatMap((i) => (i.id !== undefined ? [i.id] : [])));
    const children = new Map<number, number[]>();
    for (const r of existing) if (r.chatbotId !== null) children.set(r.chatbotId, [...(children.get(r.chatbotId) ?? []), r.id]);
    const kept = new Set(explicit);
    for (const it of flat) {
      if (it.id === undefined || it.options !== undefined) continue;
      const stack = [...(children.get(it.id) ?? [])];
      while (stack.length) {
        const id = stack.pop()!;
        if (explicit.has(id) || kept.has(id)) continue;
        kept.add(id);
        stack.push(...(children.get(id) ?? []));
      }
    }

    const save = async (list: ChatbotInput[], ref: { queueId: number | null; chatbotId: number | null }): Promise<void> => {
      for (const [order, it] of list.entries()) {
        const row = { ...columns(it), ...ref, order };
        let id = it.id;
        if (id !== undefined) {
          await trx('chatbots').where({ companyId, id }).update({ ...row, updatedAt: trx.fn.now() });
        } else {
          const [ins] = await trx('chatbots').insert({ ...row, companyId }).returning('id');
          id = ins.id as number;
        }
        if (it.options) await save(it.options, { queueId: null, chatbotId: id });
      }
    };
    await save(items, 'queueId' in parent ? { queueId: parent.queueId, chatbotId: null } : { queueId: null, chatbotId: parent.chatbotId });
    const gone = existing.filter((r) => !kept.has(r.id)).map((r) => r.id);
    if (gone.length) await trx('chatbots').where({ companyId }).whereIn('id', gone).del();
  }

  /** Within `trx`: 400 ERR_VALIDATION when the queue's tree is deeper than MAX_CHATBOT_DEPTH or too large. */
  async assertLimits(trx: Knex.Transaction, companyId: number, queueId: number): Promise<void> {
    const rows = await this.rows(trx, companyId, { queueId });
    if (rows.length > MAX_CHATBOT_OPTIONS) throw new AppError('ERR_VALIDATION', `a queue holds at most ${MAX_CHATBOT_OPTIONS} chatbot options`);
    if (rows.some((r) => r.lvl > MAX_CHATBOT_DEPTH)) throw new AppError('ERR_VALIDATION', `chatbot options nest at most ${MAX_CHATBOT_DEPTH} levels deep`);
  }

  /**
   * Within `trx`: locks the queue whose tree holds option `id` and answers it with the option's level;
   * 404 ERR_NO_CHATBOT_FOUND when the option is not in the company.
   */
  private async lockTreeOf(trx: Knex.Transaction, companyId: number, id: number): Promise<{ queueId: number; depth: number }> {
    const before = await this.locate(companyId, id, trx);
    if (!before) throw new AppError('ERR_NO_CHATBOT_FOUND');
    const queue = await trx('queues').where({ companyId, id: before.queueId }).forNoKeyUpdate().first('id');
    // Re-read under the lock: a concurrent edit may have moved or deleted the option meanwhile.
    const after = queue ? await this.locate(companyId, id, trx) : undefined;
    if (!after) throw new AppError('ERR_NO_CHATBOT_FOUND');
    if (after.queueId !== before.queueId) return this.lockTreeOf(trx, companyId, id);
    return after;
  }

  /**
   * Creates an option (with optional sub-options) as the last child of a queue (`{queueId}`: a root option)
   * or of an option (`{chatbotId}`). 404 ERR_NO_QUEUE_FOUND / ERR_NO_CHATBOT_FOUND for parents outside the
   * company; otherwise as `replaceChildren`. Answers the root queue's id and the new option with its children.
   */
  async create(companyId: number, input: ChatbotInput, parent: { queueId: number } | { chatbotId: number }): Promise<{ queueId: number; option: ChatbotNode }> {
    await this.precheck(companyId, [input]);
    try {
      return await this.db.transaction(async (trx) => {
        let queueId: number;
        if ('queueId' in parent) {
          const q = await trx('queues').where({ companyId, id: parent.queueId }).forNoKeyUpdate().first('id');
          if (!q) throw new AppError('ERR_NO_QUEUE_FOUND');
          queueId = q.id;
        } else {
          queueId = (await this.lockTreeOf(trx, companyId, parent.chatbotId)).queueId;
        }
        const flat = flatten([input]);
        if (flat.some((i) => i.id !== undefined)) throw new AppError('ERR_NO_CHATBOT_FOUND');
        await this.checkItems(trx, companyId, [{ ...input, options: undefined }], new Map());
        const ref = 'queueId' in parent ? { queueId, chatbotId: null } : { queueId: null, chatbotId: parent.chatbotId };
        const last = await trx('chatbots').where({ companyId, ...ref }).max({ m: 'order' }).first();
        const order = last?.m === null || last?.m === undefined ? 0 : Number(last.m) + 1;
        const [ins] = await trx('chatbots').insert({ ...columns(input), ...ref, companyId, order }).returning('id');
        if (input.options?.length) await this.replaceChildren(trx, companyId, { chatbotId: ins.id }, input.options);
        await this.assertLimits(trx, companyId, queueId);
        return { queueId, option: (await this.getOption(companyId, ins.id, trx))! };
      });
    } catch (err) {
      mapChatbotFkViolation(err);
    }
  }

  /**
   * Updates option `id` (given fields only) and, when `input.options` is a list, upserts its sub-options as
   * `replaceChildren`. 404 ERR_NO_CHATBOT_FOUND outside the company. Answers the root queue's id and the
   * option with its children.
   */
  async update(companyId: number, id: number, input: ChatbotInput): Promise<{ queueId: number; option: ChatbotNode }> {
    await this.precheck(companyId, [input]);
    try {
      return await this.db.transaction(async (trx) => {
        const { queueId } = await this.lockTreeOf(trx, companyId, id);
        const current = await trx('chatbots').where({ companyId, id }).first();
        await this.checkItems(trx, companyId, [{ ...input, id, options: undefined }], new Map([[id, current]]));
        const row = columns(input);
        if (Object.keys(row).length) await trx('chatbots').where({ companyId, id }).update({ ...row, updatedAt: trx.fn.now() });
        if (input.options !== undefined) await this.replaceChildren(trx, companyId, { chatbotId: id }, input.options);
        await this.assertLimits(trx, companyId, queueId);
        return { queueId, option: (await this.getOption(companyId, id, trx))! };
      });
    } catch (err) {
      mapChatbotFkViolation(err);
    }
  }

  /** Deletes option `id` and its sub-options; 404 ERR_NO_CHATBOT_FOUND outside the company. Answers its queue. */
  async remove(companyId: number, id: number): Promise<{ queueId: number }> {
    return this.db.transaction(async (trx) => {
      const { queueId } = await this.lockTreeOf(trx, companyId, id);
      await trx('chatbots').where({ companyId, id }).del();
      return { queueId };
    });
  }
}
