import type { FastifyBaseLogger } from 'fastify';
import type { Bus, IdentityService, Jobs } from '@atendo/sdk';
import { BOT_FILE_REQUESTED, RATING_RECORDED } from '../contract';
import { parseConsent, parseNpsScore, queuePositionText, renderLgpd, renderNpsPrompt, roundRobin, waitingPositions } from '../rules/answers';
import { closedWindow, hoursSource, windowKey, type ScheduleRow } from '../rules/hours';
import { joinParts, parseMenuInput, pickQueue, renderQueueMenu, sortQueues } from '../rules/menu';
import { DEFAULT_TIME_ZONE, renderTemplate, type TemplateVars } from '../rules/template';
import { TEXTS } from '../rules/texts';
import { navigate, optionAction, renderOptions, resolvePath, type BotOption } from '../rules/tree';
import { JOBS } from './jobs';
import type { BotConnection, BotContact, BotMessage, BotQueue, BotTicket, ConnectionsPort, ContactsPort, FilesPort, QueuesPort, TicketsPort } from './ports';
import type { AutomationStore, StatePatch, StateRow } from './store';

/** What a conversation handler answers (the tickets plugin's chain). */
export type TurnResult = 'handled' | 'pass';

/** One inbound message to answer. */
/**
 * The ticket-only guards of `BotEngine.onMessage` (also the conversation chain's `wants` pre-check): false
 * where the bot passes whatever the contact and the message. The bot may take a ticket of a connection that
 * waits for an NPS or LGPD answer, or one pending without an attendant, an integration or a prompt.
 */
export function botMayTake(t: Pick<BotTicket, 'whatsappId' | 'status' | 'userId' | 'useIntegration' | 'promptId'>): boolean {
  if (t.whatsappId === null) return false;
  if (t.status === 'nps' || t.status === 'lgpd') return true;
  return t.status === 'pending' && t.userId === null && !t.useIntegration && t.promptId === null;
}

export interface Turn {
  companyId: number;
  ticket: BotTicket;
  contact: BotContact;
  message: BotMessage;
}

export interface EngineDeps {
  store: AutomationStore;
  tickets: TicketsPort;
  queues: QueuesPort;
  connections: ConnectionsPort;
  contacts: ContactsPort;
  /** The files plugin's sender, when that plugin is installed (chatbot `file` options, queues' `fileListId`). */
  files?: FilesPort;
  identity: IdentityService;
  jobs: Jobs;
  bus: Bus;
  log: FastifyBaseLogger;
  /** The clock (tests fix it). */
  now: () => Date;
}

/** Waiting positions of a queue are recomputed this long after it moves (bursts coalesce). */
const POSITION_DELAY_MS = 1000;
/** Most tickets one router run or position update looks at. */
const QUEUE_SCAN_LIMIT = 500;

const enabled = (v: string | undefined) => v === 'enabled';
const minutes = (n: number) => n * 60_000;

/** The company settings the bot reads (1-platform.md §3; wire "CompaniesSettings"). */
interface BotSettings {
  scheduleType: string;
  enableLGPD: boolean;
  lgpdConsent: boolean;
  lgpdMessage: string;
  lgpdLink: string;
  sendGreetingMessageOneQueues: boolean;
  userRandom: boolean;
  sendQueuePosition: boolean;
  userRating: boolean;
  hoursCloseTicketsAuto: number;
  timeZone: string;
}

/** The bot fields of the ticket a reply may carry (written with the message). */
type TicketFlags = { isBot?: boolean; amountUsedBotQueues?: number };
/** Sends one reply of the turn (nothing for an empty text), with `ticket` flags written alongside. */
type Send = (text: string, ticket?: TicketFlags) => Promise<void>;

/** The ticket fields a prompt sets: `isBot` (and the prompt count) when the bot takes the ticket; none after. */
function botFlags(t: Pick<BotTicket, 'isBot'>, patch: StatePatch): TicketFlags | undefined {
  return t.isBot ? undefined : { isBot: true, ...(patch.menuUses !== undefined ? { amountUsedBotQueues: patch.menuUses } : {}) };
}

/** Reply parts of one turn, sent as one message (so the customer gets them in order). */
class Reply {
  readonly parts: string[] = [];
  add(...parts: (string | null | undefined)[]): this {
    for (const p of parts) if (p && p.trim()) this.parts.push(p.trim());
    return this;
  }
  text(): string {
    return joinParts(...this.parts);
  }
}

/**
 * The bot: decides and acts on each inbound message of a ticket (the first conversation handler), on
 * ticket events (NPS on close, waiting positions, router) and on its timers (see jobs.ts). Every action
 * goes through the other plugins' services; its own state is in AutomationStore.
 */
export class BotEngine {

  constructor(private readonly d: EngineDeps) {}

  // -------------------------------------------------------------------------------------------------
  // Settings and context

  /**
   * The company's bot settings, asked at every conversation turn and timer: the kernel's per-node settings
   * cache serves them (a change through the settings routes applies to the next message, on every node once
   * its settings event arrives).
   */
  async settings(companyId: number): Promise<BotSettings> {
    const s = await this.d.identity.getCompanySettings(companyId);
    const hours = Number(s.hoursCloseTicketsAuto);
    const value: BotSettings = {
      scheduleType: s.scheduleType ?? 'disabled',
      enableLGPD: enabled(s.enableLGPD),
      lgpdConsent: enabled(s.lgpdConsent),
      lgpdMessage: s.lgpdMessage ?? '',
      lgpdLink: s.lgpdLink ?? '',
      sendGreetingMessageOneQueues: enabled(s.sendGreetingMessageOneQueues),
      userRandom: enabled(s.userRandom),
      sendQueuePosition: enabled(s.sendQueuePosition),
      userRating: enabled(s.userRating),
      // Hours; the default 9999999999 (and anything past ten years) means never.
      hoursCloseTicketsAuto: Number.isFinite(hours) && hours > 0 && hours < 24 * 366 * 10 ? hours : 0,
      timeZone: s.timeZone || DEFAULT_TIME_ZONE,
    };
    return value;
  }

  private async vars(t: BotTicket, contact: { name: string } | undefined, conn: BotConnection | undefined, tz: string, extra: Partial<TemplateVars> = {}): Promise<TemplateVars> {
    return { contactName: contact?.name, connectionName: conn?.name, ticketId: t.id, now: this.d.now(), timeZone: tz, ...extra };
  }

  private async send(t: BotTicket, text: string, ticket?: TicketFlags): Promise<void> {
    if (text.trim()) await this.d.tickets.sendText(t.companyId, t.id, text, ticket);
  }

  // -------------------------------------------------------------------------------------------------
  // The conversation handler

  /**
   * The conversation chain's pre-check of an inbound message (its event's ticket, before any turn is
   * recorded): false where `onMessage` would pass whatever the contact and message say:
   * - `botMayTake` fails, the connection is gone or does not take groups;
   * - the bot has nothing to say on the connection: a pending ticket without a queue, not flagged out of
   *   hours, on a connection with no greeting and no queues, in a company without LGPD consent or
   *   company/connection hours (a fresh install: its turn would only record that humans take over, so no
   *   turn is run and no state kept; a greeting or queues added later apply to the ticket's next message);
   * - the bot handed the ticket to humans (one indexed read, shared by the pre-checks waiting together;
   *   most messages of a conversation come after that, and they then cost that read instead of a turn).
   */
  async wants(companyId: number, t: Pick<BotTicket, 'id' | 'whatsappId' | 'status' | 'userId' | 'useIntegration' | 'promptId' | 'isGroup' | 'queueId' | 'isOutOfHour'>): Promise<boolean> {
    if (t.whatsappId === null || !botMayTake(t)) return false;
    if (t.status === 'nps' || t.status === 'lgpd') return true;
    const conn = await this.d.connections.get(companyId, t.whatsappId);
    if (!conn || (t.isGroup && conn.groupAsTicket !== 'enabled')) return false;
    if (t.queueId === null && !t.isOutOfHour && !conn.queues.length && !conn.greetingMessage?.trim()) {
      const s = await this.settings(companyId);
      if (!s.enableLGPD && s.scheduleType !== 'company' && s.scheduleType !== 'connection') return false;
    }
    return (await this.d.store.stageOf(companyId, t.id)) !== 'human';
  }

  /**
   * Answers one inbound message (the conversation handler of order 0). Passes (`pass`) on: our own
   * messages, contacts with `disableBot` or blocked, group chats unless the connection has
   * `groupAsTicket`, tickets an attendant owns, tickets another handler took (`useIntegration`, a prompt),
   * tickets the bot handed to humans. Otherwise acts once per inbound message id (`handled`).
   */
  async onMessage(turn: Turn): Promise<TurnResult> {
    const { ticket: t, contact, message } = turn;
    if (message.fromMe || contact.disableBot || !contact.active) return 'pass';
    if (t.whatsappId === null || !botMayTake(t)) return 'pass';
    const botStatus = t.status === 'nps' || t.status === 'lgpd';
    const conn = await this.d.connections.get(t.companyId, t.whatsappId);
    if (!conn) return 'pass';
    if (t.isGroup && conn.groupAsTicket !== 'enabled') return 'pass';
    // Tickets the bot handed to humans were filtered out by `wants` (one read, no turn); one that got here
    // anyway (a race) passes under the lease below.

    // The lease and the message's claim are one statement (withTurn's `claim`).
    return this.d.store.withTurn(t.companyId, t.id, async (state, claimed) => {
      if (state.stage === 'human' && !botStatus) {
        if (claimed) await this.d.store.unclaim(t.companyId, message.id);
        return 'pass';
      }
      if (!claimed) return 'handled';
      // Re-read the ticket under the turn (another node may have moved it since the chain read it) and read
      // the settings, in parallel (each is a round trip).
      const [row, settings] = await Promise.all([this.d.tickets.get(t.companyId, t.id), this.settings(t.companyId)]);
      const fresh = row ?? t;
      let acted = false;
      try {
        const result = await this.turn({ ...turn, ticket: fresh }, conn, state, () => (acted = true), settings);
        if (result === 'pass') await this.d.store.unclaim(t.companyId, message.id);
        return result;
      } catch (err) {
        // Nothing went out: give the claim back so a redelivery may answer. Something did: keep it (at most once).
        if (!acted) await this.d.store.unclaim(t.companyId, message.id);
        throw err;
      }
    }, { claim: message.id });
  }

  private async turn(turn: Turn, conn: BotConnection, state: StateRow, markActed: () => void, settings?: BotSettings): Promise<TurnResult> {
    const { ticket: t, contact, message } = turn;
    const s = settings ?? (await this.settings(t.companyId));
    const send: Send = async (text, ticket) => {
      if (!text.trim()) return;
      markActed();
      await this.send(t, text, ticket);
    };

    if (t.status === 'nps') return this.npsAnswer(t, conn, state, message, s, send);
    if (t.status === 'lgpd') return this.lgpdAnswer(t, conn, contact, state, message, s, send, markActed);
    if (t.status !== 'pending' || t.userId !== null) return 'pass';

    const reply = new Reply();
    // LGPD: a contact who never accepted the terms gets them first.
    if (s.enableLGPD && !contact.lgpdAcceptedAt && !t.isGroup) {
      const text = renderLgpd(s.lgpdMessage, s.lgpdLink, s.lgpdConsent);
      if (s.lgpdConsent) {
        await send(text);
        await this.d.tickets.update(t.companyId, t.id, { status: 'lgpd', isBot: true });
        await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'lgpd' });
        await this.d.store.save(t.companyId, t.id, { stage: 'lgpd', lgpdUses: 1 });
        return 'handled';
      }
      // Information only: shown once, then the conversation goes on.
      reply.add(text);
      await this.d.contacts.setLgpdAcceptedAt(t.companyId, contact.id, this.d.now());
    }

    // Hours of the company or the connection (type queue: once the ticket has a queue, see enterQueue).
    if (s.scheduleType === 'company' || s.scheduleType === 'connection') {
      const company = s.scheduleType === 'company' ? await this.d.identity.getCompany(t.companyId) : undefined;
      const src = hoursSource(s.scheduleType, { companySchedules: (company?.schedules ?? []) as ScheduleRow[], connection: conn });
      if (src && (await this.outOfHours(t, contact, conn, src, s, reply, send))) return 'handled';
    }
    if (t.isOutOfHour) await this.d.tickets.update(t.companyId, t.id, { isOutOfHour: false });

    if (t.queueId === null) return this.queueMenu(t, conn, contact, state, message, s, reply, send);

    if (state.stage === 'options' && state.queueId === t.queueId) return this.treeAnswer(t, conn, contact, state, message, s, reply, send);
    if (state.stage === null && conn.queues.length === 1 && conn.queues[0].id === t.queueId) {
      // A connection with one queue: the ticket was opened in it; the greeting per sendGreetingMessageOneQueues.
      const queue = await this.d.queues.getQueue(t.companyId, t.queueId);
      if (!queue) return 'pass';
      if (s.sendGreetingMessageOneQueues) reply.add(renderTemplate(conn.greetingMessage ?? '', await this.vars(t, contact, conn, s.timeZone)));
      return this.enterQueue(t, conn, contact, queue, s, reply, send, { moved: false });
    }
    if (reply.parts.length) await send(reply.text());
    return reply.parts.length ? 'handled' : 'pass';
  }

  /**
   * Out of hours: flags the ticket `isOutOfHour` and sends `src.message` (with what the turn had to say
   * before), at most once per closed window, contact and scope. True when the ticket is out of hours.
   */
  private async outOfHours(
    t: BotTicket,
    contact: BotContact,
    conn: BotConnection,
    src: { scope: string; schedules: readonly ScheduleRow[]; message: string | null },
    s: BotSettings,
    reply: Reply,
    send: Send,
  ): Promise<boolean> {
    const now = this.d.now();
    const w = closedWindow(src.schedules, now, s.timeZone);
    if (!w) return false;
    if (!t.isOutOfHour) await this.d.tickets.update(t.companyId, t.id, { isOutOfHour: true });
    const first = await this.d.store.firstInWindow(t.companyId, contact.id, conn.id, src.scope, windowKey(w, now, s.timeZone));
    if (first) reply.add(renderTemplate(src.message ?? '', await this.vars(t, contact, conn, s.timeZone)));
    if (reply.parts.length) {
      await send(reply.text());
      await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'outOfHours', scope: src.scope });
    }
    return true;
  }

  // -------------------------------------------------------------------------------------------------
  // Queue menu

  private async connectionQueues(companyId: number, conn: BotConnection): Promise<BotQueue[]> {
    const queues = await Promise.all(conn.queues.map((q) => this.d.queues.getQueue(companyId, q.id)));
    return sortQueues(queues.filter((q): q is BotQueue => Boolean(q)));
  }

  /** A pending ticket without a queue: greeting + menu, then the customer's numeric answer. */
  private async queueMenu(t: BotTicket, conn: BotConnection, contact: BotContact, state: StateRow, message: BotMessage, s: BotSettings, reply: Reply, send: Send): Promise<TurnResult> {
    const queues = await this.connectionQueues(t.companyId, conn);
    const vars = await this.vars(t, contact, conn, s.timeZone);
    const greeting = renderTemplate(conn.greetingMessage ?? '', vars);
    if (!queues.length) {
      // Nothing to choose: the greeting once, then humans.
      if (state.stage === null) {
        reply.add(greeting);
        await send(reply.text());
        await this.d.store.save(t.companyId, t.id, { stage: 'human' });
        return reply.parts.length ? 'handled' : 'pass';
      }
      return 'pass';
    }
    if (state.stage !== 'menu') {
      reply.add(renderQueueMenu(greeting, queues));
      await this.prompt(t, conn, send, reply.text(), { stage: 'menu', menuUses: 1, path: [], queueId: null }, { step: 'menu' });
      return 'handled';
    }
    const input = parseMenuInput(message.body);
    const chosen = pickQueue(queues, input);
    if (chosen) {
      await this.d.jobs.cancel(JOBS.botTimeout, `bot:${t.id}`);
      const moved = await this.d.tickets.toQueue(t.companyId, t.id, chosen.id);
      await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'queue', queueId: chosen.id, choice: input.kind === 'number' ? input.n : null });
      return this.enterQueue(moved, conn, contact, chosen, s, reply, send, { moved: true });
    }
    if (input.kind === 'back' || input.kind === 'start') {
      reply.add(renderQueueMenu(greeting, queues));
      await this.prompt(t, conn, send, reply.text(), { stage: 'menu' }, { step: 'menu' });
      return 'handled';
    }
    if (state.menuUses < Math.max(1, conn.maxUseBotQueues)) {
      reply.add(renderQueueMenu(greeting, queues, { invalid: true }));
      await this.prompt(t, conn, send, reply.text(), { stage: 'menu', menuUses: state.menuUses + 1 }, { step: 'menu', invalid: true });
      return 'handled';
    }
    // Out of tries: the ticket waits without a queue for a human.
    await this.d.jobs.cancel(JOBS.botTimeout, `bot:${t.id}`);
    await this.d.store.save(t.companyId, t.id, { stage: 'human' });
    await this.d.tickets.update(t.companyId, t.id, { isBot: false });
    await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'menuExhausted', uses: state.menuUses });
    if (reply.parts.length) await send(reply.text());
    return 'handled';
  }

  /**
   * Sends a prompt the customer must answer (`text`), then its bookkeeping: state, bot flag and counter,
   * log, the abandon timer.
   */
  private async prompt(t: BotTicket, conn: BotConnection, send: Send, text: string, patch: StatePatch, log: Record<string, unknown>): Promise<void> {
    // The ticket row (and its live push) changes when the bot takes it, with the prompt's own message
    // (one write); the prompt count lives in the bot's state and is copied to amountUsedBotQueues then.
    const flags = botFlags(t, patch);
    await send(text, flags);
    await this.afterPrompt(t, conn, patch, log, text.trim() ? undefined : flags);
  }

  /** After a prompt: state, `flags` on the ticket when no message carried them, log, the abandon timer. */
  private async afterPrompt(t: BotTicket, conn: BotConnection, patch: StatePatch, log: Record<string, unknown>, flags?: TicketFlags): Promise<void> {
    // Independent writes (the turn holds the ticket): in parallel.
    await Promise.all([
      this.d.store.save(t.companyId, t.id, patch),
      flags ? this.d.tickets.update(t.companyId, t.id, flags) : undefined,
      this.d.tickets.addLog(t.companyId, t.id, 'chatBot', log),
      conn.timeUseBotQueues > 0
        ? this.d.jobs.schedule(JOBS.botTimeout, { companyId: t.companyId, ticketId: t.id }, { delayMs: minutes(conn.timeUseBotQueues), key: `bot:${t.id}` })
        : undefined,
    ]);
  }

  // -------------------------------------------------------------------------------------------------
  // A queue and its option tree

  /**
   * The ticket enters `queue`: the queue's hours (scheduleType `queue`), `userRandom`, then its greeting and
   * option tree, else the waiting line (position, router).
   */
  private async enterQueue(
    t: BotTicket,
    conn: BotConnection,
    contact: BotContact,
    queue: BotQueue,
    s: BotSettings,
    reply: Reply,
    send: Send,
    opts: { moved: boolean },
  ): Promise<TurnResult> {
    const vars = await this.vars(t, contact, conn, s.timeZone, { queueName: queue.name });
    if (s.scheduleType === 'queue') {
      const src = hoursSource('queue', { companySchedules: [], connection: conn, queue });
      if (src && (await this.outOfHours(t, contact, conn, src, s, reply, send))) {
        await this.toHumans(t, queue, s, { sendPosition: false });
        return 'handled';
      }
    }
    const greeting = renderTemplate(queue.greetingMessage ?? '', vars);
    if (s.userRandom) {
      const online = await this.onlineUsersOf(t.companyId, queue.id);
      if (online.length) {
        const [[, userId]] = roundRobin([t.id], online, null, { random: Math.random }).assignments;
        reply.add(greeting);
        await send(reply.text());
        await this.queueFiles(t, queue);
        await this.d.tickets.assign(t.companyId, t.id, userId);
        await this.d.store.save(t.companyId, t.id, { stage: 'human', queueId: queue.id });
        await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'userRandom', userId });
        return 'handled';
      }
    }
    const tree = await this.d.queues.chatbotTree(t.companyId, queue.id);
    if (tree.length) {
      reply.add(renderOptions(greeting, tree, { depth: 0 }));
      const patch: StatePatch = { stage: 'options', queueId: queue.id, path: [], menuUses: 1, queueEnteredAt: this.d.now() };
      const text = reply.text();
      await send(text, botFlags(t, patch));
      await this.queueFiles(t, queue);
      await this.afterPrompt(t, conn, patch, { step: 'options', queueId: queue.id }, text.trim() ? undefined : botFlags(t, patch));
      return 'handled';
    }
    reply.add(greeting);
    await send(reply.text());
    const filesSent = await this.queueFiles(t, queue);
    await this.toHumans(t, queue, s, { sendPosition: true });
    return opts.moved || filesSent || reply.parts.length ? 'handled' : 'pass';
  }

  /** The queue's file list (`fileListId`), sent after the queue's greeting when the files plugin is installed. */
  private async queueFiles(t: BotTicket, queue: BotQueue): Promise<boolean> {
    if (!this.d.files || !queue.fileListId) return false;
    return this.sendFiles(t, queue.fileListId, 'queue entered');
  }

  /**
   * Sends file list `fileListId` into the ticket through the files plugin (its message, then its files, as
   * automatic messages) before the bot goes on (a closing option closes after the files). Without the files
   * plugin, `bot.file-requested` announces it for whoever owns file lists. A list that cannot be sent is
   * logged; the conversation goes on. True when the files plugin sent it.
   */
  private async sendFiles(t: BotTicket, fileListId: number | null, why: string): Promise<boolean> {
    if (!this.d.files) {
      await this.d.bus.publish(BOT_FILE_REQUESTED, { companyId: t.companyId, ticketId: t.id, fileId: fileListId });
      return false;
    }
    if (!fileListId) return false;
    try {
      await this.d.files.sendList(t.companyId, fileListId, t.id);
      return true;
    } catch (err) {
      this.d.log.warn({ err, ticketId: t.id, fileListId }, `file list not sent (${why})`);
      return false;
    }
  }

  /** The bot's part ends: the ticket waits in `queue` for an attendant (position, router). */
  private async toHumans(t: BotTicket, queue: BotQueue, s: BotSettings, opts: { sendPosition: boolean }): Promise<void> {
    await this.d.jobs.cancel(JOBS.botTimeout, `bot:${t.id}`);
    await this.d.store.save(t.companyId, t.id, { stage: 'human', queueId: queue.id, path: [], queueEnteredAt: this.d.now() });
    if (t.isBot) await this.d.tickets.update(t.companyId, t.id, { isBot: false });
    if (opts.sendPosition && s.sendQueuePosition) await this.schedulePositions(t.companyId, queue.id);
    if (queue.ativarRoteador) await this.kickRouter(t.companyId, queue);
  }

  /** An answer inside a queue's option tree. */
  private async treeAnswer(t: BotTicket, conn: BotConnection, contact: BotContact, state: StateRow, message: BotMessage, s: BotSettings, reply: Reply, send: Send): Promise<TurnResult> {
    const queue = t.queueId !== null ? await this.d.queues.getQueue(t.companyId, t.queueId) : undefined;
    if (!queue) return 'pass';
    const tree = await this.d.queues.chatbotTree(t.companyId, queue.id);
    const vars = await this.vars(t, contact, conn, s.timeZone, { queueName: queue.name });
    const header = (node: BotOption | null) => renderTemplate((node ? node.greetingMessage : queue.greetingMessage) ?? '', vars);
    const step = navigate(tree, state.path, parseMenuInput(message.body));
    if (step.kind === 'show') {
      reply.add(renderOptions(header(step.node), step.options, { depth: step.path.length }));
      await this.prompt(t, conn, send, reply.text(), { stage: 'options', path: step.path }, { step: 'options', path: step.path });
      return 'handled';
    }
    if (step.kind === 'invalid') {
      if (state.menuUses >= Math.max(1, conn.maxUseBotQueues)) {
        await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'optionsExhausted', uses: state.menuUses });
        await this.toHumans(t, queue, s, { sendPosition: true });
        return 'handled';
      }
      reply.add(renderOptions(header(step.node), step.options, { depth: step.path.length, invalid: true }));
      await this.prompt(t, conn, send, reply.text(), { stage: 'options', path: step.path, menuUses: state.menuUses + 1 }, { step: 'options', invalid: true });
      return 'handled';
    }
    const option = step.option;
    const action = optionAction(option);
    const text = renderTemplate(action.message ?? '', vars);
    await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'option', optionId: option.id, name: option.name, queueType: option.queueType });
    switch (action.kind) {
      case 'text': {
        if (action.children.length && !action.close) {
          reply.add(renderOptions(text, action.children, { depth: step.path.length }));
          await this.prompt(t, conn, send, reply.text(), { stage: 'options', path: step.path, menuUses: 1 }, { step: 'options', path: step.path });
          return 'handled';
        }
        reply.add(text);
        if (action.close || queue.closeTicket) {
          // The option ends the conversation: its text, then the ticket closes (with the farewell).
          await this.d.jobs.cancel(JOBS.botTimeout, `bot:${t.id}`);
          await this.d.store.save(t.companyId, t.id, { stage: 'human' });
          await this.d.tickets.close(t.companyId, t.id, { farewell: true, message: reply.text(), reason: 'chatbot option' });
          return 'handled';
        }
        await send(reply.text());
        await this.toHumans(t, queue, s, { sendPosition: true });
        return 'handled';
      }
      case 'queue': {
        const target = await this.d.queues.getQueue(t.companyId, action.queueId);
        if (!target) {
          reply.add(text);
          await send(reply.text());
          await this.toHumans(t, queue, s, { sendPosition: true });
          return 'handled';
        }
        reply.add(text);
        const moved = await this.d.tickets.toQueue(t.companyId, t.id, target.id);
        if (action.close) {
          await this.d.tickets.close(t.companyId, t.id, { farewell: true, message: reply.text(), reason: 'chatbot option' });
          return 'handled';
        }
        await this.d.store.save(t.companyId, t.id, { stage: null, path: [], queueId: target.id, menuUses: 0 });
        return this.enterQueue(moved, conn, contact, target, s, reply, send, { moved: true });
      }
      case 'attendant': {
        reply.add(text);
        await send(reply.text());
        await this.d.jobs.cancel(JOBS.botTimeout, `bot:${t.id}`);
        await this.d.tickets.assign(t.companyId, t.id, action.userId);
        await this.d.store.save(t.companyId, t.id, { stage: 'human' });
        return 'handled';
      }
      case 'integration':
      case 'file': {
        reply.add(text);
        if (action.kind === 'integration') {
          // The integration's conversation handler takes the next messages (useIntegration): set before the
          // option's text goes out, so a customer answering at once already reaches the integration.
          await this.d.tickets.update(t.companyId, t.id, { useIntegration: true, integrationId: action.integrationId, isBot: false });
        }
        await send(reply.text());
        await this.d.jobs.cancel(JOBS.botTimeout, `bot:${t.id}`);
        await this.d.store.save(t.companyId, t.id, { stage: 'human' });
        if (action.kind === 'file') await this.sendFiles(t, action.fileId, 'chatbot option');
        if (action.close) await this.d.tickets.close(t.companyId, t.id, { farewell: true, reason: 'chatbot option' });
        return 'handled';
      }
    }
  }

  // -------------------------------------------------------------------------------------------------
  // LGPD

  private async lgpdAnswer(
    t: BotTicket,
    conn: BotConnection,
    contact: BotContact,
    state: StateRow,
    message: BotMessage,
    s: BotSettings,
    send: Send,
    markActed: () => void,
  ): Promise<TurnResult> {
    const answer = parseConsent(message.body);
    if (answer === 'accept') {
      markActed();
      await this.d.contacts.setLgpdAcceptedAt(t.companyId, contact.id, this.d.now());
      await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'lgpd', answer });
      const back = await this.d.tickets.update(t.companyId, t.id, { status: 'pending' });
      await this.d.store.save(t.companyId, t.id, { stage: null, lgpdUses: 0 });
      const fresh: StateRow = { ...state, stage: null, lgpdUses: 0 };
      // The conversation goes on as for any first message (greeting, menu...).
      return this.turn({ companyId: t.companyId, ticket: back, contact: { ...contact, lgpdAcceptedAt: this.d.now() }, message: { ...message, body: '' } }, conn, fresh, markActed);
    }
    if (answer === 'refuse') {
      markActed();
      await this.d.contacts.setLgpdAcceptedAt(t.companyId, contact.id, null);
      await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'lgpd', answer });
      await this.d.store.save(t.companyId, t.id, { stage: 'human' });
      await this.d.tickets.close(t.companyId, t.id, { farewell: false, message: TEXTS.lgpdRefused, reason: 'lgpd refused' });
      return 'handled';
    }
    if (state.lgpdUses < Math.max(1, conn.maxUseBotQueues)) {
      await send(renderLgpd(s.lgpdMessage, s.lgpdLink, true, { invalid: true }));
      await this.d.store.save(t.companyId, t.id, { lgpdUses: state.lgpdUses + 1 });
      return 'handled';
    }
    // Out of tries: a human takes it from here (no consent stored).
    await this.d.store.save(t.companyId, t.id, { stage: 'human' });
    await this.d.tickets.update(t.companyId, t.id, { status: 'pending', isBot: false });
    await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'lgpdExhausted' });
    return 'handled';
  }

  // -------------------------------------------------------------------------------------------------
  // NPS

  /** True when closing this ticket asks for a rating: a connection `ratingMessage` and setting `userRating`. */
  async wantsRating(t: BotTicket): Promise<boolean> {
    if (t.isGroup || t.whatsappId === null) return false;
    const [s, conn, rated] = await Promise.all([this.settings(t.companyId), this.d.connections.get(t.companyId, t.whatsappId), this.d.store.ratingOf(t.companyId, t.id)]);
    return Boolean(s.userRating && conn?.ratingMessage?.trim() && !rated);
  }

  /** The ticket went to status `nps`: sends the rating question and starts the NPS timer. */
  async startRating(companyId: number, ticketId: number): Promise<void> {
    await this.d.store.withTurn(companyId, ticketId, async (state) => {
      if (state.stage === 'nps') return;
      const t = await this.d.tickets.get(companyId, ticketId);
      if (!t || t.status !== 'nps' || t.whatsappId === null) return;
      const [conn, s, contact] = await Promise.all([this.d.connections.get(companyId, t.whatsappId), this.settings(companyId), this.d.contacts.get(companyId, t.contactId)]);
      if (!conn?.ratingMessage?.trim()) return;
      await this.send(t, renderNpsPrompt(renderTemplate(conn.ratingMessage, await this.vars(t, contact, conn, s.timeZone))));
      await this.d.store.save(companyId, ticketId, { stage: 'nps', npsUses: 1 });
      await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'nps' });
      if (conn.expiresTicketNPS > 0) {
        await this.d.jobs.schedule(JOBS.npsExpire, { companyId, ticketId }, { delayMs: minutes(conn.expiresTicketNPS), key: `nps:${ticketId}` });
      }
    });
  }

  private async npsAnswer(t: BotTicket, conn: BotConnection, state: StateRow, message: BotMessage, s: BotSettings, send: Send): Promise<TurnResult> {
    const score = parseNpsScore(message.body);
    const contact = await this.d.contacts.get(t.companyId, t.contactId);
    const vars = await this.vars(t, contact, conn, s.timeZone);
    if (score !== null) {
      const rating = await this.d.store.addRating({ companyId: t.companyId, ticketId: t.id, userId: t.userId, queueId: t.queueId, whatsappId: t.whatsappId, contactId: t.contactId, rate: score });
      await this.d.jobs.cancel(JOBS.npsExpire, `nps:${t.id}`);
      await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'rated', rate: score });
      await this.d.store.save(t.companyId, t.id, { stage: 'human' });
      await this.d.tickets.close(t.companyId, t.id, { farewell: false, message: renderTemplate(conn.complationMessage ?? '', vars), reason: 'rated' });
      if (rating) await this.d.bus.publish(RATING_RECORDED, { companyId: t.companyId, ticketId: t.id, userId: t.userId, queueId: t.queueId, rate: score });
      return 'handled';
    }
    if (state.npsUses < Math.max(1, conn.maxUseBotQueuesNPS)) {
      await send(renderNpsPrompt(renderTemplate(conn.ratingMessage ?? '', vars), { invalid: true }));
      await this.d.store.save(t.companyId, t.id, { npsUses: state.npsUses + 1 });
      return 'handled';
    }
    // Out of tries: closed without a rating.
    await this.d.jobs.cancel(JOBS.npsExpire, `nps:${t.id}`);
    await this.d.tickets.addLog(t.companyId, t.id, 'chatBot', { step: 'npsExhausted' });
    await this.d.store.save(t.companyId, t.id, { stage: 'human' });
    await this.d.tickets.close(t.companyId, t.id, { farewell: false, message: renderTemplate(conn.complationMessage ?? '', vars), reason: 'nps unanswered' });
    return 'handled';
  }

  // -------------------------------------------------------------------------------------------------
  // Waiting line and router

  private async onlineUsersOf(companyId: number, queueId: number): Promise<number[]> {
    const ids = await this.d.queues.userIdsOfQueue(companyId, queueId);
    if (!ids.length) return [];
    const users = await this.d.identity.listUsers(companyId, ids);
    return users.filter((u) => u.online).map((u) => u.id);
  }

  /** Recomputes the waiting positions of `queueId` shortly (one run for a burst of moves). */
  async schedulePositions(companyId: number, queueId: number): Promise<void> {
    await this.d.jobs.schedule(JOBS.positions, { companyId, queueId }, { delayMs: POSITION_DELAY_MS, key: `position:${companyId}:${queueId}` });
  }

  /** Sends each waiting ticket of the queue its position when it changed since the last one sent. */
  async sendPositions(companyId: number, queueId: number): Promise<void> {
    const s = await this.settings(companyId);
    if (!s.sendQueuePosition) return;
    const waiting = await this.d.tickets.listWaiting(companyId, queueId, QUEUE_SCAN_LIMIT);
    if (!waiting.length) return;
    const states = new Map<number, StateRow>();
    for (const w of waiting) {
      const st = await this.d.store.get(companyId, w.id);
      if (st) states.set(w.id, st);
    }
    const since = (w: BotTicket) => {
      const st = states.get(w.id);
      return st?.queueEnteredAt && st.queueId === queueId ? st.queueEnteredAt : w.createdAt;
    };
    const positions = waitingPositions(waiting.map((w) => ({ id: w.id, since: since(w) })));
    for (const w of waiting) {
      const pos = positions.get(w.id)!;
      const st = states.get(w.id);
      if (st?.positionQueueId === queueId && st.lastPosition === pos) continue;
      // Tickets still in the bot (menu or options) get their position when they reach the line.
      if (st?.stage === 'menu' || st?.stage === 'options' || w.isBot) continue;
      await this.send(w, queuePositionText(pos));
      await this.d.store.save(companyId, w.id, { positionQueueId: queueId, lastPosition: pos });
    }
  }

  /** A ticket left the waiting line of `queueId` (accepted, transferred, closed): the others move up. */
  async queueMoved(companyId: number, queueId: number): Promise<void> {
    if ((await this.settings(companyId)).sendQueuePosition) await this.schedulePositions(companyId, queueId);
  }

  /** A ticket joined the waiting line of `queueId` other than through the bot (a transfer): position, router. */
  async queueJoined(companyId: number, queueId: number): Promise<void> {
    const queue = await this.d.queues.getQueue(companyId, queueId);
    if (!queue) return;
    if ((await this.settings(companyId)).sendQueuePosition) await this.schedulePositions(companyId, queueId);
    if (queue.ativarRoteador) await this.kickRouter(companyId, queue);
  }

  /** Plans a router run for a queue with `ativarRoteador` unless one is planned already. */
  async kickRouter(companyId: number, queue: BotQueue): Promise<void> {
    if (!queue.ativarRoteador) return;
    const every = Math.max(1, queue.tempoRoteador || 1);
    await this.d.store.withRouter(companyId, queue.id, async (r) => {
      // A run is planned (and not long overdue, i.e. lost): leave it.
      if (r.nextRunAt && r.nextRunAt.getTime() > Date.now() - 60_000) return { result: undefined };
      const runAt = new Date(Date.now() + minutes(every));
      await this.d.jobs.schedule(JOBS.router, { companyId, queueId: queue.id }, { runAt, key: `router:${companyId}:${queue.id}` });
      return { nextRunAt: runAt, result: undefined };
    });
  }

  /**
   * One router run: gives the queue's waiting tickets round-robin (or at random with `userRandom`) to its
   * online users; plans the next run while tickets are left waiting.
   */
  async route(companyId: number, queueId: number): Promise<number> {
    const queue = await this.d.queues.getQueue(companyId, queueId);
    if (!queue?.ativarRoteador) {
      await this.d.store.withRouter(companyId, queueId, async () => ({ nextRunAt: null, result: undefined }));
      return 0;
    }
    const s = await this.settings(companyId);
    return this.d.store.withRouter(companyId, queueId, async (r) => {
      const waiting = (await this.d.tickets.listWaiting(companyId, queueId, QUEUE_SCAN_LIMIT)).filter((w) => !w.isBot);
      const online = await this.onlineUsersOf(companyId, queueId);
      const plan = roundRobin(waiting.map((w) => w.id), online, r.lastUserId, s.userRandom ? { random: Math.random } : {});
      let assigned = 0;
      for (const [ticketId, userId] of plan.assignments) {
        try {
          await this.d.tickets.assign(companyId, ticketId, userId);
          await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'router', userId });
          await this.d.store.save(companyId, ticketId, { stage: 'human' });
          assigned++;
        } catch (err) {
          this.d.log.warn({ err, companyId, ticketId }, 'automation: router could not assign a ticket');
        }
      }
      const left = waiting.length - assigned;
      let nextRunAt: Date | null = null;
      if (left > 0) {
        const every = minutes(Math.max(1, queue.tempoRoteador || 1));
        nextRunAt = new Date(Date.now() + every);
        await this.d.jobs.schedule(JOBS.router, { companyId, queueId }, { runAt: nextRunAt, key: `router:${companyId}:${queueId}` });
      }
      if (assigned && s.sendQueuePosition) await this.schedulePositions(companyId, queueId);
      return { lastUserId: plan.lastUserId, nextRunAt, result: assigned };
    });
  }

  // -------------------------------------------------------------------------------------------------
  // Timers (jobs.ts registers them)

  /** `timeUseBotQueues` after the bot's last prompt: the customer never answered, the ticket closes. */
  async botTimeout(companyId: number, ticketId: number): Promise<void> {
    await this.d.store.withTurn(companyId, ticketId, async (state) => {
      if (state.stage !== 'menu' && state.stage !== 'options') return;
      const t = await this.d.tickets.get(companyId, ticketId);
      if (!t || t.status !== 'pending' || t.userId !== null) return;
      await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'abandoned' });
      await this.d.store.save(companyId, ticketId, { stage: 'human' });
      await this.d.tickets.close(companyId, ticketId, { farewell: false, reason: 'bot abandoned' });
    });
  }

  /** `expiresTicketNPS` after the rating question: closes without a rating. */
  async npsExpire(companyId: number, ticketId: number): Promise<void> {
    await this.d.store.withTurn(companyId, ticketId, async (state) => {
      const t = await this.d.tickets.get(companyId, ticketId);
      if (!t || t.status !== 'nps') return;
      await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'npsExpired', stage: state.stage });
      await this.d.store.save(companyId, ticketId, { stage: 'human' });
      await this.d.tickets.close(companyId, ticketId, { farewell: false, reason: 'nps expired' });
    });
  }

  /**
   * A stored message of a ticket (either direction): restarts its idle timers.
   * - `expiresTicket` (minutes) without a message closes the ticket with `expiresInactiveMessage`; it counts
   *   from the last message of either side when `whenExpiresTicket` is '0' (the default), only from our last
   *   message when it is '1' (the attendant's last message: a customer's message stops the clock, since the
   *   attendant owes the answer) - the admin screen's "close when the last message is" choice;
   * - `timeInactiveMessage` after our message, `inactiveMessage` once per silence;
   * - the company's `hoursCloseTicketsAuto` closes open tickets idle that long.
   */
  async onStored(companyId: number, ticketId: number, fromMe: boolean, snapshot?: { status: string; connectionId: number | null; isGroup: boolean }): Promise<void> {
    const t = snapshot ?? (await this.d.tickets.get(companyId, ticketId).then((x) => x && { status: x.status, connectionId: x.whatsappId, isGroup: x.isGroup }));
    if (!t || t.connectionId === null || t.isGroup) return;
    const active = t.status === 'open' || t.status === 'pending';
    const [conn, s] = await Promise.all([this.d.connections.get(companyId, t.connectionId), this.settings(companyId)]);
    if (!conn) return;
    const key = (k: string) => `${k}:${ticketId}`;
    if (conn.expiresTicket > 0 && active) {
      const onlyAfterOurs = String(conn.whenExpiresTicket ?? '0') === '1';
      if (fromMe || !onlyAfterOurs) await this.d.jobs.schedule(JOBS.expire, { companyId, ticketId }, { delayMs: minutes(conn.expiresTicket), key: key('expire') });
      else await this.d.jobs.cancel(JOBS.expire, key('expire'));
    }
    if (conn.timeInactiveMessage > 0 && conn.inactiveMessage?.trim() && active) {
      if (!fromMe) {
        await this.d.jobs.cancel(JOBS.inactive, key('inactive'));
        const st = await this.d.store.get(companyId, ticketId);
        if (st?.inactiveSent) await this.d.store.save(companyId, ticketId, { inactiveSent: false });
      } else {
        const st = await this.d.store.get(companyId, ticketId);
        if (!st?.inactiveSent) await this.d.jobs.schedule(JOBS.inactive, { companyId, ticketId }, { delayMs: minutes(conn.timeInactiveMessage), key: key('inactive') });
      }
    }
    if (s.hoursCloseTicketsAuto > 0 && t.status === 'open') {
      await this.d.jobs.schedule(JOBS.autoClose, { companyId, ticketId }, { delayMs: s.hoursCloseTicketsAuto * 3_600_000, key: key('autoclose') });
    }
  }

  /** `expiresTicket` passed without the awaited message: closes with `expiresInactiveMessage`. */
  async expire(companyId: number, ticketId: number): Promise<void> {
    const t = await this.d.tickets.get(companyId, ticketId);
    if (!t || (t.status !== 'open' && t.status !== 'pending') || t.whatsappId === null) return;
    const conn = await this.d.connections.get(companyId, t.whatsappId);
    if (!conn || conn.expiresTicket <= 0) return;
    if (Date.now() - new Date(t.updatedAt).getTime() < minutes(conn.expiresTicket) - 1000) return;
    const [contact, s] = await Promise.all([this.d.contacts.get(companyId, t.contactId), this.settings(companyId)]);
    await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'expired', minutes: conn.expiresTicket });
    await this.d.store.save(companyId, ticketId, { stage: 'human' });
    await this.d.tickets.close(companyId, ticketId, { farewell: false, message: renderTemplate(conn.expiresInactiveMessage ?? '', await this.vars(t, contact, conn, s.timeZone)), reason: 'expired' });
  }

  /** `timeInactiveMessage` after our message without an answer: `inactiveMessage`, once. */
  async inactive(companyId: number, ticketId: number): Promise<void> {
    const t = await this.d.tickets.get(companyId, ticketId);
    if (!t || (t.status !== 'open' && t.status !== 'pending') || t.whatsappId === null) return;
    const st = await this.d.store.get(companyId, ticketId);
    if (st?.inactiveSent) return;
    const conn = await this.d.connections.get(companyId, t.whatsappId);
    if (!conn?.inactiveMessage?.trim()) return;
    const [contact, s] = await Promise.all([this.d.contacts.get(companyId, t.contactId), this.settings(companyId)]);
    await this.d.store.save(companyId, ticketId, { inactiveSent: true });
    await this.send(t, renderTemplate(conn.inactiveMessage, await this.vars(t, contact, conn, s.timeZone)));
    await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'inactive' });
  }

  /** `hoursCloseTicketsAuto` hours without a message: closes an open ticket. */
  async autoClose(companyId: number, ticketId: number): Promise<void> {
    const s = await this.settings(companyId);
    if (!s.hoursCloseTicketsAuto) return;
    const t = await this.d.tickets.get(companyId, ticketId);
    if (!t || t.status !== 'open') return;
    if (Date.now() - new Date(t.updatedAt).getTime() < s.hoursCloseTicketsAuto * 3_600_000 - 1000) return;
    await this.d.tickets.addLog(companyId, ticketId, 'chatBot', { step: 'autoClose', hours: s.hoursCloseTicketsAuto });
    await this.d.tickets.close(companyId, ticketId, { farewell: true, reason: 'hoursCloseTicketsAuto' });
  }
}
