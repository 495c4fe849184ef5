/**
 * A local stand-in of Azure Speech's text-to-speech WebSocket service, enough for Microsoft's Speech SDK:
 * it records each synthesis (the connection's path and key, the SSML) and answers turn.start, a response
 * naming the audio stream, the audio as one binary frame (a 2-byte header length, the headers, the bytes),
 * and turn.end; or closes the connection when `audio` is null (the provider refusing).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface Synthesis {
  path: string;
  key: string | null;
  ssml: string;
}

export class SpeechStandIn {
  readonly syntheses: Synthesis[] = [];
  /** What the next syntheses answer: MP3 bytes, or null to refuse (close the socket with 1008). */
  audio: Buffer | null = null;
  url = '';
  private server?: Server;
  private wss?: WebSocketServer;

  async start(): Promise<this> {
    const server = createServer();
    const wss = new WebSocketServer({ server });
    wss.on('connection', (ws, req) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const key = u.searchParams.get('Ocp-Apim-Subscription-Key') ?? (req.headers['ocp-apim-subscription-key'] as string | undefined) ?? null;
      ws.on('message', (data) => {
        const text = data.toString();
        const cut = text.indexOf('\r\n\r\n');
        const head = cut >= 0 ? text.slice(0, cut) : text;
        if (!/^Path:\s*ssml\s*$/im.test(head)) return;
        this.syntheses.push({ path: u.pathname, key, ssml: text.slice(cut + 4) });
        if (!this.audio) {
          ws.close(1008, 'Unauthorized');
          return;
        }
        const requestId = /^X-RequestId:\s*(\S+)/im.exec(head)?.[1] ?? '';
        const headers = (path: string, extra = '') => `X-RequestId:${requestId}\r\nPath:${path}\r\n${extra}`;
        ws.send(`${headers('turn.start', 'Content-Type:application/json; charset=utf-8\r\n')}\r\n{"context":{"serviceTag":"stand-in"}}`);
        ws.send(`${headers('response', 'Content-Type:application/json; charset=utf-8\r\n')}\r\n{"context":{"serviceTag":"stand-in"},"audio":{"type":"inline","streamId":"S1"}}`);
        const audioHead = Buffer.from(headers('audio', 'Content-Type:audio/mpeg\r\nX-StreamId:S1\r\n'));
        const size = Buffer.alloc(2);
        size.writeUInt16BE(audioHead.length);
        ws.send(Buffer.concat([size, audioHead, this.audio]));
        ws.send(`${headers('turn.end')}\r\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    this.server = server;
    this.wss = wss;
    this.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const c of this.wss?.clients ?? []) c.terminate();
    await new Promise((r) => this.wss?.close(r));
    await new Promise((r) => this.server?.close(r));
  }
}
