import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOGUE, isErrorCode, type ErrorBody, type ErrorCode } from '@atendo/sdk';

/** Builds the catalogue error body. */
export function errorBody(code: ErrorCode, message?: string, extra?: Record<string, unknown>): ErrorBody {
  return { ...(extra ?? {}), error: code, message: message ?? ERROR_CATALOGUE[code].message };
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
};

/** Maps any thrown error to `{status, body}`; never leaks internals of a 5xx. */
export function toErrorReply(err: FastifyError | AppError | Error): { status: number; body: ErrorBody; log: boolean } {
  if (err instanceof AppError) return { status: err.statusCode, body: errorBody(err.code, err.message, err.extra), log: err.statusCode >= 500 };
  const fe = err as FastifyError & { validation?: unknown[] };
  if (fe.validation) return { status: 400, body: errorBody('ERR_VALIDATION', fe.message), log: false };
  if (fe.code && FASTIFY_CODES[fe.code]) {
    const code = FASTIFY_CODES[fe.code];
    return { status: ERROR_CATALOGUE[code].status, body: errorBody(code, fe.message), log: false };
  }
  if (fe.statusCode === 429) return { status: 429, body: errorBody('ERR_TOO_MANY_REQUESTS'), log: false };
  // Postgres: invalid text representation / out of range / value too long on user input -> 400.
  const pgCode = (err as { code?: string }).code;
  if (pgCode === '22P02' || pgCode === '22003' || pgCode === '22001' || pgCode === '22007' || pgCode === '22008') {
    return { status: 400, body: errorBody('ERR_VALIDATION', 'A value is out of range or malformed'), log: true };
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code: ErrorCode = isErrorCode(fe.message) ? fe.message : fe.statusCode === 404 ? 'ERR_NOT_FOUND' : fe.statusCode === 415 ? 'ERR_UNSUPPORTED_MEDIA_TYPE' : fe.statusCode === 413 ? 'ERR_PAYLOAD_TOO_LARGE' : 'ERR_VALIDATION';
    return { status: fe.statusCode, body: errorBody(code, fe.message), log: false };
  }
  return { status: 500, body: errorBody('ERR_INTERNAL'), log: true };
}

/** Installs the error and not-found handlers: every error answer is `{error, message}` from the catalogue. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, log } = toErrorReply(err);
    if (log) request.log.error({ err }, 'request failed');
    else request.log.info({ code: body.error, status }, 'request refused');
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody('ERR_NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}
