import { isErrorCode } from '@atendo/sdk';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import { isMalformedMultipart } from '@atendo/core/src/plugins/errors';

/**
 * Malformed multipart bodies on EVERY route that takes multipart/form-data (read from the OpenAPI document,
 * where the kernel lists each upload route's multipart body: no list kept here), with every discovered
 * plugin: a multipart type without a boundary, a body that is no multipart at all, a part cut before its
 * closing boundary, a part without its header, an empty body, a body that closes at once. Each must answer a
 * client error (4xx) with a catalogue code, never a 500 (issue 31 item 4: `/contacts/upload` and
 * `/contact-lists/:id/upload` answered 500). Path ids name real records where the test can make them, so the
 * body is read rather than refused for an unknown id.
 */
type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };

const B = 'AtendoBoundary42';
const FILE_HEAD = `--${B}\r\nContent-Disposition: form-data; name="file"; filename="lista.xlsx"\r\nContent-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n`;
const BODIES: { what: string; type: string; body: string }[] = [
  { what: 'multipart type without a boundary', type: 'multipart/form-data', body: 'hello' },
  { what: 'no multipart framing at all', type: `multipart/form-data; boundary=${B}`, body: 'hello world' },
  { what: 'a file part without its closing boundary', type: `multipart/form-data; boundary=${B}`, body: `${FILE_HEAD}PK\x03\x04 cut here` },
  { what: 'a part without its header', type: `multipart/form-data; boundary=${B}`, body: `--${B}\r\nContent-Disposition\r\n\r\nabc\r\n--${B}--\r\n` },
  { what: 'an empty body', type: `multipart/form-data; boundary=${B}`, body: '' },
  { what: 'only the closing boundary', type: `multipart/form-data; boundary=${B}`, body: `--${B}--\r\n` },
];

describe('malformed multipart on every upload route', () => {
  let k: TestKernel;
  let uploads: { method: string; path: string }[];
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    k = await createTestKernel({ plugins: 'discover' });
    const doc = k.app.swagger() as unknown as OpenApi;
    uploads = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody?.content?.['multipart/form-data'])
        .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
    const make = async (url: string, body: Record<string, unknown>) => {
      const res = await k.as(k.superAdmin, 'POST', url, body);
      return res.statusCode === 200 || res.statusCode === 201 ? (res.json().id as number) : undefined;
    };
    // Records of company 1 behind the upload routes' ids (the body is then read, not refused as unknown).
    const list = await make('/contact-lists', { name: 'Lista malformada' });
    if (list) ids['/contact-lists/{id}/upload'] = list;
    const quick = await make('/quick-messages', { shortcode: 'malformado', message: 'x' });
    if (quick) ids['/quick-messages/{id}/media-upload'] = quick;
    const campaign = await make('/campaigns', { name: 'Campanha malformada' });
    if (campaign) ids['/campaigns/{id}/media-upload'] = campaign;
    const announcement = await make('/announcements', { title: 'Aviso', text: 'x', priority: 1, status: true });
    if (announcement) ids['/announcements/{id}/media-upload'] = announcement;
    const connection = await make('/whatsapp', { name: 'Conexão malformada', queueIds: [] });
    if (connection) ids['/whatsapp/{id}/media-upload'] = connection;
    ids['/users/{id}/media-upload'] = k.superAdmin.id;
  }, 60_000);
  afterAll(() => k?.close());

  test('the upload routes are found, the two of the issue among them, with real ids', () => {
    const paths = uploads.map((u) => u.path);
    expect(paths).toEqual(expect.arrayContaining(['/contacts/upload', '/contact-lists/{id}/upload', '/messages/{ticketId}', '/api/messages/send']));
    expect(uploads.length).toBeGreaterThanOrEqual(10);
    expect(ids['/contact-lists/{id}/upload']).toBeGreaterThan(0);
  });

  test('every malformed body answers a 4xx with a catalogue code; never a 5xx', async () => {
    const failures: string[] = [];
    const exercised = new Set<string>();
    for (const { method, path } of uploads) {
      const url = path.replace(/\{[^}]+\}/g, () => String(ids[path] ?? 1));
      for (const b of BODIES) {
        const res = await k.as(k.superAdmin, method, url, b.body, { 'content-type': b.type });
        let code: unknown;
        try {
          code = res.json().error;
        } catch {
          code = undefined;
        }
        const head = `${method} ${url} [${b.what}] -> ${res.statusCode}`;
        if (res.statusCode < 400 || res.statusCode >= 500) failures.push(`${head} ${res.body.slice(0, 160)}`);
        else if (!isErrorCode(code)) failures.push(`${head} non-catalogue ${res.body.slice(0, 160)}`);
        if (res.statusCode !== 404) exercised.add(path);
      }
    }
    expect(failures).toEqual([]);
    // The routes really read the bodies (not refused for an unknown id).
    expect([...exercised]).toEqual(expect.arrayContaining(['/contacts/upload', '/contact-lists/{id}/upload']));
  }, 60_000);

  test('a cut body on the issue routes: 400 ERR_VALIDATION naming the malformed multipart', async () => {
    for (const url of ['/contacts/upload', `/contact-lists/${ids['/contact-lists/{id}/upload']}/upload`]) {
      const res = await k.as(k.superAdmin, 'POST', url, BODIES[2].body, { 'content-type': BODIES[2].type });
      expect([url, res.statusCode, res.json().error]).toEqual([url, 400, 'ERR_VALIDATION']);
      const nb = await k.as(k.superAdmin, 'POST', url, 'x', { 'content-type': 'multipart/form-data' });
      expect([url, nb.statusCode, nb.json().error]).toEqual([url, 400, 'ERR_VALIDATION']);
    }
  });
});

describe('isMalformedMultipart', () => {
  test("recognises the parser's refusals, and a premature close only on multipart requests", () => {
    expect(isMalformedMultipart(new Error('Multipart: Boundary not found'))).toBe(true);
    expect(isMalformedMultipart(new Error('Part terminated early due to unexpected end of multipart data'))).toBe(true);
    const premature = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    expect(isMalformedMultipart(premature, true)).toBe(true);
    expect(isMalformedMultipart(premature, false)).toBe(false);
    expect(isMalformedMultipart(new Error('connection refused'))).toBe(false);
    expect(isMalformedMultipart(Object.assign(new Error('Boundary required'), { code: 'X' }))).toBe(false);
  });
});
