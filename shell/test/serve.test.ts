import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentSecurityPolicy, createWebServer } from '../serve';

describe('web server', () => {
  const root = mkdtempSync(join(tmpdir(), 'atendo-web-'));
  const shellDist = join(root, 'shell-dist');
  beforeAll(() => {
    mkdirSync(join(shellDist, 'js'), { recursive: true });
    writeFileSync(join(shellDist, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(shellDist, 'js', 'main.0123456789.js'), 'console.log(1)');
    mkdirSync(join(root, 'areas/dash/dist/js'), { recursive: true });
    writeFileSync(join(root, 'areas/dash/dist/remoteEntry.js'), 'var x = 1;');
    writeFileSync(join(root, 'areas/dash/dist/js/1.abcdef0123.js'), 'var y = 2;');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('serves env.js, the shell, built areas, and index.html for client routes', async () => {
    const app = await createWebServer({
      apiUrl: 'https://api.example.com/',
      shellDist,
      rootDir: root,
      areas: [
        { name: 'dashboard', package: 'areas/dash' },
        { name: 'missing', package: 'areas/none' },
      ],
    });
    const env = await app.inject('/env.js');
    expect(env.statusCode).toBe(200);
    expect(env.headers['content-type']).toMatch(/^application\/javascript/);
    expect(env.headers['cache-control']).toBe('no-store');
    expect(env.body).toBe('window.__ATENDO_ENV__ = {"API_URL":"https://api.example.com"};\n');

    for (const url of ['/', '/login', '/tickets/0b0c', '/campaign/3/report?x=1']) {
      const res = await app.inject(url);
      expect([url, res.statusCode, res.headers['cache-control']]).toEqual([url, 200, 'no-cache']);
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['content-security-policy']).toBe(contentSecurityPolicy('https://api.example.com'));
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const js = await app.inject('/js/main.0123456789.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const entry = await app.inject('/areas/dashboard/remoteEntry.js');
    expect([entry.statusCode, entry.headers['cache-control'], entry.body]).toEqual([200, 'no-cache', 'var x = 1;']);
    expect((await app.inject('/areas/dashboard/js/1.abcdef0123.js')).headers['cache-control']).toBe('public, max-age=31536000, immutable');

    for (const url of ['/js/nope.0123456789.js', '/areas/missing/remoteEntry.js', '/areas/dashboard/nope.js', '/favicon.ico']) {
      expect([url, (await app.inject(url)).statusCode]).toEqual([url, 404]);
    }
    expect((await app.inject({ method: 'POST', url: '/login' })).statusCode).toBe(404);
    await app.close();
  });

  test('the CSP allows the API for fetch, websocket and images only', () => {
    expect(contentSecurityPolicy('http://localhost:8080')).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: http://localhost:8080 https://pps.whatsapp.net https://*.fbcdn.net https://*.cdninstagram.com https://i.ytimg.com; media-src 'self' data: blob: http://localhost:8080; connect-src 'self' http://localhost:8080 ws://localhost:8080; font-src 'self' data:; frame-src https://www.youtube-nocookie.com; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
    );
    expect(contentSecurityPolicy('https://api.x.io')).toContain("connect-src 'self' https://api.x.io wss://api.x.io");
    // Same origin (no API_URL): media under /backend need nothing more; an absolute media base elsewhere is allowed.
    expect(contentSecurityPolicy('', '/backend')).toContain("media-src 'self' data: blob:;");
    expect(contentSecurityPolicy('', 'https://media.x.io/backend')).toContain("media-src 'self' data: blob: https://media.x.io;");
    expect(contentSecurityPolicy('', 'https://media.x.io/backend')).toContain("connect-src 'self' https://media.x.io;");
  });

  test('refuses to start without a built shell', async () => {
    await expect(createWebServer({ apiUrl: 'http://x', shellDist: join(root, 'nothing') })).rejects.toThrow(/not built/);
  });
});
