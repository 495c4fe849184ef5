/**
 * The production web server sends compressed JavaScript (issue 31, item 10). The web bundles are built as
 * `npm run build` builds them (rspack production mode, PrecompressPlugin in shell/federation.mjs writes
 * `.br` and `.gz` twins), then the real web server (shell/serve.ts, listening on a loopback port) is asked
 * for every asset of the shell and of each area, over plain HTTP with node:http (no automatic
 * decompression): with `Accept-Encoding: gzip, deflate, br` (Chromium's), with gzip only, with none, and
 * with HEAD. Each answer is checked: Content-Encoding, the original's Content-Type, Content-Length of the
 * bytes sent, `Vary: Accept-Encoding`, the caching headers, and the decompressed body equal to the file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildWeb } from '../shell/test/harness';
import { createWebServer, readAreas, ROOT_DIR, SHELL_DIR } from '../shell/serve';

jest.setTimeout(600_000);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function get(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

const CHROMIUM_ACCEPT = 'gzip, deflate, br, zstd';

describe('the web server sends precompressed assets by Accept-Encoding', () => {
  let app: FastifyInstance;
  let port = 0;
  /** URL path -> file on disk, for every built JavaScript file of the shell and the areas. */
  const assets = new Map<string, string>();

  beforeAll(async () => {
    buildWeb(500_000);
    const shellDist = join(SHELL_DIR, 'dist');
    for (const f of walk(shellDist)) if (f.endsWith('.js')) assets.set(`/${relative(shellDist, f)}`, f);
    for (const area of readAreas()) {
      const dist = join(ROOT_DIR, area.package, 'dist');
      if (!existsSync(dist)) continue;
      for (const f of walk(dist)) if (f.endsWith('.js')) assets.set(`/areas/${area.name}/${relative(dist, f)}`, f);
    }
    app = await createWebServer({ apiUrl: 'http://127.0.0.1:9' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app?.close();
  });

  test('the build wrote a brotli and a gzip twin, smaller than the original, beside each JavaScript file of 1 KB or more', () => {
    expect(assets.size).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const file of assets.values()) {
      const size = statSync(file).size;
      if (size < 1024) continue;
      for (const ext of ['.br', '.gz']) {
        if (!existsSync(file + ext) || statSync(file + ext).size >= size) missing.push(relative(ROOT_DIR, file + ext));
      }
    }
    expect(missing).toEqual([]);
  });

  test('brotli to a browser that accepts it, gzip to one that accepts only gzip, the original to one that accepts neither', async () => {
    let checked = 0;
    for (const [path, file] of assets) {
      const original = readFileSync(file);
      const hashed = /\.[0-9a-f]{8,}\.js$/.test(path);
      const cache = hashed ? 'public, max-age=31536000, immutable' : 'no-cache';
      const compressed = existsSync(`${file}.br`);

      const br = await get(port, path, { 'accept-encoding': CHROMIUM_ACCEPT });
      expect([path, br.status, br.headers['content-type'], br.headers.vary, br.headers['cache-control']]).toEqual([path, 200, 'application/javascript; charset=utf-8', 'Accept-Encoding', cache]);
      expect([path, br.headers['content-encoding']]).toEqual([path, compressed ? 'br' : undefined]);
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      expect(compressed ? brotliDecompressSync(br.body).equals(original) : br.body.equals(original)).toBe(true);

      const gz = await get(port, path, { 'accept-encoding': 'gzip' });
      expect([path, gz.headers['content-encoding'], gz.headers.vary]).toEqual([path, compressed ? 'gzip' : undefined, 'Accept-Encoding']);
      expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
      expect(compressed ? gunzipSync(gz.body).equals(original) : gz.body.equals(original)).toBe(true);

      for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'br;q=0, gzip;q=0' }] as Record<string, string>[]) {
        const plain = await get(port, path, headers);
        expect([path, headers, plain.status, plain.headers['content-encoding'], plain.headers.vary]).toEqual([path, headers, 200, undefined, 'Accept-Encoding']);
        expect(Number(plain.headers['content-length'])).toBe(original.length);
        expect(plain.body.equals(original)).toBe(true);
      }
      if (compressed) checked += 1;
    }
    expect(checked).toBeGreaterThan(10);
  });

  test('HEAD answers the headers of the GET it stands for', async () => {
    const [path, file] = [...assets].find(([p, f]) => p.startsWith('/js/') && existsSync(`${f}.br`))!;
    const head = await get(port, path, { 'accept-encoding': CHROMIUM_ACCEPT }, 'HEAD');
    expect([head.status, head.headers['content-encoding'], Number(head.headers['content-length']), head.body.length]).toEqual([200, 'br', statSync(`${file}.br`).size, 0]);
  });

  test('the shell page and the SPA fallback stay HTML, revalidated; a missing asset stays 404 with any encoding', async () => {
    for (const path of ['/', '/login', '/tickets/12']) {
      const res = await get(port, path, { 'accept-encoding': CHROMIUM_ACCEPT, accept: 'text/html' });
      expect([path, res.status, res.headers['cache-control']]).toEqual([path, 200, 'no-cache']);
      const body = res.headers['content-encoding'] === 'br' ? brotliDecompressSync(res.body) : res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body) : res.body;
      expect(body.toString('utf8')).toContain('<div');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    for (const path of ['/js/nope.0123456789.js', '/areas/inbox/nope.js', '/js/nope.0123456789.js.br']) {
      expect([path, (await get(port, path, { 'accept-encoding': CHROMIUM_ACCEPT })).status]).toEqual([path, 404]);
    }
  });
});
