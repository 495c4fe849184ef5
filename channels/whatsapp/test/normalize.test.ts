import { idempotencyKey, type Envelope, type SkipReason } from '@atendo/sdk';
import { createWhatsappAdapter, int64, jsonSafe, normalizeEvent, toJid, type NormalizeContext } from '../src/index';
import { core, expectValidEnvelope, fixtureFiles, loadFixture } from './fixtures';

const RECEIVED = '2026-03-01T12:00:00.000Z';
const CTX: NormalizeContext = { companyId: 3, connectionId: 7, receivedAt: RECEIVED };
const COMMON = { schemaVersion: 1, companyId: 3, connectionId: 7, channel: 'whatsapp' } as const;
const key = (kind: string, externalId: string, suffix?: string) => idempotencyKey('whatsapp', 7, kind, externalId, suffix);

/** Normalizes a fixture, asserting schema validity of every envelope and that nothing was skipped. */
function run(file: string, ctx: Partial<NormalizeContext> = {}): Envelope[] {
  const { event, data } = loadFixture(file);
  const skips: { reason: SkipReason; detail: Record<string, unknown> }[] = [];
  const out = normalizeEvent(event, data, { ...CTX, ...ctx, onSkip: (reason, detail) => skips.push({ reason, detail }) });
  expect(skips).toEqual([]);
  for (const e of out) expectValidEnvelope(e);
  return out;
}

const CARLA = { externalId: '5511955550123', name: 'Carla Exemplo', phone: '5511955550123', jid: '5511955550123@s.whatsapp.net' };
const MIGUEL = { externalId: '104857600000123', name: 'Miguel Exemplo', lid: '104857600000123@lid' };
const CARLA_THREAD = { externalId: '5511955550123', isGroup: false };
const MIGUEL_THREAD = { externalId: '104857600000123', isGroup: false };
const GROUP = { externalId: '120363000000000042', isGroup: true };

/**
 * One explicit case per fixture file (the test at the end fails when a file has none). Each asserts the
 * envelope field by field (kind, direction, thread, sender, content, replyTo, status, reaction, edit).
 */
const CASES: Record<string, () => void> = {
  'messages.upsert--text-conversation.json': () => {
    const [e, ...rest] = run('messages.upsert--text-conversation.json');
    expect(rest).toEqual([]);
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', 'ACB97E0ADC923D3D3E546C1D43473624'),
      kind: 'message',
      direction: 'in',
      occurredAt: '2021-11-17T19:20:06.000Z', // messageTimestamp "1637176806" (int64 as a string)
      thread: CARLA_THREAD,
      sender: CARLA,
      externalId: 'ACB97E0ADC923D3D3E546C1D43473624',
      content: { type: 'text', text: 'Bom dia! Vocês entregam no sábado?' },
    });
    // The raw message (with its key) is kept for the pipeline's dataJson.
    expect((e.raw as any).key).toEqual({ remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'ACB97E0ADC923D3D3E546C1D43473624' });
  },

  'messages.upsert--reply-quoted.json': () => {
    const [e] = run('messages.upsert--reply-quoted.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', '3A03173A02B6C7C8DE36'),
      kind: 'message',
      direction: 'in',
      occurredAt: '2023-02-17T11:07:49.000Z',
      thread: CARLA_THREAD,
      sender: CARLA,
      externalId: '3A03173A02B6C7C8DE36',
      content: { type: 'text', text: 'Isso, esse mesmo' },
      replyTo: { externalId: 'BAE5AEE4769951D2' },
    });
  },

  'messages.upsert--group-reply-lid.json': () => {
    const [e] = run('messages.upsert--group-reply-lid.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', '3E3C267131A07CC7ED8819F90F359DB0'),
      kind: 'message',
      direction: 'in',
      occurredAt: '2025-08-02T08:21:47.000Z',
      thread: GROUP,
      // LID-addressed participant with its phone JID (participantPn): both kept, phone digits as the id.
      sender: { externalId: '5511955550188', name: 'Rui Teste', phone: '5511955550188', jid: '5511955550188@s.whatsapp.net', lid: '205000000000077@lid' },
      externalId: '3E3C267131A07CC7ED8819F90F359DB0',
      content: { type: 'text', text: 'combinado 👍' },
      replyTo: { externalId: '37DF1986E039FBA0916ABB3B9CCBBF33' },
    });
  },

  'messages.upsert--image-caption.json': () => {
    const [e] = run('messages.upsert--image-caption.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', 'ACE014B4DB3DDB68101E0273BBFDDD90'),
      kind: 'message',
      direction: 'in',
      occurredAt: '2026-01-02T15:16:22.000Z',
      // A LID-only 1:1 chat: no phone is known, the LID's user part is the id.
      thread: MIGUEL_THREAD,
      sender: MIGUEL,
      externalId: 'ACE014B4DB3DDB68101E0273BBFDDD90',
      content: {
        type: 'image',
        text: 'Foto da etiqueta do produto',
        media: {
          url: 'https://mmg.whatsapp.net/v/t62.7118-24/10416681_525905294454030_1763831822417085708_n.enc?ccb=11-4&oh=01_Q5AaIFAKEcHELMYNunriewqjNtN-h7MzouvMHLy8Duu37BKBF&oe=68A1B2C3&_nc_sid=5e03e0&mms3=true',
          mimeType: 'image/jpeg',
          size: 41161,
          sha256: 'inNsyhXupHk+fSOEr1KvgJcRJgIDZMpBD1Pv1/nMXZw=',
          downloadHint: {
            messageType: 'imageMessage',
            mediaType: 'image',
            url: 'https://mmg.whatsapp.net/v/t62.7118-24/10416681_525905294454030_1763831822417085708_n.enc?ccb=11-4&oh=01_Q5AaIFAKEcHELMYNunriewqjNtN-h7MzouvMHLy8Duu37BKBF&oe=68A1B2C3&_nc_sid=5e03e0&mms3=true',
            directPath: '/v/t62.7118-24/10416681_525905294454030_1763831822417085708_n.enc?ccb=11-4&oh=01_Q5AaIFAKEcHELMYNunriewqjNtN-h7MzouvMHLy8Duu37BKBF&oe=68A1B2C3&_nc_sid=5e03e0',
            mediaKey: 'AdZ0DEkcuhfbxe2b0amLU/5cnFdr/KbFU67pcxANFFI=',
            fileEncSha256: 'ebwwPjFj05glN8wkJnulLN7TLYcn+6xNQDNyLyhXKLE=',
            fileSha256: 'inNsyhXupHk+fSOEr1KvgJcRJgIDZMpBD1Pv1/nMXZw=',
            mediaKeyTimestamp: 1767361850,
            fileLength: 41161,
          },
        },
      },
    });
  },

  'messages.upsert--video.json': () => {
    const [e] = run('messages.upsert--video.json');
    expect(e).toMatchObject({ kind: 'message', direction: 'in', thread: MIGUEL_THREAD, sender: MIGUEL, externalId: 'ACBF4BB5879B1582AEAFB16D1439F541', occurredAt: '2026-01-02T15:20:49.000Z' });
    expect(e.content).toEqual({
      type: 'video',
      text: 'Vídeo do defeito (0:14)',
      media: {
        url: expect.stringMatching(/^https:\/\/mmg\.whatsapp\.net\/v\/t62\.7161-24\//),
        mimeType: 'video/mp4',
        size: 3927238,
        durationSeconds: 14,
        sha256: 'Pew6Gz56BZibMbRxac0g/EHdfojJtOXGnazMFJvkEOI=',
        downloadHint: expect.objectContaining({
          messageType: 'videoMessage',
          mediaType: 'video',
          mediaKey: 'tmHP1lqRdNkVxvQXRdUBIEgV+yPYUmqi/z2SVj+DHms=',
          directPath: expect.stringMatching(/^\/v\/t62\.7161-24\//),
          fileEncSha256: '0Ypk7SOaoLOLT3WSfm/biIPthEfkTKCssJtZEb0TgTA=',
          mediaKeyTimestamp: 1767364373,
        }),
      },
    });
    expect(e.content!.media!.voice).toBeUndefined();
  },

  'messages.upsert--audio-ptt.json': () => {
    const [e] = run('messages.upsert--audio-ptt.json');
    expect(e).toMatchObject({ kind: 'message', direction: 'in', thread: MIGUEL_THREAD, sender: MIGUEL, externalId: 'AC4AAD69361B0B2B021E049CAC1C700C', occurredAt: '2026-01-02T15:25:34.000Z' });
    expect(e.content).toEqual({
      type: 'audio',
      media: {
        url: expect.stringContaining('mmg.whatsapp.net'),
        mimeType: 'audio/ogg; codecs=opus',
        size: 10460,
        durationSeconds: 4,
        voice: true,
        sha256: 'uUoWBEPKFptB51jcIYW05EoQySvy0esiRLhhVZowF2M=',
        downloadHint: expect.objectContaining({ messageType: 'audioMessage', mediaType: 'audio', mediaKey: 'VRoJd63BoioYCZvQGJWRi6dPkkwNEZhs12zC132RxBY=', fileLength: 10460, mediaKeyTimestamp: 1767367534 }),
      },
    });
  },

  'messages.upsert--document-with-caption.json': () => {
    const [e] = run('messages.upsert--document-with-caption.json');
    // The content is nested in documentWithCaptionMessage.message: unwrapped.
    expect(e).toMatchObject({ kind: 'message', direction: 'in', thread: CARLA_THREAD, externalId: '3EB0DFAA3F4C27988164C7', occurredAt: '2024-01-03T17:10:11.000Z' });
    expect(e.sender).toEqual({ ...CARLA, name: 'Rodrigo Teste' });
    expect(e.content).toEqual({
      type: 'document',
      text: 'pode subir essa lista por favor',
      media: {
        url: expect.stringContaining('/v/t62.7119-24/'),
        mimeType: 'text/csv',
        fileName: 'clientes-2024-01-03.csv',
        size: 266154,
        sha256: 'gAzUvWWx75wraXxPmq00ToWMyxcw8HFavYScHqRgJYk=',
        downloadHint: expect.objectContaining({ messageType: 'documentMessage', mediaType: 'document', mediaKey: 'qnOrZaPFuMJsuzQMLPjrTa7yRFmHyQZ5AW+Dn5R8yo4=', mediaKeyTimestamp: 1704301417 }),
      },
    });
  },

  'messages.upsert--location.json': () => {
    const [e] = run('messages.upsert--location.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', '3A9050D0483BEBC47274'),
      kind: 'message',
      direction: 'in',
      occurredAt: '2023-02-17T10:24:27.000Z',
      thread: CARLA_THREAD,
      sender: CARLA,
      externalId: '3A9050D0483BEBC47274',
      content: { type: 'location', location: { latitude: -23.561414337158205, longitude: -46.65588073730469 } },
    });
  },

  'messages.upsert--contacts-array-vcard.json': () => {
    const [e] = run('messages.upsert--contacts-array-vcard.json');
    expect(e).toMatchObject({ kind: 'message', direction: 'in', thread: CARLA_THREAD, sender: CARLA, externalId: '3EB0A8F85400F41D258E' });
    expect(e.content).toEqual({
      type: 'contact',
      text: 'Loja Exemplo, Ana Fictícia Souza',
      vcards: [
        'BEGIN:VCARD\nVERSION:3.0\nN:;Loja Exemplo;;;\nFN:Loja Exemplo\nTEL;type=CELL;waid=5511955550100:+55 11 95555-0100\nEND:VCARD',
        'BEGIN:VCARD\nVERSION:3.0\nN:Fictícia Souza;Ana;;;\nFN:Ana Fictícia Souza\nTEL;type=CELL;waid=5511955550111:+55 11 95555-0111\nEND:VCARD',
      ],
    });
  },

  'messages.upsert--reaction.json': () => {
    const [e] = run('messages.upsert--reaction.json');
    expect(core(e)).toEqual({
      ...COMMON,
      // Keyed by the reacted message and the reaction message's own id.
      idempotencyKey: key('reaction', '3EB0BECE53A8D58321C1AB', '3AC7977A992FDD16F649'),
      kind: 'reaction',
      direction: 'in',
      occurredAt: '2023-02-17T11:04:32.443Z', // senderTimestampMs "1676631872443"
      thread: CARLA_THREAD,
      sender: CARLA,
      externalId: '3EB0BECE53A8D58321C1AB',
      reaction: { emoji: '❤️' },
    });
    expect([...e.reaction!.emoji]).toEqual(['❤', '\uFE0F']); // the VS16 sequence is kept
  },

  'messages.reaction--react.json': () => {
    const [e, ...rest] = run('messages.reaction--react.json');
    expect(rest).toEqual([]);
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('reaction', 'ACE014B4DB3DDB68101E0273BBFDDD90', 'AC13AB2C7DBD48A9809661A68D75D0AF'),
      kind: 'reaction',
      direction: 'in',
      occurredAt: new Date(411 * 4294967296 + 2135212342).toISOString(), // senderTimestampMs as a Long {low, high}
      thread: MIGUEL_THREAD,
      sender: { externalId: '104857600000123', lid: '104857600000123@lid' },
      externalId: 'ACE014B4DB3DDB68101E0273BBFDDD90',
      reaction: { emoji: '😂' },
    });
    expect(e.occurredAt).toBe('2026-01-02T15:12:50.998Z');
  },

  'messages.upsert--revoke-protocol-message.json': () => {
    const [e] = run('messages.upsert--revoke-protocol-message.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('delete', 'ACDE9E0A8A5FE7440F67F7084670848A'),
      kind: 'delete',
      direction: 'in',
      occurredAt: '2026-01-02T15:12:55.000Z',
      thread: MIGUEL_THREAD,
      sender: MIGUEL,
      externalId: 'ACDE9E0A8A5FE7440F67F7084670848A', // protocolMessage.key.id: the deleted message
    });
  },

  'messages.update--revoke-stub.json': () => {
    const [e] = run('messages.update--revoke-stub.json');
    expect(core(e)).toEqual({
      ...COMMON,
      // Same key as the protocolMessage path: the pipeline applies the delete once.
      idempotencyKey: key('delete', 'ACDE9E0A8A5FE7440F67F7084670848A'),
      kind: 'delete',
      direction: 'in',
      occurredAt: RECEIVED, // the stub carries no timestamp
      thread: MIGUEL_THREAD,
      externalId: 'ACDE9E0A8A5FE7440F67F7084670848A',
    });
    expect(e.idempotencyKey).toBe(run('messages.upsert--revoke-protocol-message.json')[0].idempotencyKey);
  },

  'messages.upsert--group-edit.json': () => {
    const [e] = run('messages.upsert--group-edit.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: expect.stringMatching(/^whatsapp:7:edit:3EB0A3AAD557E3D1AC5395:[0-9a-f]{16}$/),
      kind: 'edit',
      direction: 'in',
      occurredAt: '2023-10-25T23:54:56.189Z', // protocolMessage.timestampMs
      thread: GROUP,
      sender: { externalId: '5511955550177', name: 'Paula Teste', phone: '5511955550177', jid: '5511955550177@s.whatsapp.net' },
      externalId: '3EB0A3AAD557E3D1AC5395', // the edited message (protocolMessage.key.id), not the edit's own id
      edit: { text: 'Pessoal, reagendem os clientes de terça e quinta\\nMe avisem quando concluírem' },
    });
  },

  'messages.update--edit.json': () => {
    const [e] = run('messages.update--edit.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: expect.stringMatching(/^whatsapp:7:edit:ACDE9E0A8A5FE7440F67F7084670848A:[0-9a-f]{16}$/),
      kind: 'edit',
      direction: 'in',
      occurredAt: '2026-01-02T15:12:46.000Z',
      thread: MIGUEL_THREAD,
      externalId: 'ACDE9E0A8A5FE7440F67F7084670848A',
      edit: { text: 'Editado: entrega no sábado às 10h' },
    });
  },

  'messages.update--status-read.json': () => {
    const [e] = run('messages.update--status-read.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('status', 'ACBF9EA9EDEB75D21A05DDA7FA142342', 'read'),
      kind: 'status',
      direction: 'out', // the status of a message we sent
      occurredAt: '2026-01-02T15:33:10.000Z',
      thread: MIGUEL_THREAD,
      externalId: 'ACBF9EA9EDEB75D21A05DDA7FA142342',
      status: { state: 'read' },
    });
  },

  'message-receipt.update--group-read.json': () => {
    const [e] = run('message-receipt.update--group-read.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('status', '3EB0FC420D56ED890A7B70', 'read:205000000000077'),
      kind: 'status',
      direction: 'out',
      occurredAt: '2026-08-06T14:55:19.000Z', // readTimestamp 1786028119
      thread: GROUP,
      sender: { externalId: '205000000000077', lid: '205000000000077@lid' }, // the reader
      externalId: '3EB0FC420D56ED890A7B70',
      status: { state: 'read' },
    });
  },

  'presence.update--composing.json': () => {
    const [e, ...rest] = run('presence.update--composing.json');
    expect(rest).toEqual([]);
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('typing', '104857600000123', `104857600000123:composing:${Date.parse(RECEIVED)}`),
      kind: 'typing',
      direction: 'in',
      occurredAt: RECEIVED,
      thread: MIGUEL_THREAD,
      sender: { externalId: '104857600000123', lid: '104857600000123@lid' },
      externalId: '104857600000123',
      typing: { state: 'composing' },
    });
  },

  'connection.update--close-logged-out-401.json': () => {
    const [e] = run('connection.update--close-logged-out-401.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('connection', '7', `DISCONNECTED:${Date.parse('2022-12-08T16:05:55.922Z')}`),
      kind: 'connection',
      direction: 'in',
      occurredAt: '2022-12-08T16:05:55.922Z',
      thread: { externalId: '7', isGroup: false },
      externalId: '7',
      connection: { status: 'DISCONNECTED', reason: 'loggedOut', error: { code: '401', title: 'Unauthorized', detail: 'Connection Failure', retryable: false } },
    });
  },

  'messages.upsert--forwarded-ad-reply-emoji.json': () => {
    const [e] = run('messages.upsert--forwarded-ad-reply-emoji.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', 'F78F990B26A4B25B4356131F20A8A23F'),
      kind: 'message',
      direction: 'in',
      occurredAt: '2023-10-23T10:45:26.000Z',
      thread: CARLA_THREAD,
      sender: { ...CARLA, name: 'Clínica Exemplo' },
      externalId: 'F78F990B26A4B25B4356131F20A8A23F',
      content: {
        type: 'text',
        text: 'https://fb.me/FAKE0Fv',
        forwarded: true,
        link: { url: 'https://www.facebook.com/ExamplePage/videos/100000000000001/', title: 'Converse conosco!' },
        referral: { source: 'ad', type: 'VIDEO' },
      },
    });
    // The ad copy (emoji included) stays available in raw.
    expect((e.raw as any).message.extendedTextMessage.contextInfo.externalAdReply.body).toContain('🤩 PRÓTESE FLEXÍVEL');
  },

  'messages.upsert--text-rtl-from-me.json': () => {
    const [e] = run('messages.upsert--text-rtl-from-me.json');
    expect(core(e)).toEqual({
      ...COMMON,
      idempotencyKey: key('message', '3EB08437265DE4D60859B2'),
      kind: 'message',
      direction: 'out', // typed on the phone: an echo, never inbound
      occurredAt: '2026-08-29T10:40:00.000Z',
      thread: { externalId: '201005550123', isGroup: false }, // the contact, not us
      externalId: '3EB08437265DE4D60859B2',
      content: { type: 'text', text: 'رسالة إحنا بعتناها من الموبايل ✅' },
    });
    // With our own account known, the sender is us.
    const [mine] = run('messages.upsert--text-rtl-from-me.json', { me: { id: '5511900000001:7@s.whatsapp.net', lid: '900000000000001:7@lid', name: 'Loja' } });
    expect(mine.sender).toEqual({ externalId: '5511900000001', name: 'Loja', phone: '5511900000001', jid: '5511900000001@s.whatsapp.net', lid: '900000000000001@lid' });
    expect(mine.thread).toEqual({ externalId: '201005550123', isGroup: false });
  },
};

describe('normalize: every Baileys fixture', () => {
  for (const [file, check] of Object.entries(CASES)) test(file, check);

  test('every fixture file has an explicit case, and every case a file', () => {
    expect(Object.keys(CASES).sort()).toEqual(fixtureFiles());
    expect(fixtureFiles().length).toBe(21);
  });
});

describe('normalize: conventions', () => {
  const textMessage = (extra: Record<string, unknown> = {}, key: Record<string, unknown> = {}) => ({
    messages: [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'ID1', ...key }, message: { conversation: 'oi' }, pushName: 'Carla', ...extra }],
    type: 'notify',
  });

  test('int64 timestamps in all three forms (string, number, Long) give the same time', () => {
    const forms = ['1676632069', 1676632069, { low: 1676632069, high: 0, unsigned: false }, { low: 1676632069, high: 0, unsigned: true }];
    const times = forms.map((t) => normalizeEvent('messages.upsert', textMessage({ messageTimestamp: t }), CTX)[0].occurredAt);
    expect(times).toEqual(Array(4).fill('2023-02-17T11:07:49.000Z'));
    expect(int64({ low: -1, high: 0, unsigned: false })).toBe(4294967295);
    expect(int64({ low: 2135212342, high: 411 })).toBe(1767366770998);
    expect(int64('12a')).toBeUndefined();
    expect(int64(null)).toBeUndefined();
    expect(int64(BigInt(5))).toBe(5);
  });

  test('live Baileys shapes: bytes as Uint8Array become base64 in the hint and raw', () => {
    const mediaKey = new Uint8Array([1, 2, 3, 250]);
    const [e] = normalizeEvent(
      'messages.upsert',
      { messages: [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'IMG' }, messageTimestamp: 1700000000, message: { imageMessage: { mimetype: 'image/png', mediaKey, directPath: '/d', fileLength: { low: 10, high: 0, unsigned: true } } } }], type: 'notify' },
      CTX,
    );
    expectValidEnvelope(e);
    expect(e.content!.media).toEqual({ mimeType: 'image/png', size: 10, downloadHint: { messageType: 'imageMessage', mediaType: 'image', directPath: '/d', mediaKey: 'AQID+g==', fileLength: 10 } });
    expect((e.raw as any).message.imageMessage.mediaKey).toBe('AQID+g==');
    expect(jsonSafe({ a: undefined, b: new Uint8Array([255]), c: { low: 1, high: 0 }, d: () => 1, e: [undefined, 1] })).toEqual({ b: '/w==', c: 1, e: [null, 1] });
  });

  test('LID-addressed 1:1 with remoteJidAlt (Baileys 7): phone digits as the thread, both JIDs on the sender', () => {
    const [e] = normalizeEvent('messages.upsert', textMessage({}, { remoteJid: '104857600000123@lid', remoteJidAlt: '5511955550123@s.whatsapp.net' }), CTX);
    expectValidEnvelope(e);
    expect(e.thread).toEqual({ externalId: '5511955550123', isGroup: false });
    expect(e.sender).toEqual({ externalId: '5511955550123', name: 'Carla', phone: '5511955550123', jid: '5511955550123@s.whatsapp.net', lid: '104857600000123@lid' });
    // Older field names (senderPn) too.
    const [old] = normalizeEvent('messages.upsert', textMessage({}, { remoteJid: '104857600000123@lid', senderPn: '5511955550123@s.whatsapp.net' }), CTX);
    expect(old.sender).toEqual(e.sender);
    // Device suffixes are dropped.
    const [dev] = normalizeEvent('messages.upsert', textMessage({}, { remoteJid: '5511955550123:12@s.whatsapp.net' }), CTX);
    expect(dev.sender!.jid).toBe('5511955550123@s.whatsapp.net');
  });

  test('group participants in Baileys 7 form (participantAlt), and a group message of ours', () => {
    const base = { remoteJid: '120363000000000042@g.us', participant: '205000000000077@lid', participantAlt: '5511955550188@s.whatsapp.net' };
    const [e] = normalizeEvent('messages.upsert', textMessage({}, base), CTX);
    expect(e.sender).toEqual({ externalId: '5511955550188', name: 'Carla', phone: '5511955550188', jid: '5511955550188@s.whatsapp.net', lid: '205000000000077@lid' });
    expect(e.thread).toEqual(GROUP);
    const [mine] = normalizeEvent('messages.upsert', textMessage({}, { remoteJid: '120363000000000042@g.us', fromMe: true }), { ...CTX, me: { id: '5511900000001:3@s.whatsapp.net' } });
    expect(mine.direction).toBe('out');
    expect(mine.sender).toEqual({ externalId: '5511900000001', phone: '5511900000001', jid: '5511900000001@s.whatsapp.net' });
  });

  test('wrappers (ephemeral, view once), single contact, sticker, interactive replies, polls, unknown content', () => {
    const one = (message: Record<string, unknown>) => {
      const out = normalizeEvent('messages.upsert', { messages: [{ key: { remoteJid: '5511955550123@s.whatsapp.net', id: 'X' }, messageTimestamp: 1700000000, message }], type: 'notify' }, CTX);
      out.forEach(expectValidEnvelope);
      return out[0]?.content;
    };
    expect(one({ ephemeralMessage: { message: { extendedTextMessage: { text: 'some', contextInfo: { forwardingScore: 3 } } } } })).toEqual({ type: 'text', text: 'some', forwarded: true });
    expect(one({ viewOnceMessageV2: { message: { imageMessage: { mimetype: 'image/jpeg', viewOnce: true } } } })).toMatchObject({ type: 'image', media: { mimeType: 'image/jpeg' } });
    expect(one({ contactMessage: { displayName: 'Ana', vcard: 'BEGIN:VCARD\nFN:Ana\nEND:VCARD' } })).toEqual({ type: 'contact', text: 'Ana', vcards: ['BEGIN:VCARD\nFN:Ana\nEND:VCARD'] });
    expect(one({ stickerMessage: { mimetype: 'image/webp' } })).toMatchObject({ type: 'sticker', media: { mimeType: 'image/webp', downloadHint: { mediaType: 'sticker' } } });
    expect(one({ buttonsResponseMessage: { selectedButtonId: 'b1', selectedDisplayText: 'Sim' } })).toEqual({ type: 'interactive', text: 'Sim', providerType: 'buttonsResponseMessage', interactive: { id: 'b1', title: 'Sim' } });
    expect(one({ listResponseMessage: { title: 'Suporte', singleSelectReply: { selectedRowId: 'r2' }, description: 'fila 2' } })).toEqual({
      type: 'interactive',
      text: 'Suporte',
      providerType: 'listResponseMessage',
      interactive: { id: 'r2', title: 'Suporte', description: 'fila 2' },
    });
    expect(one({ pollCreationMessageV3: { name: 'Qual dia?' } })).toEqual({ type: 'unsupported', providerType: 'pollCreationMessageV3', text: 'Qual dia?' });
    expect(one({ somethingNewMessage: { foo: 1 } })).toEqual({ type: 'unsupported', providerType: 'somethingNewMessage' });
    expect(one({ locationMessage: { degreesLatitude: 1.5, degreesLongitude: 2.5, name: 'Loja', address: 'Rua A' } })).toEqual({ type: 'location', location: { latitude: 1.5, longitude: 2.5, name: 'Loja', address: 'Rua A' } });
  });

  test('1:1 edit as protocolMessage MESSAGE_EDIT (no wrapper) has the same key as the messages.update path', () => {
    const upsert = normalizeEvent(
      'messages.upsert',
      {
        messages: [
          {
            key: { remoteJid: '104857600000123@lid', fromMe: false, id: 'EDITMSG' },
            messageTimestamp: 1767366766,
            message: { protocolMessage: { key: { remoteJid: '104857600000123@lid', fromMe: true, id: 'ACDE9E0A8A5FE7440F67F7084670848A' }, type: 14, editedMessage: { conversation: 'Editado: entrega no sábado às 10h' }, timestampMs: '1767366766000' } },
          },
        ],
        type: 'notify',
      },
      CTX,
    );
    const update = normalizeEvent(loadFixture('messages.update--edit.json').event, loadFixture('messages.update--edit.json').data, CTX);
    expect(upsert[0]).toMatchObject({ kind: 'edit', externalId: 'ACDE9E0A8A5FE7440F67F7084670848A', edit: { text: 'Editado: entrega no sábado às 10h' } });
    expect(upsert[0].idempotencyKey).toBe(update[0].idempotencyKey);
  });

  test('statuses: every WebMessageInfo.Status value, numeric or named; pending gives nothing', () => {
    const states = [0, 1, 2, 3, 4, 5, 'READ', 'DELIVERY_ACK'].map(
      (status) => normalizeEvent('messages.update', [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: true, id: 'S' }, update: { status } }], CTX)[0]?.status?.state,
    );
    expect(states).toEqual(['failed', undefined, 'sent', 'delivered', 'read', 'played', 'read', 'delivered']);
    const delivered = normalizeEvent('message-receipt.update', [{ key: { remoteJid: '120363000000000042@g.us', id: 'G', fromMe: true }, receipt: { userJid: '5511955550188@s.whatsapp.net', receiptTimestamp: 1700000000 } }], CTX);
    expect(delivered[0]).toMatchObject({ kind: 'status', status: { state: 'delivered' }, sender: { externalId: '5511955550188', phone: '5511955550188' } });
  });

  test('skipped: status broadcasts, newsletters, stubs without content, unknown events, malformed items — never throws', () => {
    const skips: string[] = [];
    const ctx = { ...CTX, onSkip: (r: SkipReason) => skips.push(r) };
    expect(normalizeEvent('messages.upsert', textMessage({}, { remoteJid: 'status@broadcast', participant: '5511955550123@s.whatsapp.net' }), ctx)).toEqual([]);
    expect(normalizeEvent('messages.upsert', textMessage({}, { remoteJid: '1203630@newsletter' }), ctx)).toEqual([]);
    expect(normalizeEvent('messages.upsert', { messages: [{ key: { remoteJid: '120363000000000042@g.us', id: 'STUB' }, messageStubType: 27, message: null }] }, ctx)).toEqual([]);
    expect(normalizeEvent('messages.upsert', { messages: [{ key: { remoteJid: 'x@s.whatsapp.net', id: 'P' }, message: { protocolMessage: { type: 5 } } }] }, ctx)).toEqual([]);
    expect(normalizeEvent('chats.update', [], ctx)).toEqual([]);
    expect(normalizeEvent('messages.upsert', null, ctx)).toEqual([]);
    expect(normalizeEvent('messages.update', [null, { key: {} }], ctx)).toEqual([]);
    expect(normalizeEvent('presence.update', { id: 5 }, ctx)).toEqual([]);
    expect(normalizeEvent('connection.update', { receivedPendingNotifications: true }, ctx)).toEqual([]);
    expect(skips).toEqual(['unhandled', 'unhandled', 'unhandled', 'unhandled', 'unhandled', 'malformed', 'malformed', 'malformed', 'unhandled']);
  });

  test('connection.update: qr, connecting, open', () => {
    const [qr] = normalizeEvent('connection.update', { qr: '2@abc,def' }, CTX);
    const [connecting] = normalizeEvent('connection.update', { connection: 'connecting', receivedPendingNotifications: false }, CTX);
    const [open] = normalizeEvent('connection.update', { connection: 'open' }, CTX);
    for (const e of [qr, connecting, open]) expectValidEnvelope(e);
    expect([qr.connection, connecting.connection, open.connection]).toEqual([{ status: 'qrcode', qrcode: '2@abc,def' }, { status: 'OPENING' }, { status: 'CONNECTED' }]);
  });

  test('the adapter: normalize resolves the account, unknown accounts are skipped; send without a session is retryable', async () => {
    const adapter = createWhatsappAdapter();
    const { data } = loadFixture('messages.upsert--text-conversation.json');
    const skips: string[] = [];
    const out = adapter.normalize({ event: 'messages.upsert', data, account: '7' }, (acc) => (acc === '7' ? { companyId: 3, connectionId: 7 } : undefined), { receivedAt: RECEIVED });
    expect(out.map((e) => [e.companyId, e.connectionId, e.externalId])).toEqual([[3, 7, 'ACB97E0ADC923D3D3E546C1D43473624']]);
    expect(adapter.normalize({ event: 'messages.upsert', data, account: '8' }, () => undefined, { onSkip: (r) => skips.push(r) })).toEqual([]);
    expect(adapter.normalize('nope', () => undefined, { onSkip: (r) => skips.push(r) })).toEqual([]);
    expect(skips).toEqual(['unknown_account', 'malformed']);
    expect(adapter.channel).toBe('whatsapp');
    await expect(adapter.send({ id: 7, companyId: 3, channel: 'whatsapp', name: 'x', externalAccountId: null, accessToken: null }, { companyId: 3, messageId: 1, ticketId: 1, connectionId: 7, channel: 'whatsapp', to: '5511955550123', body: 'oi' }, {} as never)).rejects.toThrow(
      /no WhatsApp session/,
    );
  });

  test('toJid: phone numbers, groups, stored JIDs; garbage refused', () => {
    expect(toJid('+55 (11) 95555-0123')).toBe('5511955550123@s.whatsapp.net');
    expect(toJid('120363000000000042', true)).toBe('120363000000000042@g.us');
    expect(toJid('5511955550123-1600000000', true)).toBe('5511955550123-1600000000@g.us');
    expect(toJid('104857600000123@lid')).toBe('104857600000123@lid');
    expect(toJid('5511955550123:4@s.whatsapp.net')).toBe('5511955550123@s.whatsapp.net');
    expect(toJid('abc')).toBeUndefined();
    expect(toJid('status@broadcast')).toBeUndefined();
    expect(toJid('x'.repeat(50), true)).toBeUndefined();
  });
});
