import type { Envelope } from '@atendo/sdk';
import { instagramAdapter, instagramAccountIds } from '../src/index';
import { core, fixtureFiles, loadFixture, normalizeChecked, TARGET } from '../../meta-common/test/fixtures';

const FOLDER = 'instagram';
const IG = '17841400000000042';
const IGSID = '9990000000000023';
const THREAD = { externalId: IGSID, isGroup: false };
const USER = { externalId: IGSID };
const P = 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjNDE0MDAwMDAwMDAwNDI6MzQwMjgyMzY2ODQxNzEwMzAwOTQ5MTI4';
const TEXT_MID = `${P}MTI4NzY1MzYzMjEyOTkwOjM3MDMwNDEyMjUzNTQ3NTE3OTA5NDE3NzQxNzg4ODY1NzI2NDI0ZDZD`;
const OUR_MID = `${P}MTcwMzYwMDAwMzY0ODk4OjMyNzIxMzM5ODA2NDI5ODYwODQwMTY0NDc2MDMyMzIyNjMxNTU1ZDZD`;
const BASE = { schemaVersion: 1, companyId: TARGET.companyId, connectionId: TARGET.connectionId, channel: 'instagram', thread: THREAD };
const key = (kind: string, ext: string, suffix?: string) => ['instagram', TARGET.connectionId, kind, ext, suffix].filter(Boolean).join(':');
const T_2019 = '2019-09-23T18:14:45.349Z';

function inbound(mid: string, occurredAt: string, content: Envelope['content'], extra: Partial<Envelope> = {}) {
  return { ...BASE, idempotencyKey: key('message', mid), occurredAt, sender: USER, direction: 'in', kind: 'message', externalId: mid, content, ...extra };
}

/** Every fixture of instagram/ and what it must normalize to (exactly, apart from `raw` and `id`). */
const CASES: Record<string, (envs: Envelope[]) => void> = {
  'text.json': (envs) => expect(envs.map(core)).toEqual([inbound(TEXT_MID, '2025-02-21T17:00:00.421Z', { type: 'text', text: 'Hello! Do you ship to Portugal?' })]),
  'image.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTQzMzYzMjMwNTE4NjIyOjM5MzY4OTI1NjE0NjM1ODA5MzI0NDU1NTI1NDc5NDE2NzcyNjIwZDZD`, '2025-02-21T17:01:26.706Z', {
        type: 'image',
        media: {
          url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=18534413479571856&signature=rWh6NSDKFYAMJKSn5X2GaJDSgp988t4nPbiZlQ4F6rte04TKGbBPoKB3hJOcFcT6iK7Kn8eUjsSTNiror0iKHmIQj_k-yZ8XonwR8NjB_3IK2_FQZTy9yaLhFvdBUUKjbuoR_pzlXipNr6ybt6RwSbV0ZeJJt6nMAuaWq6EnowypJYuZtYZBiZrQGQepeCWfP6MF-UBA',
        },
      }),
    ]),
  'share-post.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTAwODQyMzAwMzY1Nzg5OjM1MzI3OTc2OTQ0NjE5ODg5MDg3MjQ5Mzc3MTA4NDQyMTk0ODkxZDZD`, '2025-02-25T14:02:52.673Z', {
        type: 'image',
        media: {
          url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=18111468839575003&signature=7orX-jAju7UZrKF_0pI0vqvvjhN5jrR5PnbVdOpGu1n3Zd8fp1lZr72nh6okpWEwwaFODv8WvjEfXTGXHBfaX8ljUbkBwRH3TqGOhpf69BjH4SRgDJAHoQ_QuO2xdeJCJbYkTYcWPb3hlMq-NLH8GB-kRLgIuvL9CRXSGiM9zANiUzuznmNsaG80LRjMZeMMU28hZuMH',
        },
        providerType: 'share',
      }),
    ]),
  'story-mention.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTI0MjMzOTAwOTM3OTU4OjM2MjAwNTcyMTY3MzcwMjQyNTU1NTE2NzU1MTcyNzY5Nzg5NTY2ZDZD`, T_2019, {
        type: 'image',
        media: {
          url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=18901566367096499&signature=BoFYJ2dPKQqNZq1OYzPSuM-Tznrxwp6ayUoTLwgJZSFNgmJUp2H5KclHa2fIohxmeoFBc0d2hHs9IYxm48iAkfQrllCWV1T2cNq05cgWlxpqvxsVZ2W49Ix4aLJY2ygNGwEOV1iFLhGhoakZ3cjvo9QBdG9g1x65N2CdGFn71e5lNpMX4wvQW7mH0D213Ksyc4FJZbvm',
        },
        providerType: 'story_mention',
      }),
    ]),
  'reply-to-message.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTE0MzU4ODQwNTkxNzAxOjM3NDM1MzI0NTYwMzI0NjYzMzI3MjM5NDY3MzE1MjgyODU2NDIyZDZD`, T_2019, { type: 'text', text: 'Is this one in stock?' }, { replyTo: { externalId: OUR_MID } }),
    ]),
  'quick-reply.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTk1NTE1ODg3ODM3OTY0OjMwNzkxNDEzMDk1MTc2MDc0NDMxNDg0Mzc2MDQxNjIxNTgwOTkxZDZD`, T_2019, {
        type: 'interactive',
        text: 'Yes, please',
        interactive: { title: 'Yes, please', payload: 'CONFIRM_YES' },
        providerType: 'quick_reply',
      }),
    ]),
  'postback-icebreaker.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTczNjY3ODg0NTgzNjg1OjM2NTYyODk3Nzk1ODg4MDk4Mzc5NTAxMDE2MTEyNjY5MDkwMTQxZDZD`, '2017-08-16T17:52:56.377Z', {
        type: 'interactive',
        text: 'Track my order',
        interactive: { title: 'Track my order', payload: 'ICEBREAKER_TRACK_ORDER' },
        providerType: 'postback',
      }),
    ]),
  'reaction-love.json': (envs) =>
    expect(envs.map(core)).toEqual([
      { ...BASE, idempotencyKey: key('reaction', OUR_MID, `${IGSID}:1569262485349`), occurredAt: T_2019, sender: USER, direction: 'in', kind: 'reaction', externalId: OUR_MID, reaction: { emoji: '❤️' } },
    ]),
  // Instagram edits may carry no text: kind edit without `edit` (the pipeline fetches the message if it wants).
  'message-edit.json': (envs) => {
    expect(envs.map(core)).toEqual([
      { ...BASE, idempotencyKey: key('edit', TEXT_MID, 'edit0'), occurredAt: '2026-06-02T10:36:56.736Z', sender: USER, direction: 'in', kind: 'edit', externalId: TEXT_MID },
    ]);
    expect(envs[0]).not.toHaveProperty('edit');
  },
  'deleted-unsend.json': (envs) =>
    expect(envs.map(core)).toEqual([{ ...BASE, idempotencyKey: key('delete', TEXT_MID), occurredAt: T_2019, sender: USER, direction: 'in', kind: 'delete', externalId: TEXT_MID }]),
  // Instagram read receipts name one message (read.mid).
  'seen.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('status', OUR_MID, 'read'),
        occurredAt: '2022-11-09T19:32:13.735Z',
        sender: USER,
        direction: 'out',
        kind: 'status',
        externalId: OUR_MID,
        status: { state: 'read' },
      },
    ]),
  // Echo: sender = the business account, thread = the customer, direction out.
  'echo-business-sent.json': (envs) =>
    expect(envs.map(core)).toEqual([
      {
        ...BASE,
        idempotencyKey: key('message', OUR_MID),
        occurredAt: T_2019,
        sender: { externalId: IG },
        direction: 'out',
        kind: 'message',
        externalId: OUR_MID,
        content: { type: 'text', text: 'Thanks for reaching out! We ship to Portugal in 3-5 days.' },
      },
    ]),
  'unsupported-attachment.json': (envs) =>
    expect(envs.map(core)).toEqual([
      inbound(`${P}MTE5NzcyNzQ1ODY3NjMwOjMzMTIwMzEzMDkyNjUzOTI0MjUwNDg1MTk0OTk1MTI4NjI3MzQ1ZDZD`, '2022-11-09T19:32:13.735Z', {
        type: 'unsupported',
        providerType: 'unsupported_type',
      }),
    ]),
};

describe('instagram normalize: every instagram fixture', () => {
  test('every fixture file has an explicit case (new fixtures cannot be silently ignored)', () => {
    const files = fixtureFiles(FOLDER);
    expect(files.length).toBeGreaterThanOrEqual(13);
    expect(files).toEqual(Object.keys(CASES).sort());
  });

  test.each(Object.keys(CASES))('%s', (file) => {
    const raw = loadFixture(FOLDER, file);
    const resolved: string[] = [];
    const { envelopes, skips } = normalizeChecked(instagramAdapter, raw, (id) => {
      resolved.push(id);
      return TARGET;
    });
    expect(skips).toEqual([]);
    expect(resolved).toEqual([IG]); // routed by the Instagram account id (entry.id)
    CASES[file](envelopes);
    expect(instagramAdapter.normalize(raw, () => TARGET)).toEqual(envelopes);
  });
});

describe('instagram normalize: other shapes', () => {
  const message = (m: Record<string, unknown>) => ({
    object: 'instagram',
    entry: [{ id: IG, time: 1569262486134, messaging: [{ sender: { id: IGSID }, recipient: { id: IG }, timestamp: 1569262485349, message: { mid: 'aWdf_x', ...m } }] }],
  });

  test('accountIds lists the account ids; unknown accounts yield nothing and are reported', () => {
    expect(instagramAccountIds(loadFixture(FOLDER, 'text.json'))).toEqual([IG]);
    const { envelopes, skips } = normalizeChecked(instagramAdapter, loadFixture(FOLDER, 'text.json'), () => undefined);
    expect(envelopes).toEqual([]);
    expect(skips).toEqual([{ reason: 'unknown_account', detail: { channel: 'instagram', accountId: IG } }]);
  });

  test('post shares after Nov 2025 (share + ig_post), reels, view-once and is_unsupported', () => {
    const share = normalizeChecked(
      instagramAdapter,
      message({
        attachments: [
          { type: 'share', payload: { url: 'https://lookaside.fbsbx.com/asset/1' } },
          { type: 'ig_post', payload: { ig_post_media_id: '1790', title: 'Our new drop', url: 'https://www.instagram.com/p/FAKE/' } },
        ],
      }),
    ).envelopes;
    expect(share.map((e) => [e.externalId, e.content])).toEqual([
      ['aWdf_x', { type: 'image', media: { url: 'https://lookaside.fbsbx.com/asset/1' }, providerType: 'share' }],
      ['aWdf_x:1', { type: 'text', text: 'Our new drop', link: { url: 'https://www.instagram.com/p/FAKE/', title: 'Our new drop' }, providerType: 'ig_post' }],
    ]);
    const reel = normalizeChecked(instagramAdapter, message({ attachments: [{ type: 'ig_reel', payload: { url: 'https://cdn/r.mp4', title: 'Reel title', reel_video_id: '1' } }] })).envelopes;
    expect(reel[0].content).toEqual({ type: 'video', text: 'Reel title', media: { url: 'https://cdn/r.mp4' }, providerType: 'ig_reel' });
    const ephemeral = normalizeChecked(instagramAdapter, message({ attachments: [{ type: 'ephemeral' }] })).envelopes;
    expect(ephemeral[0].content).toEqual({ type: 'unsupported', providerType: 'ephemeral' });
    const unsupported = normalizeChecked(instagramAdapter, message({ is_unsupported: true })).envelopes;
    expect(unsupported[0].content).toEqual({ type: 'unsupported', providerType: 'unsupported' });
  });

  test('Instagram comments (entry.changes) are not messages: skipped as unhandled', () => {
    const { envelopes, skips } = normalizeChecked(instagramAdapter, { object: 'instagram', entry: [{ id: IG, time: 1, changes: [{ field: 'comments', value: {} }] }] });
    expect(envelopes).toEqual([]);
    expect(skips.map((s) => s.reason)).toEqual(['unhandled']);
  });
});
