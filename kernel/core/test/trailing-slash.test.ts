import { createTestKernel, type TestKernel } from '@atendo/testing';
import { withoutTrailingSlash } from '@atendo/core/src/app';

/**
 * The family's clients call list routes with a trailing slash (`/queueIntegration/?pageNumber=1`,
 * `/queue/`, `/prompt/`...). Before the kernel's router ignored it, such a call reached `/x/:id` with an
 * empty id and answered 400 (issue 31 item 1). Every GET route without path parameters that the kernel and
 * its discovered plugins register (read from the OpenAPI document, so no list is kept here) must answer the
 * same with and without the slash, and with `?pageNumber=1` where it takes a page.
 */
type OpenApi = { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };

/** Answers that differ between two calls by nature (counters, clocks), compared by status only. */
const VOLATILE = /^\/(metrics|health|ready|live|docs)/;

describe('trailing slash on every list route', () => {
  let k: TestKernel;
  let lists: { path: string; paged: boolean }[];
  beforeAll(async () => {
    k = await createTestKernel({ plugins: 'discover' });
    const doc = k.app.swagger() as unknown as OpenApi;
    lists = Object.entries(doc.paths)
      .filter(([p, ops]) => ops.get && !p.includes('{') && !p.includes('*') && p !== '/')
      .map(([p, ops]) => ({ path: p, paged: (ops.get.parameters ?? []).some((x) => x.in === 'query' && x.name === 'pageNumber') }));
  }, 60_000);
  afterAll(() => k?.close());

  test('the sweep sees the routes of the issue', () => {
    const paths = lists.map((l) => l.path);
    for (const p of ['/queueIntegration', '/prompt', '/queue', '/plantao', '/helps']) expect(paths).toContain(p);
    expect(lists.filter((l) => l.paged).length).toBeGreaterThan(5);
  });

  test('`/x/` and `/x/?pageNumber=1` answer exactly what `/x` and `/x?pageNumber=1` answer', async () => {
    const failures: string[] = [];
    const compare = async (plain: string, slashed: string, volatile: boolean) => {
      const [a, b] = [await k.as(k.superAdmin, 'GET', plain), await k.as(k.superAdmin, 'GET', slashed)];
      if (a.statusCode !== b.statusCode) failures.push(`${slashed} -> ${b.statusCode} ${b.body.slice(0, 120)} (${plain} -> ${a.statusCode})`);
      // JSON answers must be equal; files (an .xlsx export carries its own timestamps) by type only.
      else if (String(a.headers['content-type']) !== String(b.headers['content-type'])) failures.push(`${slashed}: another content type than ${plain}`);
      else if (!volatile && String(a.headers['content-type']).includes('json') && a.body !== b.body) failures.push(`${slashed}: body differs from ${plain}`);
    };
    for (const { path, paged } of lists) {
      const volatile = VOLATILE.test(path);
      await compare(path, `${path}/`, volatile);
      if (paged) await compare(`${path}?pageNumber=1`, `${path}/?pageNumber=1`, volatile);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  test('the Integrations page call lists the integrations (was 400 "params/id must be integer")', async () => {
    const res = await k.as(k.superAdmin, 'GET', '/queueIntegration/?pageNumber=1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveProperty('queueIntegrations');
  });
});

describe('withoutTrailingSlash', () => {
  test('drops the slashes ending the path, keeps the query and the root', () => {
    expect(withoutTrailingSlash('/queue/')).toBe('/queue');
    expect(withoutTrailingSlash('/queueIntegration/?pageNumber=1')).toBe('/queueIntegration?pageNumber=1');
    expect(withoutTrailingSlash('/queue//')).toBe('/queue');
    expect(withoutTrailingSlash('/queue/1/')).toBe('/queue/1');
    expect(withoutTrailingSlash('/queue?x=a/')).toBe('/queue?x=a/');
    expect(withoutTrailingSlash('/')).toBe('/');
    expect(withoutTrailingSlash('/?a=1')).toBe('/?a=1');
    expect(withoutTrailingSlash('//')).toBe('/');
  });
});
