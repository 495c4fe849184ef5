import { isErrorCode } from '@atendo/sdk';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import { findNonFinite } from '@atendo/core/src/plugins/errors';

/**
 * Bad-input sweep over EVERY route of a kernel with every discovered plugin, read from the OpenAPI
 * document (so routes added by any plugin are covered without listing them here). As the super admin
 * (auth never hides validation), each route gets: bad path ids (0, -1, 'abc', 99999999999), wrong types
 * for each body property, 100 kB strings, a JSON string / an array instead of the body object, invalid
 * JSON text, and wrong types for each query parameter. Every answer must be a 2xx (input that happens to
 * be acceptable) or a 4xx whose JSON body has a catalogue `error` code; never a 5xx.
 */

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  format?: string;
  nullable?: boolean;
  default?: unknown;
};
interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Public, rate-limited sign-in: repeated bad attempts lock the address; covered by auth.test.ts. */
const SKIP = new Set(['POST /auth/login']);
const BAD_IDS: unknown[] = [0, -1, 'abc', 99999999999, '1e309'];
const BIG = 'x'.repeat(100_000);

/** Every JSON type a schema admits (unions flattened). */
function typesOf(s: Schema | undefined): Set<string> {
  const out = new Set<string>();
  if (!s) return out;
  if (s.type) for (const t of Array.isArray(s.type) ? s.type : [s.type]) out.add(t);
  if (s.nullable) out.add('null');
  for (const sub of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) for (const t of typesOf(sub)) out.add(t);
  if (s.enum) for (const v of s.enum) out.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v);
  if (s.const !== undefined) out.add(typeof s.const);
  return out;
}

/** A plausible valid value for a schema (so a wrong property is the only reason to refuse). */
function sample(s: Schema | undefined, depth = 0): unknown {
  if (!s || depth > 4) return 'x';
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const alt = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].find((x) => !typesOf(x).has('null') || typesOf(x).size > 1);
  if (alt) return sample(alt, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'integer':
    case 'number': {
      let n = Math.max(1, s.minimum ?? 1, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
      if (s.maximum !== undefined) n = Math.min(n, s.maximum);
      return n;
    }
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, depth + 1));
    case 'null':
      return null;
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = sample(s.properties?.[k], depth + 1);
      return o;
    }
    default:
      if (s.format === 'email') return 'sweep@example.com';
      if (s.format === 'date') return '2024-01-01';
      if (s.format === 'date-time') return '2024-01-01T00:00:00.000Z';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }
}

/** Values of the wrong JSON type for a property (never one the schema admits as such). */
function wrongValues(s: Schema | undefined): unknown[] {
  const t = typesOf(s);
  const out: unknown[] = [];
  if (!t.has('object')) out.push({ x: 1 });
  if (!t.has('array')) out.push([1, 2]);
  if (!t.has('string')) out.push('abc');
  if (!t.has('boolean') && !t.has('string')) out.push(true);
  if (!t.has('number') && !t.has('integer') && !t.has('string')) out.push(1.5);
  if (t.has('integer') || t.has('number')) out.push(-1, 99999999999, 1e308);
  if (!t.has('null')) out.push(null);
  if (t.has('string')) out.push(BIG);
  return out;
}

/** Query-string values of the wrong type (or out of range) for a parameter. */
function wrongQuery(s: Schema | undefined): string[] {
  const t = typesOf(s);
  const out = ['x'.repeat(5000)];
  if (!t.has('string')) out.push('abc', '');
  if (t.has('integer') || t.has('number')) out.push('-1', '0', '99999999999999999999', '1e309', '-1e309', 'NaN', '1.5');
  if (t.has('boolean')) out.push('maybe');
  return out;
}

/**
 * True when `raw` (a path or query string) is certainly invalid for an integer/number schema: not a finite
 * number, not an integer for `integer`, or outside the declared bounds. Such probes must be refused (4xx).
 */
function numericRefusal(s: Schema | undefined, raw: string): boolean {
  const t = typesOf(s);
  if (t.has('string') || !(t.has('integer') || t.has('number')) || s?.anyOf || s?.oneOf) return false;
  const n = Number(raw);
  if (raw === '' || !Number.isFinite(n)) return true;
  if (t.has('integer') && !t.has('number') && !Number.isInteger(n)) return true;
  if (s?.minimum !== undefined && n < s.minimum) return true;
  if (s?.maximum !== undefined && n > s.maximum) return true;
  return s?.exclusiveMinimum !== undefined && n <= s.exclusiveMinimum;
}

const paramValue = (s: Schema | undefined) => {
  const t = typesOf(s);
  return t.has('integer') || t.has('number') ? Math.min(2147483647, s?.maximum ?? 2147483647) : 'zzz-sweep';
};

interface Probe {
  route: string;
  what: string;
  method: string;
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
  /** The declared schema rejects this input: a 2xx is a failure too. */
  mustRefuse?: boolean;
}

function probesFor(path: string, method: string, op: Operation): Probe[] {
  const route = `${method.toUpperCase()} ${path}`;
  const params = (op.parameters ?? []).filter((p) => p.in === 'path');
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const hasBody = !['get', 'head'].includes(method);
  const baseParams: Record<string, unknown> = Object.fromEntries(params.map((p) => [p.name, paramValue(p.schema)]));
  const baseQuery: Record<string, unknown> = Object.fromEntries(query.filter((q) => q.required).map((q) => [q.name, sample(q.schema)]));
  const baseBody = bodySchema ? sample(bodySchema) : undefined;
  const url = (pv: Record<string, unknown>, q: Record<string, unknown>, rawQuery = '') => {
    const p = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pv[name])));
    const qs = Object.entries(q).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`);
    if (rawQuery) qs.push(rawQuery);
    return qs.length ? `${p}?${qs.join('&')}` : p;
  };
  const out: Probe[] = [];
  const M = method.toUpperCase();
  const payload = hasBody && baseBody !== undefined ? baseBody : undefined;

  for (const p of params) {
    for (const v of BAD_IDS) {
      out.push({ route, what: `path ${p.name}=${String(v)}`, method: M, url: url({ ...baseParams, [p.name]: v }, baseQuery), payload, mustRefuse: numericRefusal(p.schema, String(v)) });
    }
  }
  if (hasBody) {
    const u = url(baseParams, baseQuery);
    const props = bodySchema?.properties ?? {};
    for (const [name, s] of Object.entries(props)) {
      for (const v of wrongValues(s)) {
        const body = { ...((baseBody as Record<string, unknown>) ?? {}), [name]: v };
        out.push({ route, what: `body ${name}=${v === BIG ? '<100 kB>' : JSON.stringify(v)}`, method: M, url: u, payload: body });
      }
    }
    out.push({ route, what: 'body: a 100 kB JSON string', method: M, url: u, payload: JSON.stringify(BIG), headers: { 'content-type': 'application/json' } });
    out.push({ route, what: 'body: an array', method: M, url: u, payload: [baseBody ?? {}, 1] });
    out.push({ route, what: 'body: a number', method: M, url: u, payload: '42', headers: { 'content-type': 'application/json' } });
    out.push({ route, what: 'body: invalid JSON', method: M, url: u, payload: '{"a": ', headers: { 'content-type': 'application/json' } });
    out.push({ route, what: 'body: empty JSON', method: M, url: u, payload: '', headers: { 'content-type': 'application/json' } });
    out.push({ route, what: 'body: text/plain', method: M, url: u, payload: 'hello', headers: { 'content-type': 'text/plain' } });
  }
  for (const q of query) {
    for (const v of wrongQuery(q.schema)) {
      const what = `query ${q.name}=${v.length > 40 ? `<${v.length} chars>` : v}`;
      out.push({ route, what, method: M, url: url(baseParams, { ...baseQuery, [q.name]: v }), payload, mustRefuse: numericRefusal(q.schema, v) });
    }
    const others = Object.fromEntries(Object.entries(baseQuery).filter(([k]) => k !== q.name));
    out.push({ route, what: `query ${q.name} repeated`, method: M, url: url(baseParams, others, `${encodeURIComponent(q.name)}=a&${encodeURIComponent(q.name)}=b`), payload });
  }
  return out;
}

describe('bad-input sweep over every route', () => {
  let k: TestKernel;
  let doc: OpenApi;
  beforeAll(async () => {
    k = await createTestKernel({ plugins: 'discover' });
    doc = k.app.swagger() as unknown as OpenApi;
  }, 60_000);
  afterAll(() => k?.close());

  test('the OpenAPI document lists the kernel routes (the sweep sees what is registered)', () => {
    const routes = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    for (const r of ['GET /settings', 'PUT /settings/{key}', 'PUT /companySettings', 'GET /companySettings/{companyId}', 'POST /auth/signup', 'GET /auth/me']) {
      expect(routes).toContain(r);
    }
    for (const p of k.plugins) expect(p.id).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  test('no input answers 5xx; every refusal is a 4xx with a catalogue code', async () => {
    const probes: Probe[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/docs') || path.includes('*')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!METHODS.includes(method) || SKIP.has(`${method.toUpperCase()} ${path}`)) continue;
        probes.push(...probesFor(path, method, op));
      }
    }
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const started = Date.now();
    const BATCH = 16;
    for (let i = 0; i < probes.length; i += BATCH) {
      await Promise.all(
        probes.slice(i, i + BATCH).map(async (p) => {
          const res = await k.as(k.superAdmin, p.method, p.url, p.payload, p.headers);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const head = `${p.route} [${p.what}] -> ${res.statusCode}`;
          if (res.statusCode === 429) return; // rate limited public routes (sign-up)
          if (res.statusCode >= 500) {
            failures.push(`${head} ${res.body.slice(0, 200)}`);
            return;
          }
          if (res.statusCode >= 400) {
            let body: { error?: unknown } | undefined;
            try {
              body = res.json();
            } catch {
              body = undefined;
            }
            if (!body || !isErrorCode(body.error)) failures.push(`${head} non-catalogue body ${res.body.slice(0, 200)}`);
          } else if (res.statusCode >= 300) {
            failures.push(`${head} unexpected redirect`);
          } else if (p.mustRefuse) {
            failures.push(`${head} accepted input its schema forbids`);
          }
        }),
      );
    }
    const elapsed = Date.now() - started;
    // The sweep really ran: bad path ids, bodies and queries of the settings routes alone give dozens.
    expect(probes.length).toBeGreaterThan(60);
    expect(probes.some((p) => p.route === 'PUT /settings/{key}' && p.what === 'body: invalid JSON')).toBe(true);
    expect(probes.filter((p) => p.mustRefuse).length).toBeGreaterThan(10);
    expect(failures).toEqual([]);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    // How long the sweep took is printed, not asserted (a loaded CI machine is no clock).
    console.log(`input sweep: ${probes.length} probes in ${elapsed} ms`);
  }, 120_000);
});

describe('findNonFinite (the kernel guard against coerced Infinity/NaN)', () => {
  test('finds non-finite numbers at any depth of plain data, with their path', () => {
    expect(findNonFinite({ a: 1, b: 'x', c: [1, 2, { d: 3 }] })).toBeUndefined();
    expect(findNonFinite({ pageNumber: Infinity })).toBe('/pageNumber');
    expect(findNonFinite({ a: [{ b: -Infinity }] })).toBe('/a/0/b');
    expect(findNonFinite([1, NaN])).toBe('/1');
    expect(findNonFinite(NaN)).toBe('/');
    const q = Object.create(Object.create(null)) as Record<string, unknown>; // fast-querystring's map
    q.pageNumber = Infinity;
    expect(findNonFinite(q)).toBe('/pageNumber');
  });

  test('does not walk buffers, streams or other class instances below the top level, and survives cycles', () => {
    class Part {
      size = Infinity;
    }
    const body: Record<string, unknown> = { file: new Part(), buf: Buffer.from('x') };
    body.self = body;
    expect(findNonFinite(body)).toBeUndefined();
  });
});
