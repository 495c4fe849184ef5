import { joinParts, numberedLines } from './menu';
import { TEXTS } from './texts';

// ---------------------------------------------------------------------------------------------------
// NPS

/** Lowest and highest NPS score. */
export const NPS_MIN = 0;
export const NPS_MAX = 10;

/**
 * Reads an NPS answer: a whole number 0 to 10 alone ("7", " 10 ", "*9*", "8."), else null ("nota 8",
 * "7,5", "11", "-1", words). Leading zeros are accepted ("07").
 */
export function parseNpsScore(text: string | null | undefined): number | null {
  const t = (text ?? '').trim().replace(/^[*_~]+|[*_~]+$/g, '').replace(/[.!]$/, '').trim();
  if (!/^\d{1,2}$/.test(t)) return null;
  const n = Number(t);
  return n >= NPS_MIN && n <= NPS_MAX ? n : null;
}

/** The rating question: the connection's `ratingMessage` with the 0-10 instruction under it. */
export function renderNpsPrompt(ratingMessage: string, opts: { invalid?: boolean } = {}): string {
  return joinParts(opts.invalid ? TEXTS.npsInvalid : null, ratingMessage, TEXTS.npsPrompt);
}

/** NPS category of a score: 9-10 promoter, 7-8 passive, 0-6 detractor. */
export function npsCategory(score: number): 'promoter' | 'passive' | 'detractor' {
  return score >= 9 ? 'promoter' : score >= 7 ? 'passive' : 'detractor';
}

/** Counts and the NPS of a list of scores (`score` = % promoters - % detractors, rounded to 0.1; 0 when none). */
export interface NpsSummary {
  total: number;
  promoters: number;
  passives: number;
  detractors: number;
  /** -100..100. */
  score: number;
  /** Average score 0..10 (null when none), rounded to 0.01. */
  average: number | null;
}

export function summarizeNps(scores: readonly number[]): NpsSummary {
  let promoters = 0;
  let passives = 0;
  let detractors = 0;
  let sum = 0;
  for (const s of scores) {
    sum += s;
    const c = npsCategory(s);
    if (c === 'promoter') promoters++;
    else if (c === 'passive') passives++;
    else detractors++;
  }
  const total = scores.length;
  const score = total ? Math.round(((promoters - detractors) / total) * 1000) / 10 : 0;
  return { total, promoters, passives, detractors, score, average: total ? Math.round((sum / total) * 100) / 100 : null };
}

// ---------------------------------------------------------------------------------------------------
// LGPD

/**
 * The LGPD message of a first contact: the company's `lgpdMessage` (or a default), its `lgpdLink`, and,
 * when consent is asked (`lgpdConsent` enabled), the two numbered answers.
 */
export function renderLgpd(message: string | null | undefined, link: string | null | undefined, askConsent: boolean, opts: { invalid?: boolean } = {}): string {
  return joinParts(
    opts.invalid ? TEXTS.lgpdInvalid : null,
    (message ?? '').trim() || TEXTS.lgpdDefault,
    (link ?? '').trim() || null,
    askConsent ? numberedLines([TEXTS.lgpdAccept, TEXTS.lgpdRefuse]) : null,
  );
}

const fold = (s: string) => s.trim().toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[*_.!]/g, '').trim();
const ACCEPT = new Set(['1', 'sim', 's', 'aceito', 'aceitar', 'concordo', 'yes', 'ok']);
const REFUSE = new Set(['2', 'nao', 'n', 'nao aceito', 'recuso', 'no', 'nao concordo']);

/** Reads an LGPD answer: `1`/sim/aceito -> accept, `2`/não/não aceito -> refuse, anything else null. */
export function parseConsent(text: string | null | undefined): 'accept' | 'refuse' | null {
  const t = fold(text ?? '');
  if (ACCEPT.has(t)) return 'accept';
  if (REFUSE.has(t)) return 'refuse';
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Waiting position

/** "You are number N in line" (N from 1). */
export function queuePositionText(position: number): string {
  return TEXTS.queuePosition.replace('{n}', String(position));
}

/**
 * Waiting positions of the pending tickets of one queue: ordered by when they entered the queue (then id),
 * position 1 first. Returns a map ticket id -> position.
 */
export function waitingPositions(tickets: readonly { id: number; since: Date | string }[]): Map<number, number> {
  const sorted = [...tickets].sort((a, b) => new Date(a.since).getTime() - new Date(b.since).getTime() || a.id - b.id);
  return new Map(sorted.map((t, i) => [t.id, i + 1]));
}

// ---------------------------------------------------------------------------------------------------
// Router

/**
 * Round-robin assignment: gives each ticket (in order) to the next online user after `lastUserId` in the
 * ascending id order of `userIds`, wrapping around. With `random`, picks a random user per ticket
 * (`random()` in [0, 1)). Returns [ticketId, userId] pairs and the last user given a ticket.
 */
export function roundRobin(
  ticketIds: readonly number[],
  userIds: readonly number[],
  lastUserId: number | null,
  opts: { random?: () => number } = {},
): { assignments: [number, number][]; lastUserId: number | null } {
  const users = [...new Set(userIds)].sort((a, b) => a - b);
  if (!users.length) return { assignments: [], lastUserId };
  const out: [number, number][] = [];
  let last = lastUserId;
  for (const t of ticketIds) {
    let u: number;
    if (opts.random) u = users[Math.min(users.length - 1, Math.floor(opts.random() * users.length))];
    else {
      const next = last === null ? -1 : users.findIndex((x) => x > last!);
      u = users[next === -1 ? 0 : next];
    }
    out.push([t, u]);
    last = u;
  }
  return { assignments: out, lastUserId: last };
}
