import { joinParts, numberedLines, type MenuInput } from './menu';
import { TEXTS } from './texts';

/** What choosing an option does (spec 2-tickets.md §3 "Chatbot option", wire `queueType`). */
export type OptionType = 'text' | 'attendent' | 'queue' | 'integration' | 'file';

/** A chatbot option with its ordered sub-options (the queues plugin's `ChatbotNode` fits). */
export interface BotOption {
  id: number;
  name: string;
  greetingMessage: string | null;
  queueType: OptionType | string;
  optQueueId: number | null;
  optUserId: number | null;
  optIntegrationId: number | null;
  optFileId: number | null;
  closeTicket: boolean;
  options: BotOption[];
}

/** Where a customer is in a queue's option tree and what the bot does next. */
export type TreeStep =
  /** Show the options under `path` (the root options when `path` is empty); `node` is the last of the path. */
  | { kind: 'show'; path: number[]; node: BotOption | null; options: BotOption[] }
  /** The customer chose `option`; `path` is the new position (the option itself). */
  | { kind: 'choose'; path: number[]; option: BotOption }
  /** Not an option here: show the same options again, with the invalid notice. */
  | { kind: 'invalid'; path: number[]; node: BotOption | null; options: BotOption[] };

/**
 * The node list along `path` (option ids from the root). An id that is no longer in the tree (the admin
 * edited it) cuts the path there.
 */
export function resolvePath(tree: readonly BotOption[], path: readonly number[]): { path: number[]; node: BotOption | null; options: BotOption[] } {
  let options: BotOption[] = [...tree];
  let node: BotOption | null = null;
  const valid: number[] = [];
  for (const id of path) {
    const next = options.find((o) => o.id === id);
    if (!next) break;
    node = next;
    options = next.options;
    valid.push(id);
  }
  return { path: valid, node, options };
}

/**
 * One step of option-tree navigation: `#` goes back one level, `0` to the root options, a number picks
 * the option with that position (1-based) among the options under `path`; anything else is invalid.
 */
export function navigate(tree: readonly BotOption[], path: readonly number[], input: MenuInput): TreeStep {
  const here = resolvePath(tree, path);
  if (input.kind === 'back') {
    const up = resolvePath(tree, here.path.slice(0, -1));
    return { kind: 'show', ...up };
  }
  if (input.kind === 'start') return { kind: 'show', path: [], node: null, options: [...tree] };
  if (input.kind === 'number') {
    const option = here.options[input.n - 1];
    if (option) return { kind: 'choose', path: [...here.path, option.id], option };
  }
  return { kind: 'invalid', ...here };
}

/**
 * The text listing `options`: `header` (a queue's or an option's greeting), the numbered options, and,
 * below a first level, the `#` back and `0` start lines. `invalid` puts the invalid-option notice first.
 */
export function renderOptions(header: string | null | undefined, options: readonly BotOption[], opts: { depth: number; invalid?: boolean }): string {
  const nav = opts.depth > 0 ? `*#* - ${TEXTS.back}\n*0* - ${TEXTS.start}` : null;
  return joinParts(opts.invalid ? TEXTS.invalidOption : null, header, options.length ? numberedLines(options.map((o) => o.name)) : null, options.length ? nav : null);
}

/** What the bot does for a chosen option. */
export type OptionAction =
  /** Send the option's text and list its sub-options (none: the bot's part ends, or the ticket closes). */
  | { kind: 'text'; message: string | null; children: BotOption[]; close: boolean }
  /** Hand the ticket to queue `queueId` (its greeting and options follow). */
  | { kind: 'queue'; message: string | null; queueId: number; close: boolean }
  /** Give the ticket to attendant `userId` (ticket open with that user). */
  | { kind: 'attendant'; message: string | null; userId: number; close: boolean }
  /** Hand the conversation to an integration (a later conversation handler takes it). */
  | { kind: 'integration'; message: string | null; integrationId: number | null; close: boolean }
  /** Send a file list (a later plugin sends the files). */
  | { kind: 'file'; message: string | null; fileId: number | null; close: boolean };

/**
 * The action of a chosen option by its `queueType`. A `queue` option without `optQueueId` or an
 * `attendent` option without `optUserId` (their target was deleted) acts as `text`. `closeTicket` closes
 * the ticket after the option's message, whatever the type.
 */
export function optionAction(o: BotOption): OptionAction {
  const message = o.greetingMessage?.trim() || null;
  const close = Boolean(o.closeTicket);
  switch (o.queueType) {
    case 'queue':
      if (o.optQueueId != null) return { kind: 'queue', message, queueId: o.optQueueId, close };
      break;
    case 'attendent':
      if (o.optUserId != null) return { kind: 'attendant', message, userId: o.optUserId, close };
      break;
    case 'integration':
      return { kind: 'integration', message, integrationId: o.optIntegrationId, close };
    case 'file':
      return { kind: 'file', message, fileId: o.optFileId, close };
  }
  return { kind: 'text', message, children: o.options, close };
}
