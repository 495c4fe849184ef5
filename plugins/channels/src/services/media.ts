import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyBaseLogger } from 'fastify';
import { UPLOAD_TYPES, type Envelope, type UploadService } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections';

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
  /** Graph API base URL (META_GRAPH_URL). */
  graphUrl: string;
  /** Per request, in ms. */
  timeoutMs: number;
  /** Largest file stored, in bytes. */
  maxBytes: number;
  fetchImpl?: typeof fetch;
}

/**
 * Downloads the media of an inbound Meta message into the kernel's upload store and records where in
 * `envelope.content.media.path` (the tickets pipeline serves it as the message's `mediaUrl`):
 * - WhatsApp Cloud: `GET {graph}/{media-id}` with the connection's token gives a short-lived URL, fetched
 *   with the same token (GRAPH_API.md, media);
 * - Messenger / Instagram: the attachment's CDN URL, fetched as is.
 * Only signature-verified webhook payloads reach this (URLs come from Meta). Fails soft: on any error the
 * envelope keeps its media metadata without a file, and the failure is logged.
 */
export async function downloadInboundMedia(d: MediaDeps, e: Envelope): Promise<void> {
  const media = e.content?.media;
  if (e.kind !== 'message' || e.direction !== 'in' || !media || media.path) return;
  const get = d.fetchImpl ?? fetch;
  try {
    let url = media.url;
    let token: string | undefined;
    if (e.channel === 'whatsappapi') {
      if (!media.id) return;
      const conn = await d.connections.getWithSecrets(e.companyId, e.connectionId);
      token = conn?.facebookUserToken ?? undefined;
      if (!token) return;
      const meta = await get(`${d.graphUrl}/${encodeURIComponent(media.id)}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(d.timeoutMs) });
      if (!meta.ok) throw new Error(`media lookup answered ${meta.status}`);
      url = ((await meta.json()) as { url?: string }).url;
    }
    if (!url || !/^https?:\/\//i.test(url)) return;
    const res = await get(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(d.timeoutMs) });
    if (!res.ok || !res.body) throw new Error(`media download answered ${res.status}`);
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > d.maxBytes) throw new Error(`media of ${declared} bytes is over the limit`);
    const stored = await d.uploads.save(
      e.companyId,
      'messages',
      {
        file: Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>),
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
    d.log.warn({ err, key: e.idempotencyKey, channel: e.channel }, 'channels: inbound media not downloaded');
  }
}
