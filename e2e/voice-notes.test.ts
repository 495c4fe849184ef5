/**
 * Voice notes and reactions through the channels (issue 20, items 3 and 6): a clip recorded as the browser
 * records it (WebM/Opus) is posted as a voice note; the tickets plugin converts it and the channels plugin
 * sends it to a local Graph server standing in for Meta:
 * - WhatsApp Cloud API: the media upload carries OGG/Opus, mono, 48 kHz as WhatsApp's own clients send (what
 *   iPhones play: `type` audio/ogg, bytes `OggS` + `OpusHead` with 1 channel) and the message goes as `type: audio`;
 * - Messenger: an `audio` attachment whose URL serves an M4A (AAC) file;
 * - a recording under 10,000 bytes is refused and nothing is stored.
 * A reaction of ours goes to the Cloud API as `type: reaction` and is stored on the message; Messenger is
 * refused.
 * Nothing installed by hand (issue 31, item 6): the ffmpeg is the one `npm ci` installs (@ffmpeg-installer/ffmpeg),
 * never one from the PATH: FFMPEG_PATH is unset here and every process the code starts is recorded; each
 * must be the packaged binary inside node_modules (a bare `ffmpeg` would be looked up on the PATH). The test
 * clips are made with the same binary.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { ffmpegPath } from '../plugins/tickets/src/services/voice';

jest.setTimeout(120_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// No FFMPEG_PATH: the packaged binary is the only ffmpeg the code may run.
const savedFfmpegPath = process.env.FFMPEG_PATH;
delete process.env.FFMPEG_PATH;
/** Every command the code under test starts with child_process.spawn. */
const spawned: string[] = [];
// The module object itself (an `import * as` namespace would be a copy the code under test never calls).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = require('node:child_process') as typeof import('node:child_process');
const realSpawn = childProcess.spawn;
const spawnSpy = jest.spyOn(childProcess, 'spawn').mockImplementation(((cmd: string, ...rest: unknown[]) => {
  spawned.push(cmd);
  return (realSpawn as (...a: unknown[]) => ChildProcess)(cmd, ...rest);
}) as typeof childProcess.spawn);

/** `seconds` of a tone as Chromium's MediaRecorder writes it: WebM with Opus (made with the packaged ffmpeg). */
export function webmOpusClip(seconds: number): Buffer {
  return execFileSync(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-c:a', 'libopus', '-b:a', '64k', '-f', 'webm', 'pipe:1'], { maxBuffer: 1 << 24 });
}

interface GraphCall {
  method: string;
  path: string;
  contentType: string;
  raw: Buffer;
  json: Json;
}

function startGraph(calls: GraphCall[]): Promise<Server> {
  let n = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: Json = {};
      try {
        json = JSON.parse(raw.toString('utf8') || '{}');
      } catch {
        /* multipart media upload */
      }
      calls.push({ method: req.method ?? '', path: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), raw, json });
      res.setHeader('content-type', 'application/json');
      if ((req.url ?? '').includes('/media')) return res.end(JSON.stringify({ id: `MEDIA${++n}` }));
      if (json.recipient) return res.end(JSON.stringify({ recipient_id: json.recipient.id, message_id: `m_OUT${++n}` }));
      res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: json.to, wa_id: json.to }], messages: [{ id: `wamid.OUT${++n}` }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A multipart body built by the platform's FormData, as a browser sends it. */
async function multipart(fields: [string, string | { name: string; type: string; data: Buffer }][]): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const fd = new FormData();
  for (const [key, v] of fields) {
    if (typeof v === 'string') fd.append(key, v);
    else fd.append(key, new Blob([new Uint8Array(v.data)], { type: v.type }), v.name);
  }
  const res = new Response(fd);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}

describe('voice notes and reactions through the channels (local Graph server)', () => {
  let k: TestKernel;
  let graph: Server;
  const calls: GraphCall[] = [];
  let admin: TestUser;
  let cloudTicket: Json;
  let messengerTicket: Json;
  const PHONE = '210000000000001';
  const PAGE = '310000000000001';
  const TOKEN = 'EAAG-voice-' + randomBytes(6).toString('hex');

  const sendVoice = async (ticketId: number, clip: Buffer) => {
    const { payload, headers } = await multipart([
      ['medias', { name: 'audio-1.webm', type: 'audio/webm;codecs=opus', data: clip }],
      ['body', ''],
      ['fromMe', 'true'],
      ['isPrivate', 'false'],
      ['voice', 'true'],
    ]);
    return k.app.inject({ method: 'POST', url: `/messages/${ticketId}`, payload, headers: { ...headers, authorization: `Bearer ${admin.token}` } });
  };

  beforeAll(async () => {
    graph = await startGraph(calls);
    const graphUrl = `http://127.0.0.1:${(graph.address() as AddressInfo).port}`;
    k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin], env: { CHANNELS_META_APP_SECRET: 'x'.repeat(32), CHANNELS_META_GRAPH_URL: graphUrl } });
    ({ admin } = await k.createCompany({ name: 'Voice Co' }));
    const cloud = (await k.as(admin, 'POST', '/whatsapp', { name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE, facebookUserToken: TOKEN, isDefault: true })).json();
    const page = (await k.as(admin, 'POST', '/whatsapp', { name: 'Página', channel: 'facebook', facebookPageUserId: PAGE, facebookUserToken: TOKEN })).json();
    const c1 = (await k.as(admin, 'POST', '/contacts', { name: 'Maria Souza', number: '5511987650001' })).json();
    cloudTicket = (await k.as(admin, 'POST', '/tickets', { contactId: c1.id, queueId: null, whatsappId: cloud.id })).json();
    const [psid] = await k.db('contacts').insert({ companyId: admin.companyId, name: 'Cliente Messenger', number: '7700123456789012', channel: 'facebook' }).returning('id');
    messengerTicket = (await k.as(admin, 'POST', '/tickets', { contactId: psid.id ?? psid, queueId: null, whatsappId: page.id })).json();
    expect(cloudTicket.id).toBeDefined();
    expect(messengerTicket.id).toBeDefined();
  });
  afterAll(async () => {
    await k?.close();
    await new Promise((r) => graph?.close(r));
    spawnSpy.mockRestore();
    if (savedFfmpegPath !== undefined) process.env.FFMPEG_PATH = savedFfmpegPath;
  });

  test('the ffmpeg is the one npm installed, inside node_modules, not the PATH', () => {
    expect(ffmpegPath()).toContain(join('node_modules', '@ffmpeg-installer'));
    expect(ffmpegPath()).not.toBe('ffmpeg');
  });

  test('WhatsApp Cloud API: a browser recording reaches Graph as OGG/Opus, sent as type audio', async () => {
    const res = await sendVoice(cloudTicket.id, webmOpusClip(2));
    expect(res.statusCode).toBe(200);
    const m = res.json();
    expect(m).toMatchObject({ mediaType: 'audio', fromMe: true });
    expect(m.mediaUrl).toMatch(/\.(ogg|opus)\?/);
    const upload = (await waitFor(() => calls.find((c) => c.path.startsWith(`/${PHONE}/media`)), 10000)) as GraphCall;
    expect(upload.contentType).toMatch(/^multipart\/form-data/);
    const text = upload.raw.toString('latin1');
    expect(text).toMatch(/name="type"\r\n\r\naudio\/ogg/);
    expect(text).toContain('OggS');
    // OpusHead: version 1, 1 channel (mono), input sample rate 48,000 Hz (little endian), as WhatsApp's clients send.
    const head = upload.raw.indexOf('OpusHead');
    expect(head).toBeGreaterThan(0);
    expect(upload.raw[head + 8]).toBe(1);
    expect(upload.raw[head + 9]).toBe(1);
    expect(upload.raw.readUInt32LE(head + 12)).toBe(48000);
    // The conversion ran the packaged ffmpeg, and nothing was looked up on the PATH.
    expect(spawned.length).toBeGreaterThan(0);
    expect(spawned.every((cmd) => cmd === ffmpegPath())).toBe(true);
    const sent = (await waitFor(() => calls.find((c) => c.path.startsWith(`/${PHONE}/messages`) && c.json.type === 'audio'), 10000)) as GraphCall;
    expect(sent.json).toMatchObject({ messaging_product: 'whatsapp', type: 'audio', audio: { id: expect.stringMatching(/^MEDIA/) } });
    const row = await k.db('messages').where({ id: m.id }).first();
    await waitFor(async () => (await k.db('messages').where({ id: m.id }).first()).ack >= 1, 10000);
    expect(row.mediaPath).toMatch(/\.(ogg|opus)$/);
  });

  test('Messenger: the same recording goes as an audio attachment whose URL serves M4A (AAC)', async () => {
    const res = await sendVoice(messengerTicket.id, webmOpusClip(2));
    expect(res.statusCode).toBe(200);
    const sent = (await waitFor(() => calls.find((c) => c.path.startsWith(`/${PAGE}/messages`) && c.json.message?.attachment), 10000)) as GraphCall;
    expect(sent.json.message.attachment.type).toBe('audio');
    const url = new URL(sent.json.message.attachment.payload.url);
    expect(url.pathname).toMatch(/\.m4a$/);
    const file = await k.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toMatch(/^audio\/mp4/);
    expect(file.rawPayload.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  test('a recording under 10,000 bytes is refused and nothing is stored', async () => {
    const before = await k.db('messages').where({ ticketId: cloudTicket.id }).count({ n: '*' }).first();
    const res = await sendVoice(cloudTicket.id, webmOpusClip(0.2).subarray(0, 4000));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('ERR_VALIDATION');
    const after = await k.db('messages').where({ ticketId: cloudTicket.id }).count({ n: '*' }).first();
    expect(after).toEqual(before);
  });

  test('reactions: ours goes to the Cloud API as type reaction and is stored on the message; Messenger refuses them', async () => {
    const [inbound] = await k.db('messages')
      .insert({ companyId: admin.companyId, ticketId: cloudTicket.id, body: 'Oi!', fromMe: false, read: true, wid: 'wamid.IN-REACT', mediaType: 'conversation', ack: 0 })
      .returning('*');
    const res = await k.as(admin, 'PUT', `/messages/${inbound.id}/reaction`, { emoji: '👍' });
    expect(res.statusCode).toBe(200);
    expect(res.json().reactions).toEqual([expect.objectContaining({ emoji: '👍', fromMe: true })]);
    const sent = (await waitFor(() => calls.find((c) => c.json.type === 'reaction'), 10000)) as GraphCall;
    expect(sent.json).toMatchObject({ type: 'reaction', reaction: { message_id: 'wamid.IN-REACT', emoji: '👍' } });
    expect(sent.json.context).toBeUndefined();
    const removed = await k.as(admin, 'PUT', `/messages/${inbound.id}/reaction`, { emoji: '' });
    expect(removed.json().reactions).toEqual([]);
    await waitFor(() => calls.find((c) => c.json.type === 'reaction' && c.json.reaction.emoji === ''), 10000);

    const [fb] = await k.db('messages')
      .insert({ companyId: admin.companyId, ticketId: messengerTicket.id, body: 'Olá', fromMe: false, read: true, wid: 'm_IN-REACT', mediaType: 'conversation', ack: 0 })
      .returning('*');
    const refused = await k.as(admin, 'PUT', `/messages/${fb.id}/reaction`, { emoji: '❤️' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('ERR_VALIDATION');
    expect((await k.as(admin, 'PUT', `/messages/${fb.id}/reaction`, { emoji: 'not one emoji at all' })).statusCode).toBe(400);
  });
});
