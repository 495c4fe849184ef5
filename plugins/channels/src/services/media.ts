import type { FastifyBaseLogger } from 'fastify';
import { UPLOAD_TYPES, type Envelope, type UploadService } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { OutboundFetchError, safeFetch, type SafeFetchPolicy } from '@atendo/sdk/fetch';
import { DEFAULT_MEDIA_HOSTS, DEFAULT_MEDIA_TOKEN_HOSTS } from '../config';

/** Media types stored for inbound messages (the kernel sniffs the real type; others are not stored). */
export const INBOUND_MEDIA_ALLOW: readonly string[] = [
  ...UPLOAD_TYPES.images,
  ...UPLOAD_TYPES.audio,
  ...UPLOAD_TYPES.video,
  ...UPLOAD_TYPES.documents,
  'application/zip',
  'text/plain',
];

export interface MediaDeps {
  uploads: UploadService;
  connections: ConnectionsService;
  log: FastifyBaseLogger;
  /** Graph API base URL (META_GRAPH_URL): its origin is trusted and gets the token. */
  graphUrl: string;
  /** Whole download (lookup, redirects, body), in ms. */
  timeoutMs: number;
  /** Largest file stored, in bytes. */
  maxBytes: number;
  /** Hosts media may come from, hosts the token may go to, non-public addresses still allowed (config). */
  policy?: { hosts: string[]; tokenHosts: string[]; allowPrivate: string[] };
}

/** The safeFetch policy of media downloads for `d`. */
export function mediaPolicy(d: Pick<MediaDeps, 'graphUrl' | 'timeoutMs' | 'maxBytes' | 'policy'>): SafeFetchPolicy {
  const p = d.policy ?? { hosts: DEFAULT_MEDIA_HOSTS.split(','), tokenHosts: DEFAULT_MEDIA_TOKEN_HOSTS.split(','), allowPrivate: [] };
  return {
    allowHosts: p.hosts,
    credentialHosts: p.tokenHosts,
    allowPrivate: p.allowPrivate,
    trustedOrigins: [new URL(d.graphUrl).origin],
    maxBytes: d.maxBytes,
    timeoutMs: d.timeoutMs,
    maxRedirects: 3,
  };
}

/**
 * Downloads the media of an inbound Meta message into the kernel's upload store and records where in
 * `envelope.content.media.path` (the tickets pipeline serves it as the message's `mediaUrl`), through the
 * SDK's SSRF-safe fetcher (`@atendo/sdk/fetch`: allowed hosts only, no private, loopback or link-local
 * address after DNS resolution, redirects checked again, size and time bounds):
 * - WhatsApp Cloud: `GET {graph}/{media-id}` with the connection's token gives a short-lived URL, fetched
 *   with the same token only when it is on a token host (Meta's lookaside, or the Graph URL's origin): the
 *   token never goes to another URL the API might return (GRAPH_API.md, media);
 * - Messenger / Instagram: the attachment's CDN URL (from a signed webhook payload), without credentials.
 * Fails soft: on any error or refusal the envelope keeps its media metadata without a file, and it is logged.
 */
export async function downloadInboundMedia(d: MediaDeps, e: Envelope): Promise<void> {
  const media = e.content?.media;
  if (e.kind !== 'message' || e.direction !== 'in' || !media || media.path) return;
  const policy = mediaPolicy(d);
  try {
    let url = media.url;
    let credentials: Record<string, string> | undefined;
    if (e.channel === 'whatsappapi') {
      if (!media.id) return;
      const conn = await d.connections.getWithSecrets(e.companyId, e.connectionId);
      const token = conn?.facebookUserToken ?? undefined;
      if (!token) return;
      credentials = { authorization: `Bearer ${token}` };
      const meta = await safeFetch(`${d.graphUrl}/${encodeURIComponent(media.id)}`, { ...policy, maxBytes: 64 * 1024 }, { credentials, headers: { accept: 'application/json' } });
      if (meta.status !== 200) {
        meta.body.destroy();
        throw new Error(`media lookup answered ${meta.status}`);
      }
      url = (await meta.json<{ url?: string }>()).url;
    }
    if (!url) return;
    const res = await safeFetch(url, policy, { credentials });
    if (res.status !== 200) {
      res.body.destroy();
      throw new Error(`media download answered ${res.status}`);
    }
    const stored = await d.uploads.save(
      e.companyId,
      'messages',
      {
        file: res.body,
        filename: media.fileName ?? `${e.content?.type ?? 'media'}`,
        mimetype: media.mimeType ?? res.headers.get('content-type') ?? 'application/octet-stream',
      },
      { allow: INBOUND_MEDIA_ALLOW, maxBytes: d.maxBytes },
    );
    media.path = stored.path;
    media.mimeType = stored.mimeType;
    media.size = stored.size;
    media.fileName ??= stored.fileName;
  } catch (err) {
    const refused = err instanceof OutboundFetchError ? { refused: err.reason } : {};
    d.log.warn({ err, ...refused, key: e.idempotencyKey, channel: e.channel }, 'channels: inbound media not downloaded');
  }
}
