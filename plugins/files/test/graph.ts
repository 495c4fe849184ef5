/**
 * A local WhatsApp Cloud (Graph API) server for these tests: records what the platform sends to customers
 * (texts and media, uploads answered with an id), on the first free port of 8245-8249 (the test's range).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface GraphSend {
  phoneId: string;
  to: string;
  type: string;
  text?: string;
  caption?: string;
  filename?: string;
  mediaId?: string;
}

export class LocalGraph {
  readonly sent: GraphSend[] = [];
  readonly uploads: { phoneId: string; bytes: number; type: string }[] = [];
  url = '';
  private server?: Server;
  private n = 0;

  async start(): Promise<void> {
    for (const port of [8245, 8246, 8247, 8248, 8249, 0]) {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          const raw = Buffer.concat(chunks);
          const media = /^\/(?:v[\d.]+\/)?([^/]+)\/media/.exec(req.url ?? '');
          if (req.method === 'POST' && media) {
            const type = /name="type"\r\n\r\n([^\r]+)/.exec(raw.toString('latin1'))?.[1] ?? '';
            this.uploads.push({ phoneId: media[1], bytes: raw.length, type });
            res.end(JSON.stringify({ id: `media-${++this.n}` }));
            return;
          }
          const m = /^\/(?:v[\d.]+\/)?([^/]+)\/messages/.exec(req.url ?? '');
          if (req.method === 'POST' && m) {
            let body: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
            try {
              body = JSON.parse(raw.toString('utf8') || '{}');
            } catch {
              /* not JSON */
            }
            const type = String(body.type ?? '');
            const obj = (body[type] ?? {}) as Record<string, string | undefined>;
            this.sent.push({ phoneId: m[1], to: String(body.to ?? ''), type, text: type === 'text' ? obj.body : undefined, caption: obj.caption, filename: obj.filename, mediaId: obj.id });
            res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.OUT${++this.n}${randomBytes(3).toString('hex')}` }] }));
            return;
          }
          res.end(JSON.stringify({ id: 'x' }));
        });
      });
      const ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (ok) {
        this.server = server;
        this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        return;
      }
    }
    throw new Error('no port for the local Graph server');
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }

  to(number: string): GraphSend[] {
    return this.sent.filter((s) => s.to === number);
  }
}
