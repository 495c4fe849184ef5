/**
 * Media on the web origin, as `npm start` serves it (issue 31, item 5). The API writes its media URLs from
 * BACKEND_URL, and `npm start` sets it to `/backend` (scripts/start.mjs mediaBaseUrl): a path the browser
 * resolves against whatever origin it uses, where the web server proxies the API. Headless Chromium signs in at
 * http://127.0.0.1:<port> (not the `localhost` the API's defaults name) and opens a ticket with a picture, a
 * voice note and a video sent by the attendant, whose contact has a stored picture; the attendant has a profile
 * picture; an announcement has an image. Each `<img>` must have loaded (naturalWidth > 0), each `<audio>` /
 * `<video>` its metadata, with no failed request, no answer >= 400 and no Content-Security-Policy violation in
 * the console. A quick reply with an attachment, chosen from the "/" list, sends the file (its fetch is allowed
 * by connect-src), never the text "/cat".
 * Skipped, with a message, when /usr/bin/chromium is absent.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import announcementsPlugin from '@atendo/plugin-announcements';
import quickMessagesPlugin from '@atendo/plugin-quick-messages';
import { createWebServer, ROOT_DIR } from '../shell/serve';
import { browserDescribe, buildWeb, freePort, launchProfile } from '../shell/test/harness';
import { ffmpegPath } from '../plugins/tickets/src/services/voice';

const describeBrowser = browserDescribe('e2e/browser-media.test.ts');
jest.setTimeout(300_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** BACKEND_URL as `npm start` gives it to the API (scripts/start.mjs, with no BACKEND_URL / API_URL set). */
function npmStartMediaBase(): string {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.BACKEND_URL;
  delete env.API_URL;
  return execFileSync(process.execPath, ['--input-type=module', '-e', "const m = await import('./scripts/start.mjs'); process.stdout.write(m.mediaBaseUrl());"], { cwd: ROOT_DIR, env, encoding: 'utf8' });
}

/** CRC-32 of PNG chunks. */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A real `w`x`h` RGB PNG of one colour. */
function png(w: number, h: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.concat(Array.from({ length: w }, () => Buffer.from(rgb)))]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A short clip made with the ffmpeg npm installs. */
function clip(args: string[]): Buffer {
  return execFileSync(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', ...args, 'pipe:1'], { maxBuffer: 1 << 24 });
}

/** A multipart body as a browser sends it. */
async function multipart(fields: [string, string | { name: string; type: string; data: Buffer }][]): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const fd = new FormData();
  for (const [key, v] of fields) {
    if (typeof v === 'string') fd.append(key, v);
    else fd.append(key, new Blob([new Uint8Array(v.data)], { type: v.type }), v.name);
  }
  const res = new Response(fd);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}

describeBrowser('media through the web origin (npm start defaults): pictures, audio, video, avatars, announcement images, quick-reply files', () => {
  let k: TestKernel;
  let web: FastifyInstance;
  let base: string;
  let email: string;
  let password: string;
  let token: string;
  let ticket: Json;
  let announcement: Json;
  const mediaBase = npmStartMediaBase();

  const upload = async (url: string, fields: Parameters<typeof multipart>[0], bearer = token) => {
    const { payload, headers } = await multipart(fields);
    const res = await k.app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: `Bearer ${bearer}` } });
    expect([url, res.statusCode, res.statusCode === 200 ? '' : res.body]).toEqual([url, 200, '']);
    return res.json() as Json;
  };
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await k.app.inject({ method: method as 'GET', url, payload: body as Json, headers: { authorization: `Bearer ${token}` } });
    expect([url, res.statusCode]).toEqual([url, 200]);
    return res.json() as Json;
  };

  beforeAll(async () => {
    expect(mediaBase).toBe('/backend');
    buildWeb(400_000);
    k = await createTestKernel({
      plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, announcementsPlugin, quickMessagesPlugin],
      env: { BACKEND_URL: mediaBase, CHANNELS_META_APP_SECRET: 'x'.repeat(32), CHANNELS_META_GRAPH_URL: 'http://127.0.0.1:9' },
    });
    const apiUrl = await k.listen();
    const port = await freePort();
    // As `npm start` runs it: the API proxied under /backend, BACKEND_URL handed to it too.
    web = await createWebServer({ apiProxyTarget: apiUrl, mediaUrl: mediaBase });
    await web.listen({ port, host: '127.0.0.1' });
    base = `http://127.0.0.1:${port}`;

    const { admin, companyId } = await k.createCompany({ name: 'Mídia Ltda' });
    password = `senha-${randomBytes(4).toString('hex')}`;
    email = `ana.${randomBytes(3).toString('hex')}@example.com`;
    const user = (await k.as(admin, 'POST', '/users', { name: 'Ana Mídia', email, password, profile: 'admin' })).json();
    const login = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
    expect(login.statusCode).toBe(200);
    token = login.json().token;

    // The attendant's profile picture.
    await upload(`/users/${user.id}/media-upload`, [['profileImage', { name: 'ana.png', type: 'image/png', data: png(48, 48, [200, 40, 40]) }]]);
    // A customer whose stored picture (a file of the contacts area, as the product family keeps them).
    const conn = await call('POST', '/whatsapp', { name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: '400000000000091', facebookUserToken: 'EAAG-media', isDefault: true });
    const contact = await call('POST', '/contacts', { name: 'Cliente Mídia', number: '5511987651234' });
    const dir = join(k.config.uploadsDir, `company${companyId}`, 'contacts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cliente.png'), png(40, 40, [40, 160, 40]));
    await k.db('contacts').where({ id: contact.id }).update({ urlPicture: 'cliente.png' });
    ticket = await call('POST', '/tickets', { contactId: contact.id, queueId: null, whatsappId: conn.id });
    // A picture, a voice note and a video, as the attendant sends them.
    await upload(`/messages/${ticket.id}`, [
      ['medias', { name: 'foto.png', type: 'image/png', data: png(64, 48, [30, 90, 200]) }],
      ['medias', { name: 'audio.ogg', type: 'audio/ogg', data: clip(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libopus', '-f', 'ogg']) }],
      ['medias', { name: 'video.webm', type: 'video/webm', data: clip(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1', '-c:v', 'libvpx', '-b:v', '200k', '-f', 'webm']) }],
      ['body', ''],
      ['fromMe', 'true'],
    ]);
    // A quick reply with a picture.
    const quick = await call('POST', '/quick-messages', { shortcode: 'cat', message: 'Nosso catálogo' });
    await upload(`/quick-messages/${quick.id}/media-upload`, [['file', { name: 'catalogo.png', type: 'image/png', data: png(32, 32, [240, 200, 0]) }]]);
    // An announcement with an image, for every company.
    const superToken = k.superAdmin.token;
    const created = await k.app.inject({ method: 'POST', url: '/announcements', payload: { title: 'Novidade com imagem', text: 'Veja a imagem', priority: 1, status: true }, headers: { authorization: `Bearer ${superToken}` } });
    expect(created.statusCode).toBe(200);
    announcement = await upload(`/announcements/${created.json().id}/media-upload`, [['file', { name: 'aviso.png', type: 'image/png', data: png(80, 40, [120, 0, 160]) }]], superToken);
  }, 420_000);

  afterAll(async () => {
    await web?.close();
    await k?.close();
  });

  test('every media URL the API writes is on the web origin (/backend/public/...)', () => {
    expect(announcement.mediaPath).toMatch(/^\/backend\/public\/company\d+\/announcements\/.+\?e=\d+&t=/);
  });

  test('the ticket, the avatars and the announcement show their media; a quick reply with a file sends the file', async () => {
    const { page, close } = await launchProfile({ width: 1366, height: 900 });
    const failed: string[] = [];
    const refused: string[] = [];
    const bad: string[] = [];
    // A failed request (blocked by the CSP, refused, reset); not the ones Chromium itself cancels (net::ERR_ABORTED:
    // a navigation leaving a page, a media element that has read enough), whose loads are checked below instead.
    page.on('requestfailed', (r) => {
      const why = r.failure()?.errorText ?? '';
      if (!why.includes('ERR_ABORTED')) failed.push(`${r.url()} ${why}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && r.url().includes('/public/company')) bad.push(`${r.status()} ${r.url()}`);
    });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to (load|connect)/i.test(m.text())) refused.push(m.text());
    });
    page.on('pageerror', (err) => refused.push(String(err)));
    try {
      await page.goto(`${base}/login`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Senha', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Acessar' }).click();
      await page.waitForURL(`${base}/tickets`, { timeout: 30_000 });
      await page.getByTestId('tickets-manager').waitFor({ timeout: 30_000 });

      await page.goto(`${base}/tickets/${ticket.uuid}`);
      await page.getByTestId('image-thumb').first().waitFor({ timeout: 30_000 });
      await page.getByTestId('audio').first().waitFor();
      await page.getByTestId('video').first().waitFor();
      await page.getByTestId('user-menu-picture').waitFor();

      // Every picture on the page loaded, every audio/video has its metadata.
      type Seen = { src: string; ok: boolean };
      const loaded = async () =>
        page.evaluate<{ imgs: Seen[]; media: Seen[] }>(`({
          imgs: [...document.querySelectorAll('img')].filter((i) => i.getAttribute('src')).map((i) => ({ src: i.src, ok: i.complete && i.naturalWidth > 0 })),
          media: [...document.querySelectorAll('audio, video')].map((m) => ({ src: m.currentSrc || m.src, ok: m.readyState >= 1 && !m.error })),
        })`);
      await waitFor(async () => {
        const now = await loaded();
        return now.imgs.length >= 3 && now.media.length >= 2 && [...now.imgs, ...now.media].every((x) => x.ok);
      }, 30_000).catch(() => undefined);
      const seen = await loaded();
      expect(seen.imgs.filter((i) => !i.ok)).toEqual([]);
      expect(seen.media.filter((m) => !m.ok)).toEqual([]);
      // The message picture, the contact's avatar (conversation header) and the attendant's, all from this origin.
      expect(seen.imgs.length).toBeGreaterThanOrEqual(3);
      expect(seen.media.length).toBe(2);
      for (const x of [...seen.imgs, ...seen.media]) expect(x.src.startsWith(`${base}/backend/public/company`)).toBe(true);

      // The announcement's image.
      await page.getByTestId('announcements-button').click();
      const item = page.getByTestId(`announcement-${announcement.id}`);
      await item.waitFor();
      await item.locator('img').waitFor();
      type Img = { complete: boolean; naturalWidth: number; src: string };
      await waitFor(() => item.locator('img').evaluate((i) => (i as unknown as Img).complete && (i as unknown as Img).naturalWidth > 0), 15_000).catch(() => undefined);
      expect(await item.locator('img').evaluate((i) => ({ ok: (i as unknown as Img).complete && (i as unknown as Img).naturalWidth === 80, origin: new URL((i as unknown as Img).src).origin }))).toEqual({ ok: true, origin: base });
      await page.keyboard.press('Escape');

      // A quick reply with an attachment sends the file, not the text.
      const messages = async () => (await call('GET', `/messages/${ticket.id}`)).messages as Json[];
      const earlier = new Set((await messages()).map((m) => m.id));
      await page.getByTestId('message-text').fill('/cat');
      await page.getByTestId('quick-reply').first().waitFor();
      await page.getByTestId('message-text').press('Enter');
      await waitFor(async () => (await messages()).some((m) => !earlier.has(m.id)), 20_000);
      await page.waitForTimeout(1000); // anything else it would send
      const fresh = (await messages()).filter((m) => !earlier.has(m.id));
      expect(fresh.map((m) => ({ mediaType: m.mediaType, mediaUrl: typeof m.mediaUrl === 'string' && /catalogo|\.png\?/.test(m.mediaUrl) }))).toEqual([{ mediaType: 'image', mediaUrl: true }]);
      expect(fresh[0].body).toContain('Nosso catálogo');
      expect(fresh.some((m) => String(m.body).includes('/cat'))).toBe(false);
      // The box is empty again: nothing left to send as text.
      expect(await page.getByTestId('message-text').inputValue()).toBe('');

      expect(refused).toEqual([]);
      expect(failed).toEqual([]);
      expect(bad).toEqual([]);
    } finally {
      await close();
    }
  });
});
