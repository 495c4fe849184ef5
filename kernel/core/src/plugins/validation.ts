import type { FastifyInstance } from 'fastify';
import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';

const BASE: Options = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false };

/**
 * Request validation. Query strings, path params and headers arrive as text, so they are coerced to the
 * schema's types ('2' -> 2, repeated keys -> arrays). JSON bodies are NOT coerced: a wrong-typed field
 * (`"users": true` for an integer) is refused with 400 ERR_VALIDATION instead of being silently converted.
 * Unknown body properties are dropped where a schema sets `additionalProperties: false`.
 */
export function installValidators(app: FastifyInstance): void {
  const loose = addFormats(new Ajv({ ...BASE, coerceTypes: 'array' }));
  const strict = addFormats(new Ajv({ ...BASE, coerceTypes: false }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : loose).compile(schema));
}
