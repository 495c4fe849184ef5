// A local stand-in for Meta's Graph API, for load tests whose scenarios make Atendo send (replies.ts,
// send-api.ts): it answers POST /<version>/<phone-number-id>/messages like WhatsApp Cloud's send endpoint
// (a new wamid per call) and any other call with `{}`, counts what it got, and never contacts Meta.
// Start the API with META_GRAPH_URL=http://127.0.0.1:8799/v25.0 (or CHANNELS_META_GRAPH_URL).
//
//   node deploy/k6/graph-stub.mjs            # GRAPH_PORT (8799), GRAPH_HOST (127.0.0.1), GRAPH_DELAY_MS (0)
//
// Prints the number of sends every 10 s; stops on Ctrl-C / SIGTERM.
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';

const port = Number(process.env.GRAPH_PORT ?? 8799);
const host = process.env.GRAPH_HOST ?? '127.0.0.1';
const delay = Number(process.env.GRAPH_DELAY_MS ?? 0);
let sends = 0;
let others = 0;

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const answer = () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && /\/messages$/.test(req.url ?? '')) {
        sends++;
        let to = '';
        try {
          to = JSON.parse(raw || '{}').to ?? '';
        } catch {
          /* multipart media uploads */
        }
        res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.STUB${randomBytes(8).toString('hex').toUpperCase()}` }] }));
      } else {
        others++;
        res.end('{}');
      }
    };
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
});
server.listen(port, host, () => console.log(`Graph stand-in on http://${host}:${port} (point META_GRAPH_URL here)`));
const timer = setInterval(() => console.log(`graph stand-in: ${sends} sends, ${others} other calls`), 10_000);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { clearInterval(timer); server.close(() => process.exit(0)); });
