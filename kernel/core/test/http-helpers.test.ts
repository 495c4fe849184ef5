import Fastify from 'fastify';
import { camelRow, errorResponses, ErrorResponse, iso, IsoDateTime, Nullable, Type, type PluginApp, type TypeBoxTypeProvider } from '@atendo/sdk';
import { PLAN_FEATURES, type PlanFeature } from '@atendo/sdk/wire';
import * as sdk from '@atendo/sdk';
import { installErrorHandlers } from '@atendo/core/src/plugins/errors';
import { installValidators } from '@atendo/core/src/plugins/validation';

/** A bare Fastify app with the kernel's validators and error answers, typed like a plugin's `ctx.app`. */
function app(): PluginApp {
  const a = Fastify({ logger: false });
  installErrorHandlers(a);
  installValidators(a);
  return a.withTypeProvider<TypeBoxTypeProvider>();
}

describe('SDK schema helpers', () => {
  test('errorResponses maps each status to the error body schema', () => {
    expect(errorResponses(400, 401, 404)).toEqual({ 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse });
    expect(errorResponses()).toEqual({});
  });

  test('iso: a Date becomes its ISO string, other values their string form, null/undefined an empty string', () => {
    expect(iso(new Date('2024-05-01T12:00:00Z'))).toBe('2024-05-01T12:00:00.000Z');
    expect(iso('2024-05-01')).toBe('2024-05-01');
    expect(iso(null)).toBe('');
    expect(iso(undefined)).toBe('');
    expect(IsoDateTime).toMatchObject({ type: 'string', format: 'date-time' });
  });

  test('camelRow: snake_case keys become camelCase, values (nested ones too) unchanged', () => {
    const nested = { tag_id: 1 };
    const out = camelRow<Record<string, unknown>>({ last_message: 'oi', id: 7, is_bot: false, tag_links: [nested], companyId: 3 });
    expect(out).toEqual({ lastMessage: 'oi', id: 7, isBot: false, tagLinks: [nested], companyId: 3 });
    expect((out.tagLinks as unknown[])[0]).toBe(nested);
  });

  test('Nullable: typed schemas get nullable (OpenAPI 3.0), unions anyOf with null', () => {
    expect(Nullable(Type.String({ maxLength: 3 }))).toMatchObject({ type: 'string', maxLength: 3, nullable: true });
    const u = Nullable(Type.Union([Type.Literal('a'), Type.Literal('b')]));
    expect(u.anyOf).toHaveLength(2);
    expect(u.anyOf?.[1]).toMatchObject({ type: 'null' });
  });

  test('the type provider types params, query and body from the schema; Nullable accepts null and refuses other types', async () => {
    const a = app();
    a.post(
      '/things/:id',
      {
        schema: {
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          querystring: Type.Object({ verbose: Type.Optional(Type.Boolean()) }),
          body: Type.Object({ name: Nullable(Type.String({ maxLength: 5 })), kind: Nullable(Type.Union([Type.Literal('a'), Type.Literal('b')])) }, { additionalProperties: false }),
          response: { 200: Type.Object({ id: Type.Integer(), name: Nullable(Type.String()), kind: Nullable(Type.String()), at: IsoDateTime, verbose: Type.Boolean() }), ...errorResponses(400) },
        },
      },
      async (req) => {
        // Compile-time checks: these assignments fail `tsc` if the provider does not type the request.
        const id: number = req.params.id;
        const name: string | null = req.body.name;
        const kind: 'a' | 'b' | null = req.body.kind;
        const verbose: boolean | undefined = req.query.verbose;
        return { id, name, kind, at: iso(new Date(0)), verbose: verbose ?? false };
      },
    );
    await a.ready();
    const ok = await a.inject({ method: 'POST', url: '/things/7?verbose=true', payload: { name: null, kind: 'b' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ id: 7, name: null, kind: 'b', at: '1970-01-01T00:00:00.000Z', verbose: true });
    expect((await a.inject({ method: 'POST', url: '/things/7', payload: { name: 'abc', kind: null } })).json()).toMatchObject({ name: 'abc', kind: null });
    for (const payload of [{ name: 5, kind: 'a' }, { name: 'toolong', kind: 'a' }, { name: null, kind: 'c' }]) {
      const bad = await a.inject({ method: 'POST', url: '/things/7', payload });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toBe('ERR_VALIDATION');
    }
    await a.close();
  });
});

describe('@atendo/sdk/wire', () => {
  test('resolves as its own entry and is the one source of the plan features the SDK re-exports', () => {
    const f: PlanFeature = 'useKanban';
    expect(PLAN_FEATURES).toContain(f);
    expect(sdk.PLAN_FEATURES).toBe(PLAN_FEATURES);
  });
});
