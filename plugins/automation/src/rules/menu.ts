import { TEXTS } from './texts';

/** The part of a queue the menu needs. */
export interface MenuQueue {
  id: number;
  name: string;
  orderQueue: number | null;
}

/** What a customer's answer to a numbered menu means. */
export type MenuInput =
  | { kind: 'number'; n: number }
  /** `#`: one level back. */
  | { kind: 'back' }
  /** `0`: back to the first menu. */
  | { kind: 'start' }
  | { kind: 'other' };

/**
 * Queues in menu order: `orderQueue` ascending with queues without one last, then by id (the order of
 * `GET /queue`). Returns a new array.
 */
export function sortQueues<Q extends MenuQueue>(queues: readonly Q[]): Q[] {
  return [...queues].sort((a, b) => {
    const ao = a.orderQueue ?? Number.POSITIVE_INFINITY;
    const bo = b.orderQueue ?? Number.POSITIVE_INFINITY;
    return ao !== bo ? (ao < bo ? -1 : 1) : a.id - b.id;
  });
}

/** Numbered lines `*1* - Name`, one per item, in the given order. */
export function numberedLines(names: readonly string[]): string {
  return names.map((name, i) => `*${i + 1}* - ${name}`).join('\n');
}

/** Joins non-empty message parts with a blank line between them. */
export function joinParts(...parts: (string | null | undefined)[]): string {
  return parts.map((p) => (p ?? '').trim()).filter(Boolean).join('\n\n');
}

/**
 * The queue menu a new ticket gets: the connection's greeting, then one numbered line per queue in menu
 * order (see `sortQueues`). `invalid` puts the "invalid option" notice first (a repeated menu).
 */
export function renderQueueMenu(greeting: string | null | undefined, queues: readonly MenuQueue[], opts: { invalid?: boolean } = {}): string {
  return joinParts(opts.invalid ? TEXTS.invalidOption : null, greeting, numberedLines(sortQueues(queues).map((q) => q.name)));
}

/**
 * Reads a customer's menu answer. Accepted as a number: the digits alone, optionally wrapped in `*`/`_` or
 * followed by `.`, `)` or `-` ("2", " 2 ", "*2*", "2.", "02"), 1 to 999. `#` is back, `0` (or "00") start.
 * Anything else (words, several numbers, emojis) is `other`.
 */
export function parseMenuInput(text: string | null | undefined): MenuInput {
  const t = (text ?? '').trim().replace(/^[*_~]+|[*_~]+$/g, '').replace(/[.)\-]$/, '').trim();
  if (t === '#') return { kind: 'back' };
  if (!/^\d{1,3}$/.test(t)) return { kind: 'other' };
  const n = Number(t);
  return n === 0 ? { kind: 'start' } : { kind: 'number', n };
}

/** The queue a menu answer selects (1-based in menu order), or undefined. */
export function pickQueue<Q extends MenuQueue>(queues: readonly Q[], input: MenuInput): Q | undefined {
  if (input.kind !== 'number') return undefined;
  return sortQueues(queues)[input.n - 1];
}
