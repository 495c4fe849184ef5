import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { KernelConfig } from './config';
import { logSampler } from './log-sampler';
import { stdSerializers } from 'pino';

/**
 * The kernel's logs (pino through Fastify):
 * - development: human-readable coloured lines (pino-pretty, a dev dependency), unless LOG_FORMAT=json;
 * - production and test: one JSON object per line (LOG_FORMAT=pretty to read them locally);
 * - one line per answered request, `request completed`, with the request id (`reqId`: the caller's
 *   `X-Request-Id` when it is a sane token, else a new UUID; echoed in the answer's `X-Request-Id`), the
 *   company and user ids of the caller when signed in, method, route, URL, status and time. The
 *   `incoming request` line is at debug level.
 * - repeated lines are sampled: at most 20 a second per message text (the next one carries `suppressed`,
 *   how many were dropped; log-sampler.ts); the per-request lines are exempt;
 * - secrets never reach a line: URL query values of secret-looking keys (hub.verify_token, token, code,
 *   password, secret, key, signature...) become `[redacted]`, and so do the Authorization and Cookie headers,
 *   Set-Cookie, and fields named like passwords, tokens, secrets, API keys or reset codes in any logged
 *   object (first three levels).
 */

/** Query keys whose values never reach a log line (case-insensitive, matched anywhere in the key). */
// `t` is the signature of an upload URL (`/public/company1/...?e=<expiry>&t=<hmac>`): it opens the file for 7 days.
const SECRET_QUERY_KEY = /token|secret|password|passwd|code|key|signature|sig$|auth|^t$/i;
/** Object fields redacted wherever they appear (up to three levels deep). */
export const SECRET_FIELDS = [
  'password',
  'newPassword',
  'oldPassword',
  'passwordHash',
  'token',
  'accessToken',
  'refreshToken',
  'facebookUserToken',
  'verifyToken',
  'appSecret',
  'secret',
  'apiKey',
  'api_key',
  'authorization',
  'cookie',
  'resetCode',
  'hub.verify_token',
];

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-hub-signature-256"]',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((f) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(f) ? f : `["${f}"]`;
    const dot = key.startsWith('[') ? '' : '.';
    return [key, `*${dot}${key}`, `*.*${dot}${key}`];
  }),
];

/** `url` with the values of secret-looking query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq < 0 ? pair : pair.slice(0, eq);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      } catch {
        /* keep it raw */
      }
      return eq >= 0 && SECRET_QUERY_KEY.test(key) ? `${rawKey}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id: the caller's X-Request-Id when it is a sane token (a proxy's), else a new UUID. */
export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Fastify's per-request lines: one `request completed` line with the caller, secrets out of the URL. */
export class KernelLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'reqId' });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: { method: request.method, url: redactUrl(request.url) } }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const auth = (request as { auth?: { companyId?: number; id?: number } }).auth;
    const line = {
      companyId: auth?.companyId,
      userId: auth?.id,
      req: { method: request.method, route: request.routeOptions?.url, url: redactUrl(request.url), ip: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (reply.statusCode >= 500) reply.log.error(line, 'request completed');
    else reply.log.info(line, 'request completed');
  }
}

/** Whether pino-pretty (a dev dependency) can be loaded from here. */
function havePretty(): boolean {
  try {
    createRequire(__filename).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/** Properties of an error object that never reach a line: a pg error's `client` holds the connection's state (its cancel `secretKey` among it). */
const ERROR_DROPPED_PROPS = ['client', 'connection', '_events', '_eventsCount', 'socket'];

/**
 * The serializer of logged errors (`err`, and `error` as graphile-worker names it): pino's (type, message,
 * stack, cause and the error's own properties) without the properties of ERROR_DROPPED_PROPS.
 */
export function serializeError(err: Error): ReturnType<typeof stdSerializers.err> {
  if (!(err instanceof Error)) return err;
  const out = stdSerializers.err(err);
  for (const p of ERROR_DROPPED_PROPS) delete (out as Record<string, unknown>)[p];
  return out;
}

/** The Fastify logger options for `config` (pretty in development when available, JSON otherwise). */
export function loggerOptions(config: Pick<KernelConfig, 'LOG_LEVEL' | 'NODE_ENV' | 'LOG_FORMAT'>): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  const format = config.LOG_FORMAT ?? (config.NODE_ENV === 'development' ? 'pretty' : 'json');
  const pretty = format === 'pretty' && havePretty();
  return {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Repeated lines are sampled (20 a second per message; the next one says how many were dropped).
    hooks: { logMethod: logSampler() as never },
    serializers: {
      err: serializeError,
      error: serializeError,
      // Fastify's own request serializer would print the raw URL (query secrets) and every header.
      req: (req: { method?: string; url?: string; route?: string; ip?: string; routeOptions?: { url?: string } }) => ({
        method: req.method,
        route: req.route ?? req.routeOptions?.url,
        url: req.url ? redactUrl(req.url) : undefined,
        ip: req.ip,
      }),
    },
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, messageFormat: '{msg}' },
          },
        }
      : {}),
  };
}
