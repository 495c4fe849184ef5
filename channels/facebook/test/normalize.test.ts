import type { Envelope } from '@atendo/sdk';
import { facebookAdapter, messengerAccountIds } from '../src/index';
import { core, fixtureFiles, loadFixture, normalizeChecked, TARGET } from '../../meta-common/test/fixtures';

const FOLDER = 'messenger';
const PAGE = '999000000000001';
const PSID = '9990000000000017';
const THREAD = { externalId: PSID, isGroup: false };
const USER = { externalId: PSID };
const OUR_MID = 'm_3gQoAp1T2hv3r-eeMeal76VBqxTuvqhYzbW4KZ7Won_7yNO3sq9PM-iMu0AWZwAY2xzpMkl3wUNnilAROxcnAg';
const TEXT_MID = 'm_sS6tSBHHNElxN2hNj1gCvh1Lk8sffgNYQQCQgd0XAitMjp25_87cutj8oa8PD8as_hDR8S7Td-0JRlvf9QR5pw';
const BASE = { schemaVersion: 1, companyId: TARGET.companyId, connectionId: TARGET.connectionId, channel: 'facebook', thread: THREAD };
const key = (kind: string, ext: string, suffix?: string) => ['facebook', TARGET.connectionId, kind, ext, suffix].filter(Boolean).join(':');

function inbound(mid: string, occurredAt: string, content: Envelope['content'], extra: Partial<Envelope> = {}) {
  return { ...BASE, idempotencyKey: key('message', mid), occurredAt, sender: USER, direction: 'in', kind: 'message', externalId: mid, content, ...extra };
}

/** Every fixture of messenger/ and what it must normalize to (exactly, apart from `raw` and `id`). */
const CASES: Record<string, (envs: Envelope[]) => void> = {
  'text.json': (envs) => expect(envs.map(core)).toEqual([inbound(TEXT_MID, '2024-08-12T18:16:49.684Z', { type: 'text', text: 'Hi, is this still available?' })]),
  'text-emoji-only.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound('m_NdbZ0bYdo8Fnjq5BlqqWbIZ1qrZkeX1PEsXUFGkt_phmKFmDS8ONBvMTaLT25iuRVBoI-uJqWfybHGIUd4yWOg', '2024-08-13T18:20:58.697Z', { type: 'text', text: '😃' }),
    ]),
  'text-quick-reply.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound('m_7C7Q8YS-N9Ye0iXKzAyRhp3vk3p292xTqBpjlJimapyJYyfP41cvu9sg__uabunen9yvvWBqalZx-g_7W6omCg', '2016-08-09T21:51:50.432Z', {
        type: 'interactive',
        text: 'Size M',
        interactive: { title: 'Size M', payload: 'SIZE_M' },
        providerType: 'quick_reply',
      }),
    ]),
  'text-reply-to.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(
        'm_W0gS2afJqkCE-A7YdFfmQRQyGcg1Z5ZefUdcaPGoKLqv8lSJUVyaWG3q_XPMF82qnaRPLXppVlpGePlsiAdRZQ',
        '2016-03-23T00:25:52.478Z',
        { type: 'text', text: 'Yes, that one please' },
        { replyTo: { externalId: OUR_MID } },
      ),
    ]),
  'image-attachment.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound('m_gi8LtpTNIxyFzOD8NrqrX0QtOZat8XtvA_11NNa47DsMjf_SrtfSrIb1lzyM1Z94MOt847wsedjun9A2xp9XuA', '2025-03-03T06:46:20.942Z', {
        type: 'image',
        media: {
          url: 'https://scontent.xx.fbcdn.net/v/t1.15752-9/470430665_979808756255835_3219556625466287781_n.jpg?_nc_cat=1&ccb=1-7&_nc_sid=fc17b8&_nc_ohc=FAKE1OXh3NbOXj22&_nc_ad=z-m&_nc_cid=0&_nc_zt=23&_nc_ht=scontent.xx&oh=03_FAKE7sL6tGNEIvaO9GNufeQtmP36UqU3Vk3O&oe=6800A1B2',
        },
      }),
    ]),
  'fallback-link-share.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound('m_ajXN4kRngHBA2i6fmn0mrF7tT-b390AqmppjlVO2vgOaEzkDhNy-9qteSfx3evjPHw5JAKwKJlAlBGi2rEjwKQ', '2020-03-02T18:27:46.767Z', {
        type: 'text',
        text: 'This is where I want to go: https://youtu.be/FAKEvid0001',
        link: { url: 'https://l.facebook.com/l.php?u=https%3A%2F%2Fyoutu.be%2FFAKEvid0001&h=FAKE', title: 'Example video title' },
        providerType: 'fallback',
      }),
    ]),
  'postback-get-started-referral.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound('m_2ejErCzYCBe720XqKK4_f5-e2UGD_efZYuRuyftKLYY5mnYqoAU2U7JNdHU5_SD15isZthw2W9gCLfmI0B34ww', '2018-03-28T07:41:34.827Z', {
        type: 'interactive',
        text: 'Get Started',
        interactive: { title: 'Get Started', payload: '__GET_STARTED__' },
        providerType: 'postback',
        referral: { ref: 'summer_promo', source: 'SHORTLINK', type: 'OPEN_THREAD' },
      }),
    ]),
  'reaction-react.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('reaction', OUR_MID, `${PSID}:1572465098502`),
        occurredAt: '2019-10-30T19:51:38.502Z',
        sender: USER,
        direction: 'in',
        kind: 'reaction',
        externalId: OUR_MID,
        reaction: { emoji: '😢' },
      },
    ]),
  'reaction-unreact.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('reaction', OUR_MID, `${PSID}:1723573249974`),
        occurredAt: '2024-08-13T18:20:49.974Z',
        sender: USER,
        direction: 'in',
        kind: 'reaction',
        externalId: OUR_MID,
        reaction: { emoji: '' },
      },
    ]),
  'message-edit.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('edit', TEXT_MID, 'edit1'),
        occurredAt: '2024-08-13T18:44:30.000Z',
        sender: USER,
        direction: 'in',
        kind: 'edit',
        externalId: TEXT_MID,
        edit: { text: 'Hi, is this still available in blue?' },
        content: { type: 'text', text: 'Hi, is this still available in blue?' },
      },
    ]),
  // Delivery acks every message up to the watermark: one status envelope per listed mid, carrying the watermark.
  'delivery.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('status', OUR_MID, 'delivered'),
        occurredAt: '2024-08-13T18:04:28.190Z',
        sender: USER,
        direction: 'out',
        kind: 'status',
        externalId: OUR_MID,
        status: { state: 'delivered', watermark: '2024-08-13T18:04:27.515Z' },
      },
    ]),
  // Messenger reads name no message: one watermark envelope.
  'read.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('status', 'watermark:1723572729746', 'read'),
        occurredAt: '2024-08-13T18:12:10.200Z',
        sender: USER,
        direction: 'out',
        kind: 'status',
        externalId: 'watermark:1723572729746',
        status: { state: 'read', watermark: '2024-08-13T18:12:09.746Z' },
      },
    ]),
  // Echo of a message the page sent: direction out, thread = the customer, sender = the page.
  'echo-text.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('message', OUR_MID),
        occurredAt: '2016-03-12T06:29:57.627Z',
        sender: { externalId: PAGE },
        direction: 'out',
        kind: 'message',
        externalId: OUR_MID,
        content: { type: 'text', text: 'Thanks! Your order #452 ships tomorrow.' },
      },
    ]),
};

describe('facebook normalize: every messenger fixture', () => {
  test('every fixture file has an explicit case (new fixtures cannot be silently ignored)', () => {
    const files = fixtureFiles(FOLDER);
    expect(files.length).toBeGreaterThanOrEqual(13);
    expect(files).toEqual(Object.keys(CASES).sort());
  });

  test.each(Object.keys(CASES))('%s', (file) => {
    const raw = loadFixture(FOLDER, file);
    const resolved: string[] = [];
    const { envelopes, skips } = normalizeChecked(facebookAdapter, raw, (id) => {
      resolved.push(id);
      return TARGET;
    });
    expect(skips).toEqual([]);
    expect(resolved).toEqual([PAGE]); // routed by the page id (entry.id)
    CASES[file](envelopes);
    expect(facebookAdapter.normalize(raw, () => TARGET)).toEqual(envelopes);
  });
});

describe('facebook normalize: other shapes', () => {
  const event = (ev: Record<string, unknown>) => ({
    object: 'page',
    entry: [{ id: PAGE, time: 1723486611083, messaging: [{ sender: { id: PSID }, recipient: { id: PAGE }, timestamp: 1723486609684, ...ev }] }],
  });

  test('accountIds lists the page ids; unknown pages yield nothing and are reported', () => {
    expect(messengerAccountIds(loadFixture(FOLDER, 'text.json'))).toEqual([PAGE]);
    const { envelopes, skips } = normalizeChecked(facebookAdapter, loadFixture(FOLDER, 'text.json'), () => undefined);
    expect(envelopes).toEqual([]);
    expect(skips).toEqual([{ reason: 'unknown_account', detail: { channel: 'facebook', accountId: PAGE } }]);
  });

  test('several attachments: one envelope each, the first keeps the mid and the text', () => {
    const { envelopes } = normalizeChecked(
      facebookAdapter,
      event({
        message: {
          mid: 'm_multi',
          text: 'two photos and a file',
          attachments: [
            { type: 'image', payload: { url: 'https://cdn.example/a.jpg' } },
            { type: 'image', payload: { url: 'https://cdn.example/b.jpg', sticker_id: 369239263222822 } },
            { type: 'file', payload: { url: 'https://cdn.example/c.pdf' } },
            { type: 'audio', payload: { url: 'https://cdn.example/d.mp4' } },
            { type: 'video', payload: { url: 'https://cdn.example/e.mp4' } },
            { type: 'location', payload: { coordinates: { lat: -23.5, long: -46.6 }, title: 'Pin' } },
            { type: 'template', payload: { template_type: 'generic' } },
          ],
        },
      }),
    );
    expect(envelopes.map((e) => [e.externalId, e.content])).toEqual([
      ['m_multi', { type: 'image', text: 'two photos and a file', media: { url: 'https://cdn.example/a.jpg' } }],
      ['m_multi:1', { type: 'sticker', media: { url: 'https://cdn.example/b.jpg' }, providerType: 'sticker' }],
      ['m_multi:2', { type: 'document', media: { url: 'https://cdn.example/c.pdf' } }],
      ['m_multi:3', { type: 'audio', media: { url: 'https://cdn.example/d.mp4' } }],
      ['m_multi:4', { type: 'video', media: { url: 'https://cdn.example/e.mp4' } }],
      ['m_multi:5', { type: 'location', location: { latitude: -23.5, longitude: -46.6, name: 'Pin' } }],
      ['m_multi:6', { type: 'unsupported', providerType: 'template' }],
    ]);
    expect(new Set(envelopes.map((e) => e.idempotencyKey)).size).toBe(7);
  });

  test('delivery without mids acks by watermark; optins are unhandled; standby events are read too', () => {
    const { envelopes, skips } = normalizeChecked(facebookAdapter, {
      object: 'page',
      entry: [
        {
          id: PAGE,
          messaging: [
            { sender: { id: PSID }, recipient: { id: PAGE }, timestamp: 1723572268190, delivery: { watermark: 1723572267515 } },
            { sender: { id: PSID }, recipient: { id: PAGE }, timestamp: 1723572268190, optin: { ref: 'x' } },
          ],
          standby: [{ sender: { id: PSID }, recipient: { id: PAGE }, timestamp: 1723572268190, message: { mid: 'm_standby', text: 'hi' } }],
        },
      ],
    });
    expect(envelopes.map((e) => [e.kind, e.externalId, e.status])).toEqual([
      ['status', 'watermark:1723572267515', { state: 'delivered', watermark: '2024-08-13T18:04:27.515Z' }],
      ['message', 'm_standby', undefined],
    ]);
    expect(skips).toEqual([{ reason: 'unhandled', detail: { accountId: PAGE, event: ['optin'] } }]);
  });

  test('malformed events are skipped one by one; the rest of the body is kept', () => {
    const body = loadFixture<any>(FOLDER, 'text.json'); // eslint-disable-line @typescript-eslint/no-explicit-any
    const good = body.entry[0].messaging[0];
    body.entry[0].messaging = [{ ...good, sender: {} }, { ...good, timestamp: 'yesterday' }, { ...good, message: { text: 'no mid' } }, 42, good];
    body.entry.unshift({ messaging: [good] }, null);
    const { envelopes, skips } = normalizeChecked(facebookAdapter, body);
    expect(envelopes.map((e) => e.externalId)).toEqual([TEXT_MID]);
    expect(skips.map((s) => s.reason)).toEqual(['malformed', 'malformed', 'malformed', 'malformed', 'malformed', 'malformed']);
    expect(skips.map((s) => s.detail.error)).toEqual([
      'entry.id is missing',
      'entry is not an object',
      'sender.id is missing',
      'timestamp is not a time in milliseconds',
      'message.mid is missing',
      'event is not an object',
    ]);
  });
});
