/**
 * Web server of the built UI: the shell (shell/dist) at /, each built area (its package's dist) under
 * /areas/<name>/, `/env.js` with the API URL, the SPA fallback (unknown GET paths that want HTML get
 * index.html), and the API at the UI's own origin: `/backend/*` (REST and socket.io, websockets included)
 * is proxied to the API with the prefix stripped (@fastify/http-proxy). Content-hashed files are cached
 * for a year; index.html, remoteEntry.js and env.js are revalidated on every load.
 *
 * Compression: the production build writes `<file>.br` and `<file>.gz` beside each text asset
 * (PrecompressPlugin, shell/federation.mjs); a browser that accepts brotli or gzip (Accept-Encoding) gets
 * that file with Content-Encoding, the original's Content-Type and the compressed file's Content-Length
 * (@fastify/static `preCompressed`), others the original. Text assets carry `Vary: Accept-Encoding`, so
 * shared caches keep each encoding apart. Nothing is compressed per request.
 *
 * Same origin: unless API_URL is set, `/env.js` tells the browser the API is `<the origin it asked>/backend`
 * (scheme and host of the request, X-Forwarded-* honoured), so http://localhost:3000, http://127.0.0.1:3000
 * and http://<LAN address>:3000 all work, the refresh cookie is first-party, and the API's CORS allowlist
 * (FRONTEND_URL) stays strict for every other origin. An explicit API_URL still wins (the browser then
 * calls that URL directly, cross-origin).
 *
 * Run: `tsx shell/serve.ts` (or the compiled shell/dist-server/serve.js) with WEB_PORT (default 3000),
 * WEB_HOST (default HOST or 0.0.0.0), API_PROXY_TARGET (where /backend goes, default
 * http://127.0.0.1:$PORT, PORT default 8080), optionally API_URL, and BACKEND_URL when the API's media URLs
 * are absolute on another origin (allowed in the CSP; `npm start` makes them `/backend/...` on this origin). `npm start` at the repository root
 * runs it next to the API (scripts/start.mjs).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import fastifyStatic from '@fastify/static';
import { loadAreaManifests } from './area-manifests.cjs';
import httpProxy from '@fastify/http-proxy';

/** Path prefix under which the web server proxies the API (same origin as the UI). */
export const API_PREFIX = '/backend';

/** shell/ (this file runs from shell/serve.ts under tsx, and from shell/dist-server/serve.js when built). */
export const SHELL_DIR = existsSync(join(__dirname, 'package.json')) ? __dirname : resolve(__dirname, '..');
export const ROOT_DIR = resolve(SHELL_DIR, '..');

export interface WebArea {
  name: string;
  /** Folder of the area's package, relative to the repository root. */
  package: string;
}

export interface WebServerOptions {
  /**
   * Base URL of the Atendo API the browser talks to, written into /env.js as it is. Unset: the browser uses
   * `<request origin>/backend`, proxied by this server to `apiProxyTarget`.
   */
  apiUrl?: string;
  /**
   * The API's BACKEND_URL (the base of the media URLs it writes). A path (`/backend`, `npm start`'s default)
   * stays on this origin; an absolute URL of another origin is allowed for images, media and fetch in the CSP.
   */
  mediaUrl?: string;
  /** Where `/backend/*` is proxied (REST and socket.io); unset: no proxy (then `apiUrl` is required). */
  apiProxyTarget?: string;
  /** The built shell (default shell/dist). */
  shellDist?: string;
  /** The areas to serve (default: the area manifests, microfrontends/*\/area.json); each from `<root>/<package>/dist`. */
  areas?: WebArea[];
  rootDir?: string;
  logger?: FastifyServerOptions['logger'];
}

/** The areas of the manifests under `<root>/microfrontends/*\/area.json` (see area-manifests.cjs). */
export function readAreas(root = ROOT_DIR): WebArea[] {
  return loadAreaManifests(root).map(({ name, package: pkg }) => ({ name, package: pkg }));
}

const HASHED = /\.[0-9a-f]{8,}\.(js|css|woff2?|png|svg|jpg)$/;
/** The precompressed twins the build writes beside text assets (shell/federation.mjs, PrecompressPlugin). */
const PRECOMPRESSED = /\.(br|gz)$/;
/** Files that may have a precompressed twin: their answer depends on Accept-Encoding. */
const COMPRESSIBLE = /\.(js|mjs|css|html|json|svg|txt|map)$/;

/** Caching headers of a static file; `path` is the file sent (a `.br`/`.gz` twin is judged by its original's name). */
function cacheHeaders(res: { setHeader(name: string, value: string): unknown }, path: string): void {
  const original = path.replace(PRECOMPRESSED, '');
  res.setHeader('Cache-Control', HASHED.test(original) ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (COMPRESSIBLE.test(original)) res.setHeader('Vary', 'Accept-Encoding');
}

/**
 * Where customers' profile pictures live when a channel gives a link instead of a file: WhatsApp's
 * (pps.whatsapp.net, Baileys `profilePictureUrl`) and Meta's CDNs (Messenger, Instagram). Contact avatars
 * (`profilePicUrl`) are shown from there as the product family's client does.
 */
export const AVATAR_HOSTS = ['https://pps.whatsapp.net', 'https://*.fbcdn.net', 'https://*.cdninstagram.com'] as const;

/** The origin of an absolute URL, or '' (a path, or not a URL). */
function originOf(url: string | undefined): string {
  try {
    return url ? new URL(url).origin : '';
  } catch {
    return '';
  }
}

/**
 * The Content-Security-Policy of the UI: scripts from this origin only; the API for fetch, socket.io and images;
 * media (uploads) from this origin (`/backend/public/...`) or from `mediaUrl`'s origin when the API's
 * BACKEND_URL is absolute elsewhere; contact avatars from the channels' CDNs (AVATAR_HOSTS); the help videos'
 * YouTube thumbnails (i.ytimg.com) and cookie-less player (www.youtube-nocookie.com, the only frame allowed;
 * microfrontends/agent/src/pages/helps/video.ts).
 */
export function contentSecurityPolicy(apiUrl: string, mediaUrl?: string): string {
  const api = originOf(apiUrl);
  const ws = api ? api.replace(/^http/, 'ws') : '';
  const media = originOf(mediaUrl);
  const extra = (...origins: string[]) => [...new Set(origins.filter(Boolean))].join(' ');
  const src = (name: string, ...values: string[]) => `${name} ${values.filter(Boolean).join(' ')}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    src('img-src', "'self' data: blob:", extra(api, media), AVATAR_HOSTS.join(' '), 'https://i.ytimg.com'),
    src('media-src', "'self' data: blob:", extra(api, media)),
    src('connect-src', "'self'", extra(api, media), ws),
    "font-src 'self' data:",
    "frame-src https://www.youtube-nocookie.com",
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
  if (!opts.apiUrl && !opts.apiProxyTarget) throw new Error('createWebServer: give apiUrl, apiProxyTarget, or both');
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: true,
    // The caller's X-Request-Id when sane (a proxy's), else a UUID; passed on to the API with proxied calls.
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(req.headers['x-request-id']) ? req.headers['x-request-id'] : randomUUID()),
  });
  const apiUrl = opts.apiUrl?.replace(/\/+$/, '');
  // Same origin: 'self' covers the API (and its websocket) under /backend.
  const csp = contentSecurityPolicy(apiUrl ?? '', opts.mediaUrl);
  const envJs = (origin: string) => `window.__ATENDO_ENV__ = ${JSON.stringify({ API_URL: apiUrl ?? `${origin}${API_PREFIX}` })};\n`;

  if (opts.apiProxyTarget) {
    const target = opts.apiProxyTarget.replace(/\/+$/, '');
    const forwarded = (req: FastifyRequest, headers: Record<string, unknown>) => ({
      ...headers,
      // The API sees the browser's address (rate limits per client IP) and the origin it used.
      'x-forwarded-for': [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', '),
      'x-forwarded-proto': req.protocol,
      'x-forwarded-host': req.host,
      'x-request-id': req.id,
    });
    await app.register(httpProxy, {
      // Each proxied request is logged by the API (one line with the same request id), not here too.
      logLevel: 'warn',
      upstream: target,
      prefix: API_PREFIX,
      rewritePrefix: '',
      websocket: true,
      // Bodies (JSON, multipart uploads, signed webhooks) pass through as bytes.
      replyOptions: { rewriteRequestHeaders: (req, headers) => forwarded(req as FastifyRequest, headers) },
      // (rewriteRequestHeaders is supported for websockets, as the package's README says; its types lack it.)
      wsClientOptions: {
        // The socket's handshake authenticates by its access token (socket.io auth) or the refresh cookie.
        rewriteRequestHeaders: (headers: Record<string, unknown>, req: FastifyRequest) => ({
          ...headers,
          ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}),
          ...(req.headers['user-agent'] ? { 'user-agent': req.headers['user-agent'] } : {}),
          'x-forwarded-for': [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', '),
        }),
      } as never,
    });
  }

  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Referrer-Policy', 'strict-origin-when-cross-origin');
    void reply.header('X-Frame-Options', 'DENY');
    void reply.header('Content-Security-Policy', csp);
    return payload;
  });

  app.get('/env.js', async (req, reply) => reply.header('Cache-Control', 'no-store').type('application/javascript; charset=utf-8').send(envJs(`${req.protocol}://${req.host}`)));
  app.get('/healthz', async () => ({ status: 'ok' }));

  await app.register(fastifyStatic, { root: shellDist, prefix: '/', index: false, wildcard: true, cacheControl: false, preCompressed: true, setHeaders: cacheHeaders });
  const sendIndex = (reply: FastifyReply) => reply.header('Cache-Control', 'no-cache').sendFile('index.html', shellDist);
  app.get('/', async (_req, reply) => sendIndex(reply));

  for (const area of opts.areas ?? readAreas(rootDir)) {
    const dist = join(rootDir, area.package, 'dist');
    if (!existsSync(join(dist, 'remoteEntry.js'))) {
      app.log.warn({ area: area.name, dist }, 'area not built: its routes will show a load error');
      continue;
    }
    await app.register(fastifyStatic, { root: dist, prefix: `/areas/${area.name}/`, decorateReply: false, index: false, wildcard: true, cacheControl: false, preCompressed: true, setHeaders: cacheHeaders });
  }

  // SPA fallback: client-side routes get index.html; missing assets stay 404.
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0];
    const wantsHtml = (req.method === 'GET' || req.method === 'HEAD') && !path.startsWith('/areas/') && !path.startsWith('/js/') && !path.startsWith(`${API_PREFIX}/`) && !/\.[a-z0-9]{1,5}$/i.test(path);
    if (!wantsHtml) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return sendIndex(reply);
  });
  return app;
}

async function main(): Promise<void> {
  const port = Number(process.env.WEB_PORT ?? 3000);
  const host = process.env.WEB_HOST ?? process.env.HOST ?? '0.0.0.0';
  const apiUrl = process.env.API_URL || undefined;
  const apiProxyTarget = process.env.API_PROXY_TARGET || `http://127.0.0.1:${process.env.PORT ?? 8080}`;
  const production = process.env.NODE_ENV === 'production';
  // JSON lines; static files are not logged one by one.
  // The API's media base (BACKEND_URL): allowed in the CSP when it is an absolute URL of another origin.
  const mediaUrl = process.env.BACKEND_URL || undefined;
  const app = await createWebServer({ apiUrl, apiProxyTarget, mediaUrl, logger: { level: process.env.LOG_LEVEL ?? (production ? 'info' : 'warn') } });
  const close = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close());
  process.once('SIGTERM', () => void close());
  await app.listen({ port, host });
  const where = apiUrl ? `API ${apiUrl}` : `API at ${API_PREFIX} on this origin, proxied to ${apiProxyTarget}`;
  if (production) app.log.info(`Atendo web UI on port ${port} (${where})`);
  else console.log(`  Atendo web UI on http://${host === '0.0.0.0' ? 'localhost' : host}:${port} (${where})`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
