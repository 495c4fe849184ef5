import type { Envelope } from '@atendo/sdk';
import { whatsappApiAdapter, whatsappAccountIds } from '../src/index';
import { core, fixtureFiles, loadFixture, normalizeChecked, TARGET } from '../../meta-common/test/fixtures';

const FOLDER = 'whatsapp-cloud';
const PHONE_ID = '104512345678901';
const WA_ID = '15555550123';
const ALEX = { externalId: WA_ID, name: 'Alex Example', phone: WA_ID };
const THREAD = { externalId: WA_ID, isGroup: false };
const BIZ_MSG = 'wamid.HBgLMTU1NTU1NTAxMjMVAgARGBQzRURGODdEQTZEQzJCRDlBMTQ4NAA=';
const BASE = { schemaVersion: 1, companyId: TARGET.companyId, connectionId: TARGET.connectionId, channel: 'whatsappapi' };
const key = (kind: string, ext: string, suffix?: string) => ['whatsappapi', TARGET.connectionId, kind, ext, suffix].filter(Boolean).join(':');

/** One inbound message envelope with these fields. */
function inbound(id: string, ts: string, content: Envelope['content'], extra: Partial<Envelope> = {}) {
  return { ...BASE, idempotencyKey: key('message', id), direction: 'in', kind: 'message', occurredAt: ts, thread: THREAD, sender: ALEX, externalId: id, content, ...extra };
}

function status(state: string, ts: string, error?: unknown) {
  return {
    ...BASE,
    idempotencyKey: key('status', BIZ_MSG, state),
    direction: 'out',
    kind: 'status',
    occurredAt: ts,
    thread: THREAD,
    externalId: BIZ_MSG,
    status: error ? { state, error } : { state },
  };
}

/** The body of text-long-emoji-mixed-scripts.json, read from the fixture itself. */
function longBody(): string {
  const f = loadFixture<{ entry: { changes: { value: { messages: { text: { body: string } }[] } }[] }[] }>(FOLDER, 'text-long-emoji-mixed-scripts.json');
  return f.entry[0].changes[0].value.messages[0].text.body;
}

/** Every fixture of whatsapp-cloud/ and what it must normalize to (exactly, apart from `raw` and `id`). */
const CASES: Record<string, (envs: Envelope[]) => void> = {
  'text.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ5MkI4MUQ2RTFGODk2Mjg0N0FDMQA=', '2025-06-08T20:59:43.000Z', { type: 'text', text: 'Hi! Do you have this jacket in size M?' }),
    ]);
    // raw keeps the provider item for the message's dataJson
    expect((envs[0].raw as { type: string }).type).toBe('text');
  },
  'text-long-emoji-mixed-scripts.json': (envs) => {
    const body = longBody();
    expect(Array.from(body)).toHaveLength(4096);
    expect(envs.map(core)).toEqual([inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBREOTQ5MzhBRDAyNjdDREY2QTJENwA=', '2025-06-08T21:09:59.000Z', { type: 'text', text: body })]);
    // ZWJ family, flags, RTL marks and astral math letters survive untouched
    expect(envs[0].content!.text).toContain('👨‍👩‍👧‍👦');
    expect(envs[0].content!.text).toContain('🇧🇷🇪🇬');
    expect(envs[0].content!.text).toContain('\u200fשלום\u200f');
    expect(envs[0].content!.text).toContain('𝔘𝔫𝔦𝔠𝔬𝔡𝔢');
  },
  'text-reply-context-rtl-arabic.json': (envs) => {
    expect(envs.map(core)).toEqual([
      {
        ...inbound('wamid.HBgMMjAxMDA1NTUwMTIzFQIAEhgUN0IzMDBDMzM4RkExMUM4MjZBODUA', '2026-07-08T08:40:00.000Z', { type: 'text', text: 'مرحبا، هل الطلب رقم ٤٥٢ جاهز؟' }),
        thread: { externalId: '201005550123', isGroup: false },
        sender: { externalId: '201005550123', name: 'Omar Fakeh', phone: '201005550123' },
        replyTo: { externalId: 'wamid.HBgMMjAxMDA1NTUwMTIzFQIAEhgUQzlEQ0Y1ODY5NEYyNjdBOTVFQkMA' },
      },
    ]);
  },
  'image-with-caption.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ3OENERkM1NDJBQ0Q4QTY1Qzg1NwA=', '2025-04-11T04:08:16.000Z', {
        type: 'image',
        text: 'This is the damaged box 😕',
        media: {
          id: '1709782812782215',
          url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1574956395073340&ext=1418573693&hash=FAKEKy2v5ERj_aHAm41i7hZk52Vd',
          mimeType: 'image/jpeg',
          sha256: '6dvYYeFKW1mRG7CDSsQshM9oyxtuPGGV0yc22Uk9Pzw=',
        },
      }),
    ]);
  },
  'image-no-caption.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRDNEVBRjJCQzYxQzhBRTlFMzAxOAA=', '2022-06-23T10:04:46.000Z', {
        type: 'image',
        media: { id: '411536511651459', mimeType: 'image/jpeg', sha256: 'gKHoZKLjTsrr+JssR1F6daPxGbnZDTvGBhhRMFjcUaI=' },
      }),
    ]);
    expect(envs[0].content).not.toHaveProperty('text');
  },
  'video-with-caption.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRCMEFBNkYyMzc0QzlBM0JBMTRFNQA=', '2025-04-11T04:08:16.000Z', {
        type: 'video',
        text: 'How the device behaves on startup',
        media: {
          id: '735240986253066',
          url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1941830897152115&ext=1407511361&hash=FAKE4c8CdKZdSbLtoLhcPyAE8NbM',
          mimeType: 'video/mp4',
          sha256: 'pMzSdenmW06YDv9reEAcAfiiI3vC33sWrPZNrJCKS0s=',
        },
      }),
    ]);
  },
  'audio-voice-note.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRGNDEyMkUyNkVCQkI0NEMwRjNGNgA=', '2025-04-11T04:08:16.000Z', {
        type: 'audio',
        media: {
          id: '1782682312585692',
          url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1561791051381355&ext=1042776890&hash=FAKEzsy_xFGF7gUyRfys9qlobrOS',
          mimeType: 'audio/ogg; codecs=opus',
          sha256: 'D9y8UqA6s2FyggSW+vO5HHVPMXExRBkp/OjkrWD21FU=',
          voice: true,
        },
      }),
    ]);
  },
  'document-pdf.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRCMzE3MzUzNUM5OTdCRTVBMDU3RAA=', '2025-04-11T04:08:16.000Z', {
        type: 'document',
        text: 'invoice for order 452',
        media: {
          id: '652009419969667',
          url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1219921908068664&ext=1156258395&hash=FAKE9DHsL7tFCBBkHajHezEgbFKr',
          mimeType: 'application/pdf',
          fileName: 'invoice-452.pdf',
          sha256: 'wd2Sk0aE5IaWU/3cLOp70W/bEU8mcocNG4bGN74Gzys=',
        },
      }),
    ]);
  },
  'location.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ1QzY4OUMyOUJFQkQ5NkZFOEVBQQA=', '2025-04-11T04:08:16.000Z', {
        type: 'location',
        location: { latitude: 37.44221496582, longitude: -122.16165924072, name: 'Example Coffee', address: '1 Example Plaza, Springfield, ST 00000', url: 'https://example.com/' },
      }),
    ]);
  },
  'contacts-card.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQyNDk2NTcyQTZENzBFQzdGNUMwMQA=', '2025-04-11T04:08:16.000Z', {
        type: 'contact',
        text: 'Jordan Q. Sample',
        vcards: [
          [
            'BEGIN:VCARD',
            'VERSION:3.0',
            'N:Sample;Jordan;;;',
            'FN:Jordan Q. Sample',
            'ORG:Example Corp;Sales',
            'TITLE:Manager',
            'TEL;type=MOBILE;waid=15555550199:+1 (555) 555-0199',
            'EMAIL;type=WORK:jordan@example.com',
            'ADR;type=WORK:;;1 Example Plaza;Springfield;ST;00000;United States',
            'URL;type=WORK:https://example.com',
            'BDAY:1990-01-31',
            'END:VCARD',
          ].join('\n'),
        ],
      }),
    ]);
  },
  'interactive-button-reply.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound(
        'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ1N0RDQTdFQjlBRkU4OTg1MEQxQQA=',
        '2025-06-15T22:05:36.000Z',
        { type: 'interactive', text: 'Cancel order', interactive: { id: 'cancel-order', title: 'Cancel order' }, providerType: 'button_reply' },
        { replyTo: { externalId: BIZ_MSG } },
      ),
    ]);
  },
  'interactive-list-reply.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound(
        'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ1QUUxQjRCOUNCNTAxRkI3QkExRgA=',
        '2025-06-13T22:42:55.000Z',
        { type: 'interactive', text: 'Express shipping', interactive: { id: 'ship_express', title: 'Express shipping', description: '1-2 business days' }, providerType: 'list_reply' },
        { replyTo: { externalId: BIZ_MSG } },
      ),
    ]);
  },
  'button-template-quick-reply.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound(
        'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRFNDk1RDREQjM1Q0M1QkFDMkRDQwA=',
        '2025-06-16T16:24:05.000Z',
        { type: 'interactive', text: 'Stop promotions', interactive: { title: 'Stop promotions', payload: 'STOP_PROMOS' }, providerType: 'button' },
        { replyTo: { externalId: BIZ_MSG } },
      ),
    ]);
  },
  'reaction.json': (envs) => {
    const own = 'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRGODk5NjkyRkE1MTlFQTM1MDQ3MQA=';
    expect(envs.map(core)).toEqual([
      { ...BASE, idempotencyKey: key('reaction', BIZ_MSG, own), direction: 'in', kind: 'reaction', occurredAt: '2025-06-08T21:52:24.000Z', thread: THREAD, sender: ALEX, externalId: BIZ_MSG, reaction: { emoji: '👍' } },
    ]);
  },
  'reaction-removed.json': (envs) => {
    const own = 'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRBRjgwM0U0RkRGM0ExMUY1OTBENwA=';
    expect(envs.map(core)).toEqual([
      { ...BASE, idempotencyKey: key('reaction', BIZ_MSG, own), direction: 'in', kind: 'reaction', occurredAt: '2025-06-08T21:53:20.000Z', thread: THREAD, sender: ALEX, externalId: BIZ_MSG, reaction: { emoji: '' } },
    ]);
  },
  'edit-image-caption.json': (envs) => {
    const original = 'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ3OENERkM1NDJBQ0Q4QTY1Qzg1NwA=';
    const own = 'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQwREIwQzM1REM4RkIwQTkxMkQyMgA=';
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('edit', original, own),
        direction: 'in',
        kind: 'edit',
        occurredAt: '2025-06-13T22:42:55.000Z',
        thread: THREAD,
        sender: ALEX,
        externalId: original,
        edit: { text: 'This is the damaged box (2nd photo)' },
        content: {
          type: 'image',
          text: 'This is the damaged box (2nd photo)',
          media: {
            id: '1683403926821785',
            url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1995094384471458&ext=1113564028&hash=FAKEpJtitnj3pvknwyJGERvDJqYS',
            mimeType: 'image/jpeg',
            sha256: 'JkHNDSlDxKg+RO3BCWYGOJQgoQdRnmWbUk9N4/tL5F4=',
          },
        },
      },
    ]);
    // the odd inner context.id "M0" is not taken as a reply
    expect(envs[0]).not.toHaveProperty('replyTo');
  },
  'revoke.json': (envs) => {
    const original = 'wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ5MkI4MUQ2RTFGODk2Mjg0N0FDMQA=';
    expect(envs.map(core)).toEqual([
      { ...BASE, idempotencyKey: key('delete', original), direction: 'in', kind: 'delete', occurredAt: '2025-06-13T22:43:10.000Z', thread: THREAD, sender: ALEX, externalId: original },
    ]);
  },
  'status-sent.json': (envs) => expect(envs.map(core)).toEqual([status('sent', '2025-06-15T23:27:53.000Z')]),
  'status-delivered.json': (envs) => expect(envs.map(core)).toEqual([status('delivered', '2023-09-12T04:21:24.000Z')]),
  'status-read.json': (envs) => expect(envs.map(core)).toEqual([status('read', '2025-06-15T23:29:50.000Z')]),
  'status-failed-131026.json': (envs) =>
    expect(envs.map(core)).toEqual([
      status('failed', '2023-10-25T10:57:27.000Z', { code: '131026', title: 'Receiver is incapable of receiving this message', detail: 'Message Undeliverable.', retryable: false }),
    ]),
  'errors-130429-rate-limit.json': (envs) => {
    expect(envs).toHaveLength(1);
    const e = core(envs[0]);
    expect(e).toEqual({
      ...BASE,
      idempotencyKey: expect.stringMatching(new RegExp(`^whatsappapi:7:connection:${PHONE_ID}:130429:[0-9a-f]{16}$`)),
      direction: 'in',
      kind: 'connection',
      occurredAt: '2025-01-02T03:04:05.000Z', // no timestamp in the payload: the receive time
      thread: { externalId: PHONE_ID, isGroup: false },
      externalId: PHONE_ID,
      connection: {
        status: 'account_error',
        reason: 'Rate limit hit',
        error: { code: '130429', title: 'Rate limit hit', detail: 'Message failed to send because there were too many messages sent from this phone number in a short period of time', retryable: true },
      },
    });
  },
  'unsupported-131051.json': (envs) => {
    expect(envs.map(core)).toEqual([
      inbound('wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQwRjQ1NDc1QzlFQTQwODYyQkMzNAA=', '2025-06-16T16:18:22.000Z', { type: 'unsupported', providerType: 'edit' }),
    ]);
  },
};

describe('whatsappapi normalize: every whatsapp-cloud fixture', () => {
  test('every fixture file has an explicit case (new fixtures cannot be silently ignored)', () => {
    const files = fixtureFiles(FOLDER);
    expect(files.length).toBeGreaterThanOrEqual(23);
    expect(files).toEqual(Object.keys(CASES).sort());
  });

  test.each(Object.keys(CASES))('%s', (file) => {
    const raw = loadFixture(FOLDER, file);
    const resolved: string[] = [];
    const { envelopes, skips } = normalizeChecked(whatsappApiAdapter, raw, (id) => {
      resolved.push(id);
      return TARGET;
    });
    expect(skips).toEqual([]);
    expect(resolved).toEqual([PHONE_ID]); // routed by metadata.phone_number_id
    CASES[file](envelopes);
    // pure: the same body gives the same envelopes
    expect(whatsappApiAdapter.normalize(raw, () => TARGET, { receivedAt: '2025-01-02T03:04:05.000Z' })).toEqual(envelopes);
  });
});

describe('whatsappapi normalize: routing and robustness', () => {
  test('accountIds lists the phone-number ids of the body', () => {
    expect(whatsappAccountIds(loadFixture(FOLDER, 'text.json'))).toEqual([PHONE_ID]);
    expect(whatsappAccountIds({ entry: 'x' })).toEqual([]);
    expect(whatsappAccountIds(null)).toEqual([]);
  });

  test('an unknown phone-number id yields nothing and is reported', () => {
    const { envelopes, skips } = normalizeChecked(whatsappApiAdapter, loadFixture(FOLDER, 'text.json'), () => undefined);
    expect(envelopes).toEqual([]);
    expect(skips).toEqual([{ reason: 'unknown_account', detail: { channel: 'whatsappapi', accountId: PHONE_ID } }]);
  });

  test('a malformed message among good ones is skipped, the others are kept', () => {
    const body = loadFixture<any>(FOLDER, 'text.json'); // eslint-disable-line @typescript-eslint/no-explicit-any
    const good = body.entry[0].changes[0].value.messages[0];
    body.entry[0].changes[0].value.messages = [{ ...good, id: 'wamid.A' }, { from: WA_ID, type: 'text' }, { ...good, id: 'wamid.B', timestamp: 'soon' }, { ...good, id: 'wamid.C' }];
    body.entry.push('garbage', { changes: [{ field: 'messages', value: { metadata: {} } }] });
    const { envelopes, skips } = normalizeChecked(whatsappApiAdapter, body);
    expect(envelopes.map((e) => e.externalId)).toEqual(['wamid.A', 'wamid.C']);
    expect(skips.map((s) => s.reason)).toEqual(['malformed', 'malformed', 'malformed', 'malformed']);
  });

  test('a body without entries yields nothing', () => {
    expect(normalizeChecked(whatsappApiAdapter, { object: 'whatsapp_business_account' }).skips).toEqual([{ reason: 'malformed', detail: { reason: 'body has no entry array' } }]);
    expect(normalizeChecked(whatsappApiAdapter, 'nope').envelopes).toEqual([]);
  });

  test('other fields (account updates) are skipped as unhandled', () => {
    const { envelopes, skips } = normalizeChecked(whatsappApiAdapter, { object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'account_update', value: {} }] }] });
    expect(envelopes).toEqual([]);
    expect(skips).toEqual([{ reason: 'unhandled', detail: { entryIndex: 0, changeIndex: 0, field: 'account_update' } }]);
  });

  test('two companies: each phone-number id routes to its own connection', () => {
    const a = loadFixture<any>(FOLDER, 'text.json'); // eslint-disable-line @typescript-eslint/no-explicit-any
    const second = JSON.parse(JSON.stringify(a.entry[0]));
    second.changes[0].value.metadata.phone_number_id = '200000000000002';
    a.entry.push(second);
    const map: Record<string, { companyId: number; connectionId: number }> = { [PHONE_ID]: { companyId: 3, connectionId: 7 }, '200000000000002': { companyId: 4, connectionId: 9 } };
    const { envelopes } = normalizeChecked(whatsappApiAdapter, a, (id) => map[id]);
    expect(envelopes.map((e) => [e.companyId, e.connectionId, e.idempotencyKey.split(':').slice(0, 2).join(':')])).toEqual([
      [3, 7, 'whatsappapi:7'],
      [4, 9, 'whatsappapi:9'],
    ]);
  });
});
