import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorResponses, type PluginApp } from '@atendo/sdk';
import { AnswerCache } from '../services/answer-cache';
import type { TicketsDeps } from '../services/deps';
import { TicketListService } from '../services/list';
import type { DisplayCache } from '../services/display-cache';
import { viewerAudiences } from '../visibility';
import { JSON_ARRAY_PARAMS, KanbanAnswer, KanbanQuery, ListTicketsAnswer, ListTicketsQuery } from '../schemas/list';

/** Events of records the list service caches for 5 s (users, queues, tags, connections, settings). */
const RELATED_EVENT = /^company-\d+-(user|queue|tag|whatsapp|settings)$/;

/** Events pushed to ticket audiences that change only those viewers' lists. */
const SCOPED_EVENT = /^company-\d+-(ticket|appMessage)$/;

const errors = errorResponses(400, 401, 403);

/**
 * `preValidation` hook of the list routes: array parameters sent as one JSON string (`queueIds=[1,2]`,
 * the product family's client) become arrays before the schema validates them item by item. Blank
 * values count as absent; a single plain value (`queueIds=3`) and repeated keys are left to the schema
 * (which coerces them). Malformed JSON and nested arrays or objects answer 400 ERR_VALIDATION.
 */
export async function parseJsonArrayParams(req: FastifyRequest): Promise<void> {
  const q = req.query as Record<string, unknown> | undefined;
  if (!q || typeof q !== 'object') return;
  for (const key of JSON_ARRAY_PARAMS) {
    const v = q[key];
    if (typeof v !== 'string') continue;
    const s = v.trim();
    if (s === '') {
      delete q[key];
    } else if (s.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(s);
      } catch {
        throw new AppError('ERR_VALIDATION', `querystring/${key} must be a JSON array`);
      }
      // Nested arrays or objects would be unwrapped by the query coercion: refuse them here.
      if (Array.isArray(parsed) && parsed.some((x) => x !== null && typeof x === 'object')) {
        throw new AppError('ERR_VALIDATION', `querystring/${key} must be a flat JSON array`);
      }
      q[key] = parsed;
    }
  }
}

/**
 * The ticket lists (spec 2-tickets.md §2 "Ticket manager", §6, §7; wire-shapes §4):
 * - `GET /tickets` (any signed-in user): query ListTicketsQuery; answers ListTicketsAnswer
 *   `{tickets: TicketL[], count, hasMore, counts: {open, pending, group}}`. See TicketListService.list.
 * - `GET /ticket/kanban` (plan feature useKanban, else 403 ERR_FEATURE_NOT_IN_PLAN): query KanbanQuery;
 *   answers `{tickets (with tags), count, hasMore}` of pending and open tickets. See TicketListService.kanban.
 * Both show only what the caller may see (src/visibility.ts) of the caller's company; bad parameters
 * answer 400 ERR_VALIDATION. Returns the service (its caches can be cleared by tests).
 *
 * Answers are cached per caller and query and forgotten on every real-time event of the company (see
 * AnswerCache: never stale on the node that made a change). They carry `Cache-Control: private, no-cache`
 * and, when kept in the cache, a strong `ETag`; a request whose `If-None-Match` holds the current ETag is
 * answered 304 without a body.
 */
export async function listRoutes(app: PluginApp, deps: TicketsDeps, answers = new AnswerCache(), display?: DisplayCache): Promise<TicketListService> {
  const svc = new TicketListService(deps, { versionOf: (companyId, scopes) => answers.version(companyId, scopes), statsTtlMs: answers.ttlMs, display });
  deps.realtime.observe((companyId, event, opts) => {
    if (companyId === null) return;
    // Ticket and message events go to the audiences that may see the ticket (before and after the change):
    // the lists of other viewers did not change. Anything else may touch every list of the company.
    answers.bump(companyId, opts.audiences && SCOPED_EVENT.test(event) ? opts.audiences : undefined);
    // The viewer facts and the names the serialization reads (lists, answers and live events alike): fresh
    // at once instead of within their 5 s TTL.
    if (RELATED_EVENT.test(event)) svc.clearCaches();
  });

  /** Answers from the cache, computing with `load` (serialized by the route's 200 schema) on a miss. */
  const cached = async (req: FastifyRequest, reply: FastifyReply, route: string, load: () => Promise<unknown>) => {
    const a = req.auth;
    const key = `${a.companyId}:${a.id}:${a.profile}:${a.super ? 1 : 0}:${route}:${JSON.stringify(req.query)}`;
    const scopes = viewerAudiences(await svc.viewer(a));
    const answer = await answers.get(a.companyId, key, scopes, async () => reply.serialize(await load()));
    reply.header('cache-control', 'private, no-cache');
    if (answer.etag) {
      reply.header('etag', answer.etag);
      if (req.headers['if-none-match'] === answer.etag) return reply.code(304).send();
    }
    return reply.type('application/json; charset=utf-8').send(answer.body);
  };

  app.get('/tickets', {
    preValidation: parseJsonArrayParams,
    schema: {
      tags: ['tickets'],
      summary: 'The ticket manager lists: tabs open, pending, group, closed and search',
      querystring: ListTicketsQuery,
      response: { 200: ListTicketsAnswer, ...errors },
    },
  }, async (req, reply) => cached(req, reply, 'list', () => svc.list(req.auth, req.query)));

  app.get('/ticket/kanban', {
    config: { feature: 'useKanban' },
    preValidation: parseJsonArrayParams,
    schema: {
      tags: ['tickets'],
      summary: 'Open and pending tickets with their tags, for the kanban board',
      querystring: KanbanQuery,
      response: { 200: KanbanAnswer, ...errors },
    },
  }, async (req, reply) => cached(req, reply, 'kanban', () => svc.kanban(req.auth, req.query)));

  return svc;
}
