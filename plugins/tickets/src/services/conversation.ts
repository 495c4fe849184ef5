import { BatchLoader, PermanentError, RetryableError, WriteBatcher, type BusMessage, type Contributions, type Subscription } from '@atendo/sdk';
import type { Contact } from '@atendo/plugin-contacts/contract';
import { messageStored, type ConversationHandler, type ConversationTurn, type MessageStoredEvent } from '../contract';
import type { MessageRow, TicketRow } from '../model';
import { camelRow } from '@atendo/sdk';
import { ticketSnapshot } from './core';
import type { TicketsDeps } from './deps';
import { AdaptiveLimit, BUSY_TURN_REST_MAX_MS, BUSY_TURN_REST_RATIO, InboundPressure } from './pressure';

/**
 * The conversation-handler chain (contract.ts `conversationHandlers`): every stored inbound message (not
 * ours, not a private note) is offered to the contributed handlers, lowest `order` first, until one answers
 * 'handled'.
 *
 * - Consumer of `message.stored` on its own durable queue `tickets.conversation` (competing across kernels;
 *   prefetch 64, 5 retries 1 s apart), so handlers never slow the inbound pipeline. At most 8 turns run at
 *   once per process (TURN_CONCURRENCY), one while the inbound pipeline is busy (pressure.ts: ingestion
 *   first); the other events in flight are pre-checks and skipped messages, which share statements (the
 *   more wait together, the fewer statements per message).
 * - At most once per message: a turn is a `conversation_turns` row (primary key: the message), claimed
 *   (`running`, committed) before its handlers run. A redelivered or duplicated event finds it `done` (or
 *   claimed) and does nothing; a process dying mid-turn leaves it `running` and it is not run again.
 * - In order per ticket, one turn of a ticket at a time (across kernels): turns are claimed oldest message
 *   first under a per-ticket advisory lock held only for the claim (one statement), and not while another turn of the
 *   ticket runs (a `running` turn older than 5 minutes no longer counts). An event also queues the ticket's
 *   earlier inbound messages of the last 2 minutes that have no turn yet, so a later message never
 *   overtakes an earlier one whose event is still on its way.
 * - A handler that throws is logged; the turn becomes `failed` and the bus retries the event (the chain
 *   restarts at the first handler). After 5 tries the turn is `abandoned` and the ticket's next turns run.
 * - With no handler contributed nothing is recorded. When every handler's `wants` pre-check says no, the
 *   message is recorded as a `done` turn (batched with others in one statement, in the ticket's chain of
 *   this process) and no handler runs;
 *   otherwise only the handlers that said yes run on its turn.
 */

/** The chain's consumer queue (dead letters in `tickets.conversation.dlq`). */
export const CONVERSATION_QUEUE = 'tickets.conversation';
/** Subscription options of the chain's consumer. */
export const CONVERSATION_SUBSCRIPTION = { queue: CONVERSATION_QUEUE, prefetch: 64, maxRetries: 5, retryDelayMs: 1_000 } as const;
/**
 * Turns (claim, handlers, outcome) running at once in one process while the inbound pipeline is not busy.
 * More answered turns in parallel cost the inbound pipeline more than they gain (measured: 32 answered
 * twice the turns of 8 and cost inbound 40 %).
 */
export const TURN_CONCURRENCY = 8;
/** Turns running at once while the inbound pipeline is busy (pressure.ts: ingestion first). */
export const BUSY_TURN_CONCURRENCY = 1;
/** Tries of one turn before it is abandoned. */
export const MAX_TURN_ATTEMPTS = 5;
/** A `running` turn older than this no longer holds its ticket (its process is presumed dead), in milliseconds. */
export const TURN_LEASE_MS = 5 * 60_000;
/** How long a skipped message's record waits for others to share its INSERT (milliseconds). */
const SKIP_LINGER_MS = 10;
/** Earlier inbound messages of the ticket queued with an event: those stored within this many milliseconds. */
const CATCH_UP_MS = 2 * 60_000;
/** How long an event waits for a turn of its ticket running on another kernel before the bus retries it. */
const BUSY_WAIT_MS = 30_000;

/** A `conversation_turns` row. */
interface TurnRow {
  messageId: number;
  companyId: number;
  ticketId: number;
  state: 'pending' | 'running' | 'done' | 'failed' | 'abandoned';
  attempts: number;
  handledBy: string | null;
}

/** A claimed turn, with its message and ticket rows when the claim returned them. */
interface ClaimedTurn extends TurnRow {
  message?: MessageRow;
  ticket?: TicketRow;
}

/** One claim of `claimNext` (the arguments of `tickets_conversation_claim`). */
interface ClaimInput {
  companyId: number;
  ticketId: number;
  messageId: number;
  record: boolean;
}

/** A row of `tickets_conversation_claim`. */
interface ClaimRow {
  message_id: string | number | null;
  state: TurnRow['state'];
  attempts: number;
  handled_by: string | null;
  busy: boolean;
  message_row: Record<string, unknown> | null;
  ticket_row: Record<string, unknown> | null;
}

/** The outcome of a turn (`finish`). */
interface TurnOutcome {
  messageId: number;
  state: 'done' | 'failed' | 'abandoned';
  handledBy: string | null;
  error: string | null;
}

const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= Number.MAX_SAFE_INTEGER;

/** The chain of one process (see the module docstring). */
export class ConversationChain {
  /** Per ticket, the events of this process waiting for the previous one (arrival order). */
  private readonly chains = new Map<string, Promise<void>>();
  /**
   * Messages no handler wants, recorded as done turns: one INSERT per SKIP_LINGER_MS at most (nobody waits
   * for them but the bus acknowledgement and the ticket's next turn in this process).
   */
  private readonly skipped: WriteBatcher<{ messageId: number; companyId: number; ticketId: number }>;
  /**
   * The turns running at once: TURN_CONCURRENCY, or BUSY_TURN_CONCURRENCY while the inbound pipeline is
   * busy (`pressure`); a ticket's later events wait behind its chain first.
   */
  private readonly turns: AdaptiveLimit;
  /**
   * The round trips every turn makes, shared by the turns making them at the same time (group commit, see
   * BatchLoader): the claim, the turn's contact, its outcome.
   */
  private readonly claims: BatchLoader<ClaimInput, ClaimRow | undefined>;
  private readonly contactsOf: BatchLoader<{ companyId: number; contactId: number }, Contact | undefined>;
  private readonly outcomes: WriteBatcher<TurnOutcome>;

  constructor(
    private readonly deps: TicketsDeps,
    private readonly contributions: Contributions<ConversationHandler>,
    pressure?: InboundPressure,
  ) {
    this.turns = new AdaptiveLimit(
      () => (pressure?.busy() ? BUSY_TURN_CONCURRENCY : TURN_CONCURRENCY),
      (ran) => (pressure?.busy() ? Math.min(BUSY_TURN_REST_MAX_MS, ran * BUSY_TURN_REST_RATIO) : 0),
    );
    this.skipped = new WriteBatcher((items) =>
      this.deps.db.raw(
        `INSERT INTO conversation_turns (message_id, company_id, ticket_id, state)
         SELECT m, c, t, 'done' FROM unnest(?::bigint[], ?::int[], ?::int[]) AS v(m, c, t)
         ON CONFLICT (message_id) DO NOTHING`,
        [items.map((i) => i.messageId), items.map((i) => i.companyId), items.map((i) => i.ticketId)],
      ),
      { lingerMs: SKIP_LINGER_MS },
    );
    this.claims = new BatchLoader((items) => this.claimMany(items));
    this.contactsOf = new BatchLoader(async (items) => {
      const byCompany = new Map<number, number[]>();
      for (const i of items) byCompany.set(i.companyId, [...(byCompany.get(i.companyId) ?? []), i.contactId]);
      const found = new Map<string, Contact>();
      for (const [companyId, ids] of byCompany) {
        // The plain rows (one statement per company): a turn carries no tags or extra info.
        for (const c of await this.deps.contacts.getMany(companyId, [...new Set(ids)])) found.set(`${companyId}:${c.id}`, c);
      }
      return items.map((i) => found.get(`${i.companyId}:${i.contactId}`));
    });
    this.outcomes = new WriteBatcher((items) =>
      this.deps.db.raw(
        `UPDATE conversation_turns AS c SET state = v.state, handled_by = v.handled_by, error = v.error, updated_at = now()
         FROM unnest(?::bigint[], ?::varchar[], ?::varchar[], ?::text[]) AS v(message_id, state, handled_by, error)
         WHERE c.message_id = v.message_id`,
        // Arrays with nulls (pg sends them as array literals): knex's binding type has no such member.
        [items.map((i) => i.messageId), items.map((i) => i.state), items.map((i) => i.handledBy), items.map((i) => i.error)] as unknown as readonly string[],
      ),
    );
  }

  /** The handlers, lowest `order` first (then by id, so the order is stable). */
  handlers(): ConversationHandler[] {
    return [...this.contributions.all()].sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The bus handler of `message.stored`. Throws PermanentError for a malformed payload, RetryableError to retry. */
  handle = async (m: BusMessage<MessageStoredEvent>): Promise<void> => {
    const p = m.payload;
    if (!p || !isId(p.companyId) || !isId(p.ticketId) || !isId(p.messageId)) throw new PermanentError('message.stored: malformed payload');
    if (p.fromMe || p.isPrivate || !this.contributions.all().length) return;
    const wanting = await this.wanted(p);
    const key = `${p.companyId}:${p.ticketId}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    // No handler would take it: recorded as done (so a later turn's catch-up does not offer it), nothing
    // run. In the ticket's chain like a turn, so this process's next turn of the ticket waits for the record.
    const run = wanting.size
      ? previous.then(() => this.turns.run(() => this.drain(p.companyId, p.ticketId, p.messageId, wanting)))
      : previous.then(() => this.skipped.add({ messageId: p.messageId, companyId: p.companyId, ticketId: p.ticketId }));
    const settled = run.catch(() => undefined);
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return run;
  };

  /**
   * The ids of the handlers that may take the message (`wants`; a handler without it, or whose check
   * throws, may). Only those run on its turn: a handler that said no costs its pre-check alone.
   */
  private async wanted(p: MessageStoredEvent): Promise<Set<string>> {
    const out = new Set<string>();
    await Promise.all(
      [...this.contributions.all()].map(async (h) => {
        if (!h.wants) return void out.add(h.id);
        try {
          if (await h.wants(p)) out.add(h.id);
        } catch (err) {
          this.deps.log.warn({ err, handler: h.id }, "conversation: a handler's wants() failed (taken as true)");
          out.add(h.id);
        }
      }),
    );
    return out;
  }

  /**
   * Queues the turn of `messageId` (and earlier ones of the ticket without a turn), then runs the ticket's
   * turns up to it: `messageId`'s with the handlers in `wanting`, earlier ones (caught up) with every handler.
   */
  private async drain(companyId: number, ticketId: number, messageId: number, wanting: ReadonlySet<string>): Promise<void> {
    const waitUntil = Date.now() + BUSY_WAIT_MS;
    // The first claim also records the turns (one transaction, one commit for both).
    for (let first = true; ; first = false) {
      const claim = await this.claimNext(companyId, ticketId, messageId, first);
      if (claim === 'none') return;
      if (claim === 'busy') {
        if (Date.now() > waitUntil) throw new RetryableError(`conversation: a turn of ticket ${ticketId} is running elsewhere`);
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      await this.run(claim, claim.messageId === messageId ? wanting : undefined);
      // Turns are claimed oldest first up to `messageId`: once its own turn ran, every earlier open one has
      // too (a turn that fails throws out of here); later ones are run by their own events.
      if (claim.messageId === messageId) return;
    }
  }

  /**
   * Claims the ticket's oldest open turn (pending or failed) up to `messageId`, holding the ticket's advisory
   * lock for the claim only: 'busy' while another turn of the ticket runs, 'none' when nothing is left. With
   * `record`, first queues the turn of `messageId` and the ticket's earlier inbound messages of the last
   * CATCH_UP_MS that have none (idempotent). One statement: the `tickets_conversation_claim` function
   * (migration 20261202100000) does it all in the statement's own transaction, shared with the other turns
   * claiming at the same time (claimMany).
   */
  private async claimNext(companyId: number, ticketId: number, messageId: number, record: boolean): Promise<ClaimedTurn | 'busy' | 'none'> {
    const row = await this.claims.load({ companyId, ticketId, messageId, record });
    if (!row) return 'none';
    if (row.busy) return 'busy';
    return {
      messageId: Number(row.message_id),
      companyId,
      ticketId,
      state: row.state,
      attempts: row.attempts,
      handledBy: row.handled_by,
      // The turn's rows, read by the claim itself (JSON: snake_case keys, timestamps as ISO strings).
      message: row.message_row ? camelRow<MessageRow>(row.message_row) : undefined,
      ticket: row.ticket_row ? camelRow<TicketRow>(row.ticket_row) : undefined,
    };
  }

  /**
   * The claims of the turns claiming at the same time, in one statement: `tickets_conversation_claim` once
   * per ticket (LATERAL), in ticket order so that two processes' statements take the tickets' advisory locks
   * in the same order (no deadlock). A ticket's claims never overlap in one process (its chain runs them one
   * after the other). One row per input, undefined for 'none'.
   */
  private async claimMany(items: ClaimInput[]): Promise<(ClaimRow | undefined)[]> {
    const order = items.map((_, i) => i).sort((a, b) => items[a].companyId - items[b].companyId || items[a].ticketId - items[b].ticketId);
    const catchUp = new Date(Date.now() - CATCH_UP_MS);
    const runningAfter = new Date(Date.now() - TURN_LEASE_MS);
    const { rows } = (await this.deps.db.raw(
      `SELECT v.i, c.* FROM unnest(?::int[], ?::int[], ?::bigint[], ?::boolean[]) WITH ORDINALITY AS v(company_id, ticket_id, message_id, record, i)
       CROSS JOIN LATERAL tickets_conversation_claim(v.company_id, v.ticket_id, v.message_id, v.record, ?, ?) AS c
       ORDER BY v.i`,
      [order.map((i) => items[i].companyId), order.map((i) => items[i].ticketId), order.map((i) => items[i].messageId), order.map((i) => items[i].record), catchUp, runningAfter],
    )) as { rows: (ClaimRow & { i: string | number })[] };
    const out = new Array<ClaimRow | undefined>(items.length);
    for (const r of rows) out[order[Number(r.i) - 1]] = r;
    return out;
  }

  /** Runs the handlers on a claimed turn and records the outcome; rethrows a handler's error (RetryableError) unless abandoned. */
  private async run(turn: ClaimedTurn, only?: ReadonlySet<string>): Promise<void> {
    const { log } = this.deps;
    const finish = (o: Omit<TurnOutcome, 'messageId'>) => this.outcomes.add({ messageId: turn.messageId, ...o });
    let current: ConversationHandler | undefined;
    try {
      const input = await this.load(turn);
      let handledBy: string | null = null;
      if (input) {
        for (const h of this.handlers()) {
          if (only && !only.has(h.id)) continue;
          current = h;
          const answer = await h.onMessage(input);
          if (answer === 'handled') {
            handledBy = h.id;
            break;
          }
          if (answer !== 'pass') log.warn({ handler: h.id, answer: String(answer).slice(0, 50) }, "conversation: a handler answered neither 'handled' nor 'pass' (taken as 'pass')");
        }
      }
      await finish({ state: 'done', handledBy: handledBy?.slice(0, 100) ?? null, error: null });
    } catch (err) {
      const abandoned = turn.attempts >= MAX_TURN_ATTEMPTS;
      log.error({ err, handler: current?.id, companyId: turn.companyId, ticketId: turn.ticketId, messageId: turn.messageId, attempt: turn.attempts }, 'conversation: a handler failed');
      await finish({ state: abandoned ? 'abandoned' : 'failed', handledBy: null, error: String((err as Error)?.message ?? err).slice(0, 1000) });
      if (!abandoned) throw new RetryableError(`conversation: handler ${current?.id ?? '?'} failed on message ${turn.messageId}`, { cause: err });
    }
  }

  /** The turn as handlers see it (current ticket and contact), or undefined when the message, ticket or contact is gone. */
  private async load(turn: ClaimedTurn): Promise<ConversationTurn | undefined> {
    const { db, uploads } = this.deps;
    // Both rows come with the claim; read here only for a turn claimed without them.
    const [message, ticket] = await Promise.all([
      turn.message ?? (db('messages').where({ id: turn.messageId, companyId: turn.companyId }).first() as Promise<MessageRow | undefined>),
      turn.ticket ?? (db('tickets').where({ id: turn.ticketId, companyId: turn.companyId }).first() as Promise<TicketRow | undefined>),
    ]);
    if (!message || !ticket) return undefined;
    const contact = await this.contactsOf.load({ companyId: turn.companyId, contactId: ticket.contactId });
    if (!contact) return undefined;
    return {
      companyId: turn.companyId,
      ticket: ticketSnapshot(ticket),
      contact: {
        id: contact.id,
        name: contact.name,
        number: contact.number,
        email: contact.email,
        channel: contact.channel,
        isGroup: contact.isGroup,
        disableBot: contact.disableBot,
        lgpdAcceptedAt: contact.lgpdAcceptedAt,
      },
      message: {
        id: Number(message.id),
        wid: message.wid,
        body: message.body,
        mediaType: message.mediaType,
        mediaUrl: message.mediaPath ? uploads.url(turn.companyId, message.mediaPath) : null,
        mediaName: message.mediaName,
        quotedMsgId: message.quotedMsgId === null ? null : Number(message.quotedMsgId),
        isForwarded: message.isForwarded,
        senderContactId: message.contactId,
        createdAt: new Date(message.createdAt).toISOString(),
      },
    };
  }

  /** Turns running and waiting for a slot in this process now (the `atendo_conversation_turns` gauge). */
  turnCounts(): { running: number; waiting: number } {
    return { running: this.turns.active, waiting: this.turns.pending };
  }

  /** Resolves once every event taken so far by this process has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.chains.size) await Promise.all([...this.chains.values()]);
  }
}

/**
 * Starts the chain's consumer (see the module docstring). Returns the chain and the stop function (for
 * `ctx.onClose`): it stops consuming, then waits for the turns in progress.
 */
export async function subscribeConversation(deps: TicketsDeps, contributions: Contributions<ConversationHandler>, pressure?: InboundPressure): Promise<{ chain: ConversationChain; close: () => Promise<void> }> {
  const chain = new ConversationChain(deps, contributions, pressure);
  const sub: Subscription = await deps.bus.subscribe(messageStored, chain.handle, CONVERSATION_SUBSCRIPTION);
  return {
    chain,
    close: async () => {
      await sub.unsubscribe();
      await chain.idle();
    },
  };
}
