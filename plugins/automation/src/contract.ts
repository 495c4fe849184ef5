/**
 * The automation plugin's public contract (`@atendo/plugin-automation/contract`): its service (NPS ratings
 * for the dashboard, the bot state of a ticket) and the bus topic it owns. Types and `define*` calls only.
 */
import { defineService, defineTopic } from '@atendo/sdk';

/** One stored NPS rating (0..10) of a closed ticket. */
export interface NpsRating {
  id: number;
  companyId: number;
  ticketId: number;
  /** The attendant the ticket was with when it closed (null: closed without one). */
  userId: number | null;
  queueId: number | null;
  /** The connection (`whatsappId`). */
  whatsappId: number | null;
  contactId: number;
  /** 0..10. */
  rate: number;
  /** ISO-8601. */
  createdAt: string;
}

/** Filters of the rating reads: an inclusive time range (ISO-8601 instants) and optional attendant or queue. */
export interface NpsQuery {
  from?: Date | string;
  to?: Date | string;
  userId?: number;
  queueId?: number;
}

/** NPS counts of a set of ratings (promoters 9-10, passives 7-8, detractors 0-6). */
export interface NpsTotals {
  total: number;
  promoters: number;
  passives: number;
  detractors: number;
  /** % promoters - % detractors, -100..100, one decimal (0 without ratings). */
  score: number;
  /** Mean rate 0..10, two decimals (null without ratings). */
  average: number | null;
}

/** The NPS of a company and of each attendant (for `GET /dashboard` and `/dashboard/nps-info`). */
export interface NpsSummary extends NpsTotals {
  /** Per attendant with at least one rating, by user id. */
  byUser: (NpsTotals & { userId: number })[];
}

/** Where the bot is with a ticket (undefined when it never spoke in it). */
export interface BotState {
  ticketId: number;
  stage: 'menu' | 'options' | 'lgpd' | 'nps' | 'human';
  /** The queue whose option tree the customer is in (`options`). */
  queueId: number | null;
  /** Option ids from the queue's root to the current option. */
  path: number[];
  /** Menus (or option lists) sent so far, repetitions included. */
  menuUses: number;
  /** Rating questions sent so far. */
  npsUses: number;
}

/**
 * The `automation` service (`ctx.services.get(AUTOMATION)`, declare `dependsOn: ['automation']` or
 * `optionalDependsOn`). Every method is scoped to `companyId`.
 */
export interface AutomationService {
  /** Ratings of the company, newest first, at most `limit` (default 1,000, max 10,000). */
  listRatings(companyId: number, query?: NpsQuery & { limit?: number }): Promise<NpsRating[]>;
  /** The company's NPS and each attendant's over the query's range. */
  npsSummary(companyId: number, query?: NpsQuery): Promise<NpsSummary>;
  /** The rating of one ticket, or undefined. */
  ratingOf(companyId: number, ticketId: number): Promise<NpsRating | undefined>;
  /** Where the bot is with a ticket, or undefined. */
  botState(companyId: number, ticketId: number): Promise<BotState | undefined>;
}

export const AUTOMATION = defineService<AutomationService>('automation');

/** Payload of `rating.recorded`. */
export interface RatingRecordedEvent {
  companyId: number;
  ticketId: number;
  userId: number | null;
  queueId: number | null;
  rate: number;
}

/** A customer rated a ticket (NPS 0..10); published after the rating is stored. */
export const RATING_RECORDED = defineTopic<RatingRecordedEvent>('rating.recorded', 'a customer rated a closed ticket (NPS 0..10)');

/** Payload of `bot.file-requested`. */
export interface FileRequestedEvent {
  companyId: number;
  ticketId: number;
  /** The option's `optFileId` (a file list of the files plugin), or null. */
  fileId: number | null;
}

/**
 * A customer chose a chatbot option of type `file` while the files plugin is not installed: whoever owns
 * file lists may send them in the ticket (the bot has sent the option's text and stepped aside). With the
 * files plugin installed the bot calls its `sendList` itself (before closing, when the option closes) and
 * publishes nothing.
 */
export const BOT_FILE_REQUESTED = defineTopic<FileRequestedEvent>('bot.file-requested', 'a chatbot option of type file was chosen: send the file list in the ticket');
