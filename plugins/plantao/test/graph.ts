/** A local WhatsApp Cloud Graph API for the plantao tests: records text sends (ports 8255-8259). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export class Graph {
  readonly sent: { to: string; text: string; type: string; body: Record<string, unknown> }[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    for (const port of [8255, 8256, 8257, 8258, 8259, 0]) {
      const server = createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(raw || '{}');
          } catch {
            /* multipart media upload */
          }
          if (req.method === 'POST' && /^\/[^/]+\/media/.test(req.url ?? '')) return void res.end(JSON.stringify({ id: `media-${randomBytes(4).toString('hex')}` }));
          if (req.method === 'POST' && /^\/[^/]+\/messages/.test(req.url ?? '')) {
            this.sent.push({ to: String(body.to ?? ''), text: (body.text as { body?: string } | undefined)?.body ?? '', type: String(body.type ?? ''), body });
            return void res.end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.OUT${randomBytes(6).toString('hex')}` }] }));
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
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }

  to(to: string): string[] {
    return this.sent.filter((s) => s.to === to).map((s) => s.text);
  }
}
