/**
 * Static web server of the built UI: the shell (shell/dist) at /, each built area (its package's dist)
 * under /areas/<name>/, `/env.js` with the API URL, and the SPA fallback (unknown GET paths that want HTML
 * get index.html). Content-hashed files are cached for a year; index.html, remoteEntry.js and env.js are
 * revalidated on every load.
 *
 * Run: `tsx shell/serve.ts` with WEB_PORT (default 3000), WEB_HOST (default HOST or 0.0.0.0) and API_URL
 * (default http://localhost:$PORT, PORT default 8080). `npm start` at the repository root runs it next to
 * the API (scripts/start.mjs).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import fastifyStatic from '@fastify/static';

export const SHELL_DIR = __dirname;
export const ROOT_DIR = resolve(__dirname, '..');

export interface WebArea {
  name: string;
  /** Folder of the area's package, relative to the repository root. */
  package: string;
}

export interface WebServerOptions {
  /** Base URL of the Atendo API the browser talks to (written into /env.js). */
  apiUrl: string;
  /** The built shell (default shell/dist). */
  shellDist?: string;
  /** The areas to serve (default shell/areas.json); each from `<root>/<package>/dist`. */
  areas?: WebArea[];
  rootDir?: string;
  logger?: FastifyServerOptions['logger'];
}

/** The areas of shell/areas.json. */
export function readAreas(file = join(SHELL_DIR, 'areas.json')): WebArea[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { areas: WebArea[] }).areas;
}

const HASHED = /\.[0-9a-f]{8,}\.(js|css|woff2?|png|svg|jpg)$/;

function cacheHeaders(res: { setHeader(name: string, value: string): unknown }, path: string): void {
  res.setHeader('Cache-Control', HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
}

/** The Content-Security-Policy of the UI: scripts from this origin only; the API for fetch, socket.io and images. */
export function contentSecurityPolicy(apiUrl: string): string {
  let api = '';
  let ws = '';
  try {
    const u = new URL(apiUrl);
    api = u.origin;
    ws = `${u.protocol === 'https:' ? 'wss:' : 'ws:'}//${u.host}`;
  } catch {
    /* a bad API_URL: same-origin only */
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${api}`.trim(),
    `media-src 'self' data: blob: ${api}`.trim(),
    `connect-src 'self' ${api} ${ws}`.trim(),
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** Builds the web server (not listening). Areas whose dist is missing are skipped with a warning. */
export async function createWebServer(opts: WebServerOptions): Promise<FastifyInstance> {
  const rootDir = opts.rootDir ?? ROOT_DIR;
  const shellDist = opts.shellDist ?? join(SHELL_DIR, 'dist');
  const indexFile = join(shellDist, 'index.html');
  if (!existsSync(indexFile)) throw new Error(`the shell is not built (${indexFile} is missing): run npm run build -w shell`);
  const app = Fastify({ logger: opts.logger ?? false, trustProxy: true });
  const apiUrl = opts.apiUrl.replace(/\/+$/, '');
  const envJs = `window.__ATENDO_ENV__ = ${JSON.stringify({ API_URL: apiUrl })};\n`;
  const csp = contentSecurityPolicy(apiUrl);

  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Referrer-Policy', 'strict-origin-when-cross-origin');
    void reply.header('X-Frame-Options', 'DENY');
    void reply.header('Content-Security-Policy', csp);
    return payload;
  });

  app.get('/env.js', async (_req, reply) => reply.header('Cache-Control', 'no-store').type('application/javascript; charset=utf-8').send(envJs));
  app.get('/healthz', async () => ({ status: 'ok' }));

  await app.register(fastifyStatic, { root: shellDist, prefix: '/', index: false, wildcard: true, cacheControl: false, setHeaders: cacheHeaders });
  const sendIndex = (reply: FastifyReply) => reply.header('Cache-Control', 'no-cache').sendFile('index.html', shellDist);
  app.get('/', async (_req, reply) => sendIndex(reply));

  for (const area of opts.areas ?? readAreas()) {
    const dist = join(rootDir, area.package, 'dist');
    if (!existsSync(join(dist, 'remoteEntry.js'))) {
      app.log.warn({ area: area.name, dist }, 'area not built: its routes will show a load error');
      continue;
    }
    await app.register(fastifyStatic, { root: dist, prefix: `/areas/${area.name}/`, decorateReply: false, index: false, wildcard: true, cacheControl: false, setHeaders: cacheHeaders });
  }

  // SPA fallback: client-side routes get index.html; missing assets stay 404.
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0];
    const wantsHtml = (req.method === 'GET' || req.method === 'HEAD') && !path.startsWith('/areas/') && !path.startsWith('/js/') && !/\.[a-z0-9]{1,5}$/i.test(path);
    if (!wantsHtml) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return sendIndex(reply);
  });
  return app;
}

async function main(): Promise<void> {
  const port = Number(process.env.WEB_PORT ?? 3000);
  const host = process.env.WEB_HOST ?? process.env.HOST ?? '0.0.0.0';
  const apiUrl = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 8080}`;
  const app = await createWebServer({ apiUrl, logger: { level: process.env.LOG_LEVEL === 'silent' ? 'silent' : 'warn' } });
  const close = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close());
  process.once('SIGTERM', () => void close());
  await app.listen({ port, host });
  console.log(`  Atendo web UI on http://${host === '0.0.0.0' ? 'localhost' : host}:${port} (API ${apiUrl})`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
