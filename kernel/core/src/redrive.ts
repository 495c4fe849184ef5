// First: under compiled JavaScript, workspace packages resolve to their dist/ twins (no tsx needed).
import './runtime/register';
import * as amqp from 'amqplib';
import knexFactory, { type Knex } from 'knex';
import { loadConfig } from './config';

/**
 * `npm run redrive` — the operator's command for what was dead-lettered (run it next to a kernel, with the
 * kernel's environment: DATABASE_URL or the embedded PostgreSQL of DATA_DIR, AMQP_URL, AMQP_EXCHANGE):
 *
 *   npm run redrive                      list what is dead-lettered (nothing is changed)
 *   npm run redrive -- --all             put everything back
 *   npm run redrive -- --queue tickets.inbound      one bus queue (in-process table or RabbitMQ <queue>.dlq)
 *   npm run redrive -- --source channels.meta       one inbox source
 *
 * What goes back where:
 * - the durable inbox (`inbox_events` rows in state `dead`): back to `pending` with their tries reset; a
 *   running kernel takes them within a second;
 * - in-process bus dead letters (`bus_dead_letters`): marked for redrive; a running kernel puts them back
 *   into their queue within 5 s (or at its next start) and deletes the rows;
 * - RabbitMQ (AMQP_URL set): the messages of `<queue>.dlq` are moved back to `<queue>` (attempt 1), for the
 *   queues named with --queue, or with --all those of every consumer queue the kernel declares.
 * Exit code 0; 1 on a bad argument or when the database / broker cannot be reached.
 */

/** The consumer queues of the shipped plugins (RabbitMQ cannot be asked for its queue names without its management API). */
export const KNOWN_QUEUES = [
  'tickets.inbound',
  'tickets.message-results',
  'tickets.conversation',
  'channels.meta-webhooks',
  'channels.outbound',
  'channels.outbound.whatsapp',
  'connections.reset-code',
  'automation.message-timers',
  'automation.ticket-changes',
  'campaigns.connection-updated',
  'campaigns.message-failed',
];

interface Args {
  apply: boolean;
  queues: string[];
  sources: string[];
}

function parseArgs(argv: string[]): Args {
  const out: Args = { apply: false, queues: [], sources: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--all') out.apply = true;
    else if (a === '--queue' && argv[i + 1]) {
      out.queues.push(argv[++i]);
      out.apply = true;
    } else if (a === '--source' && argv[i + 1]) {
      out.sources.push(argv[++i]);
      out.apply = true;
    } else if (a === '--help' || a === '-h') {
      console.log('usage: npm run redrive [-- --all | --queue <name> ... | --source <name> ...]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a} (see --help)`);
  }
  return out;
}

/** The database URL the kernel uses: DATABASE_URL, else its embedded PostgreSQL (which must be running). */
function databaseUrl(config: { DATABASE_URL?: string; EMBEDDED_PG_PORT: number }): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  return `postgres://postgres:atendo-embedded@127.0.0.1:${config.EMBEDDED_PG_PORT}/atendo`;
}

async function inboxPart(db: Knex, args: Args): Promise<void> {
  const { rows } = (await db.raw("SELECT source, count(*)::int AS n FROM inbox_events WHERE state = 'dead' GROUP BY source ORDER BY source")) as { rows: { source: string; n: number }[] };
  if (!rows.length) console.log('inbox: nothing dead-lettered');
  for (const r of rows) console.log(`inbox: ${r.n} dead event(s) of ${r.source}`);
  if (!args.apply || !rows.length) return;
  const sources = args.sources.length ? args.sources : args.queues.length ? [] : rows.map((r) => r.source);
  if (!sources.length) return;
  const res = (await db.raw(
    "UPDATE inbox_events SET state = 'pending', attempts = 0, next_at = now(), lease_until = NULL, last_error = NULL WHERE state = 'dead' AND source = ANY(?::text[])",
    [sources],
  )) as { rowCount: number };
  console.log(`inbox: ${res.rowCount} event(s) put back (${sources.join(', ')}); a running kernel handles them within a second`);
}

async function busTablePart(db: Knex, args: Args): Promise<void> {
  const { rows } = (await db.raw('SELECT queue, count(*)::int AS n, count(redrive_at)::int AS marked FROM bus_dead_letters GROUP BY queue ORDER BY queue')) as {
    rows: { queue: string; n: number; marked: number }[];
  };
  if (!rows.length) console.log('bus (in-process): no dead letters');
  for (const r of rows) console.log(`bus (in-process): ${r.n} dead letter(s) in ${r.queue}${r.marked ? ` (${r.marked} already marked for redrive)` : ''}`);
  if (!args.apply || !rows.length) return;
  const queues = args.queues.length ? args.queues : args.sources.length ? [] : rows.map((r) => r.queue);
  if (!queues.length) return;
  const res = (await db.raw('UPDATE bus_dead_letters SET redrive_at = now() WHERE redrive_at IS NULL AND queue = ANY(?::text[])', [queues])) as { rowCount: number };
  console.log(`bus (in-process): ${res.rowCount} dead letter(s) marked; a running kernel puts them back into their queues within 5 s`);
}

async function rabbitPart(url: string, exchange: string, args: Args): Promise<void> {
  const prefix = exchange === 'atendo.events' ? '' : `${exchange}.`;
  const queues = args.queues.length ? args.queues : KNOWN_QUEUES;
  const conn = await amqp.connect(url);
  try {
    for (const queue of queues) {
      const ch = await conn.createConfirmChannel();
      ch.on('error', () => undefined);
      const dlq = `${prefix}${queue}.dlq`;
      let count: number;
      try {
        count = (await ch.checkQueue(dlq)).messageCount;
      } catch {
        continue; // no such queue on this broker
      }
      console.log(`bus (RabbitMQ): ${count} dead letter(s) in ${dlq}`);
      if (!args.apply || count === 0 || (args.sources.length && !args.queues.length)) {
        await ch.close().catch(() => undefined);
        continue;
      }
      let moved = 0;
      for (let i = 0; i < count; i++) {
        const m = await ch.get(dlq, { noAck: false });
        if (!m) break;
        const headers: Record<string, unknown> = { ...(m.properties.headers ?? {}), 'x-attempt': 1, 'x-outages': 0, 'x-redriven-at': new Date().toISOString() };
        for (const h of Object.keys(headers)) if (h === 'x-death' || h.startsWith('x-first-death-') || h.startsWith('x-last-death-')) delete headers[h];
        await new Promise<void>((resolve, reject) =>
          ch.sendToQueue(`${prefix}${queue}`, m.content, { persistent: true, contentType: m.properties.contentType, messageId: m.properties.messageId, timestamp: m.properties.timestamp, headers }, (err) => (err ? reject(err) : resolve())),
        );
        ch.ack(m);
        moved++;
      }
      await ch.close().catch(() => undefined);
      console.log(`bus (RabbitMQ): ${moved} message(s) moved from ${dlq} back to ${prefix}${queue}`);
    }
  } finally {
    await conn.close().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig(process.env);
  const url = databaseUrl(config);
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    try {
      await db.raw('select 1');
    } catch (err) {
      throw new Error(`cannot reach the database (${(err as Error).message}); set DATABASE_URL, or start the kernel so that its embedded PostgreSQL runs`);
    }
    await inboxPart(db, args);
    if (config.AMQP_URL) await rabbitPart(config.AMQP_URL, config.AMQP_EXCHANGE, args);
    else await busTablePart(db, args);
    if (!args.apply) console.log('(nothing changed: add --all, --queue <name> or --source <name> to put them back)');
  } finally {
    await db.destroy();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`redrive: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
