/**
 * Local HTTP stand-ins for the services a plugin calls in tests (WhatsApp Cloud's Graph API, webhooks,
 * Typebot, an OpenAI-compatible server...): they listen on 127.0.0.1 and record every request. Never the
 * internet.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a local server received. */
export interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** What a stand-in answers: JSON `body`, or `raw` bytes of `type`. */
export interface Answer {
  status?: number;
  body?: unknown;
  raw?: Buffer;
  type?: string;
}

/** A local HTTP server answering with `handler` (JSON or bytes), recording every request. */
export class Fake {
  readonly hits: Hit[] = [];
  private server?: Server;
  url = '';
  constructor(public handler: (hit: Hit) => Answer | Promise<Answer> = () => ({ body: {} })) {}

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', async () => {
        let body: unknown = raw;
        try {
          body = JSON.parse(raw || '{}');
        } catch {
          /* not JSON */
        }
        const hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body };
        this.hits.push(hit);
        const out = await this.handler(hit);
        res.statusCode = out.status ?? 200;
        if (out.raw) {
          res.setHeader('content-type', out.type ?? 'application/octet-stream');
          res.end(out.raw);
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(out.body === undefined ? '' : JSON.stringify(out.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }
}

/** The local Graph API: records text sends per recipient. */
export class Graph extends Fake {
  private n = 0;
  readonly sent: { to: string; text: string; type: string }[] = [];
  constructor() {
    super((hit) => {
      if (hit.method === 'POST' && /^\/[^/]+\/messages/.test(hit.url)) {
        const b = hit.body as { to?: string; type?: string; text?: { body?: string }; image?: { caption?: string } };
        this.sent.push({ to: String(b.to ?? ''), type: String(b.type ?? 'text'), text: b.text?.body ?? b.image?.caption ?? '' });
        return { body: { messaging_product: 'whatsapp', contacts: [{ input: b.to, wa_id: b.to }], messages: [{ id: `wamid.OUT${++this.n}${randomBytes(3).toString('hex')}` }] } };
      }
      return { body: { id: 'x' } };
    });
  }
  to(to: string): string[] {
    return this.sent.filter((s) => s.to === to).map((s) => s.text);
  }
}
