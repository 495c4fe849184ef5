import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorCatalogue, isErrorCode, isOutage, type ErrorBody, type ErrorCode } from '@atendo/sdk';

/** Builds the catalogue error body. */
export function errorBody(code: ErrorCode, message?: string, extra?: Record<string, unknown>): ErrorBody {
  return { ...(extra ?? {}), error: code, message: message ?? catalogueEntry(code).message };
}

function catalogueEntry(code: ErrorCode): { status: number; message: string } {
  return errorCatalogue()[code] ?? { status: 500, message: code };
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'ERR_PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'ERR_VALIDATION',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'ERR_INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'ERR_INVALID_JSON',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_REQ_FILE_TOO_LARGE: 'ERR_PAYLOAD_TOO_LARGE',
  FST_PARTS_LIMIT: 'ERR_PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'ERR_PAYLOAD_TOO_LARGE',
  FST_FIELDS_LIMIT: 'ERR_PAYLOAD_TOO_LARGE',
  FST_JWT_NO_AUTHORIZATION_IN_HEADER: 'ERR_SESSION_EXPIRED',
  FST_ERR_BAD_URL: 'ERR_VALIDATION',
  FST_ERR_MAX_PARAM_LENGTH: 'ERR_VALIDATION',
};

/**
 * Errors the multipart parser (@fastify/busboy, under @fastify/multipart) raises for a malformed body: a
 * multipart content type without its boundary, a body that ends before its closing boundary (the part's
 * stream fails while a route reads it). Plain `Error`s without a code, recognised by their messages here,
 * in the one place every route's errors pass: they are the client's fault (400 ERR_VALIDATION).
 */
const MULTIPART_ERRORS = [/^Multipart: Boundary not found$/, /^Boundary required$/, /^Unexpected end of multipart data$/, /terminated early due to unexpected end of multipart data$/, /^Malformed part header$/, /^Unexpected end of form$/];

/**
 * True when `err` is the multipart parser's refusal of a malformed body (see MULTIPART_ERRORS) or, for a
 * multipart request (`multipart`), a part's stream closed before its end: the body stopped without its
 * closing boundary while a route read the part (Node's ERR_STREAM_PREMATURE_CLOSE from `toBuffer`/pipeline).
 */
export function isMalformedMultipart(err: Error, multipart = false): boolean {
  const code = (err as { code?: unknown }).code;
  if (multipart && code === 'ERR_STREAM_PREMATURE_CLOSE') return true;
  if (code !== undefined || (err as { statusCode?: unknown }).statusCode !== undefined) return false;
  return MULTIPART_ERRORS.some((re) => re.test(String(err.message)));
}

/**
 * Maps any thrown error to `{status, body}`; never leaks internals of a 5xx. `ctx.multipart`: the request
 * is multipart/form-data (a part's stream closing early is then the client's malformed body). An outage
 * (`isOutage`: the database unreachable, restarting or backing off) is 503 ERR_SERVICE_UNAVAILABLE
 * (`outage: true`), never 500.
 */
export function toErrorReply(err: FastifyError | AppError | Error, ctx: { multipart?: boolean } = {}): { status: number; body: ErrorBody; log: boolean; outage?: boolean } {
  if (err instanceof AppError) return { status: err.statusCode, body: errorBody(err.code, err.message, err.extra), log: err.statusCode >= 500 };
  const fe = err as FastifyError & { validation?: unknown[] };
  if (fe.validation) return { status: 400, body: errorBody('ERR_VALIDATION', fe.message), log: false };
  if (fe.code && FASTIFY_CODES[fe.code]) {
    const code = FASTIFY_CODES[fe.code];
    return { status: catalogueEntry(code).status, body: errorBody(code, fe.message), log: false };
  }
  if (isMalformedMultipart(err, ctx.multipart)) return { status: 400, body: errorBody('ERR_VALIDATION', `Malformed multipart body: ${err.message}`), log: false };
  if (fe.statusCode === 429) return { status: 429, body: errorBody('ERR_TOO_MANY_REQUESTS'), log: false };
  // Postgres: invalid text representation / out of range / value too long on user input -> 400.
  const pgCode = (err as { code?: string }).code;
  if (pgCode === '22P02' || pgCode === '22003' || pgCode === '22001' || pgCode === '22007' || pgCode === '22008' || pgCode === '22021') {
    return { status: 400, body: errorBody('ERR_VALIDATION', 'A value is out of range or malformed'), log: true };
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code: ErrorCode = isErrorCode(fe.message) ? fe.message : fe.statusCode === 404 ? 'ERR_NOT_FOUND' : fe.statusCode === 415 ? 'ERR_UNSUPPORTED_MEDIA_TYPE' : fe.statusCode === 413 ? 'ERR_PAYLOAD_TOO_LARGE' : 'ERR_VALIDATION';
    return { status: fe.statusCode, body: errorBody(code, fe.message), log: false };
  }
  // A dependency unreachable (the database down or restarting, its pool backing off: isOutage): nothing is
  // wrong with the request; 503 tells the client to try again (issue 37 item 9). Logged once per outage by
  // the database layer, not per request.
  if (isOutage(err)) return { status: 503, body: errorBody('ERR_SERVICE_UNAVAILABLE', 'Service temporarily unavailable (database unreachable), try again shortly'), log: false, outage: true };
  return { status: 500, body: errorBody('ERR_INTERNAL'), log: true };
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs (a malformed
 * percent-encoding in the path, FST_ERR_BAD_URL; a path parameter longer than `maxParamLength`,
 * FST_ERR_MAX_PARAM_LENGTH) answer 400 ERR_VALIDATION like every other bad input, instead of Fastify's
 * own non-catalogue body.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body, log } = toErrorReply(err);
  if (log) request.log.error({ err }, 'request failed');
  void reply.status(status).send(body);
}

/**
 * Path of the first non-finite number (`Infinity`, `NaN`) in `value`, or undefined. Ajv's type coercion
 * turns strings such as "1e309" into `Infinity`, which then passes `integer` together with any
 * `minimum`/`maximum` (ajv checks those only for finite numbers); JSON itself cannot carry one.
 */
export function findNonFinite(value: unknown, path = ''): string | undefined {
  // Below the top level only plain JSON data (arrays, plain objects) is walked: multipart parts, streams
  // and buffers are not.
  const stack: [unknown, string][] = [[value, path]];
  const seen = new Set<object>();
  while (stack.length) {
    const [v, p] = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return p || '/';
    } else if (v && typeof v === 'object' && !seen.has(v)) {
      const proto = Object.getPrototypeOf(v) as unknown;
      // The top level (params, query: prototype-less maps of their own) is always walked.
      if (v !== value && !Array.isArray(v) && proto !== Object.prototype && proto !== null) continue;
      if (Buffer.isBuffer(v)) continue;
      seen.add(v);
      for (const [k, child] of Object.entries(v)) stack.push([child, `${p}/${k}`]);
    }
  }
  return undefined;
}

/** Installs the error and not-found handlers: every error answer is `{error, message}` from the catalogue. */
export function installErrorHandlers(app: FastifyInstance): void {
  // After schema validation (and its coercion), before any handler: refuse non-finite numbers as 400.
  app.addHook('preHandler', async (request) => {
    for (const [part, value] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
      const at = findNonFinite(value);
      if (at) throw new AppError('ERR_VALIDATION', `${part}${at} must be a finite number`);
    }
  });
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const multipart = typeof request.isMultipart === 'function' && request.isMultipart();
    const { status, body, log, outage } = toErrorReply(err, { multipart });
    if (log) request.log.error({ err }, 'request failed');
    else if (outage) request.log.warn({ code: body.error, status, cause: err.message }, 'request refused: database unreachable');
    else request.log.info({ code: body.error, status }, 'request refused');
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody('ERR_NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}
