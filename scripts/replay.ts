/**
 * Replays recorded Meta webhook payloads against a running Atendo exactly as Meta would deliver them:
 * compact JSON with non-ASCII escaped as \uXXXX, signed with X-Hub-Signature-256 over those exact bytes
 * using META_APP_SECRET, POSTed to `${API_URL}/webhook`.
 *
 *   npm run replay -- <file|dir> [--connection <id>] [--dry-run]
 *
 * Account ids in each payload (WhatsApp Cloud phone-number id, Messenger page id, Instagram account id) are
 * rewritten to the target connection's: by default company 1's demo connection of each channel (seeded by
 * `npm start`), or, with --connection <id>, that connection (read with GET /whatsapp/<id>, signing in as
 * ADMIN_EMAIL / ADMIN_PASSWORD or using ATENDO_TOKEN). Baileys fixtures (whatsapp-baileys/) are not HTTP
 * webhooks and are skipped. Files are sent in name order, one at a time; the exit code is non-zero when
 * any delivery is refused.
 *
 * Env: API_URL (default http://localhost:$PORT, PORT default 8080: the API `npm start` runs), META_APP_SECRET (the server's value; default: the secret a
 * local development server generated in DATA_DIR/meta-secrets.json, DATA_DIR default ./.data),
 * ADMIN_EMAIL, ADMIN_PASSWORD or ATENDO_TOKEN (only with --connection).
 */
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

type Json = Record<string, unknown>;
type MetaChannel = 'whatsappapi' | 'facebook' | 'instagram';

/** Account ids of company 1's demo connections (plugins/connections DEMO_CONNECTIONS). */
export const DEMO_ACCOUNT_IDS: Record<MetaChannel, string> = {
  whatsappapi: '100000000000001',
  facebook: '100000000000002',
  instagram: '17800000000000003',
};

const OBJECT_CHANNEL: Record<string, MetaChannel> = { whatsapp_business_account: 'whatsappapi', page: 'facebook', instagram: 'instagram' };

/** Compact JSON with every non-ASCII character escaped as \uXXXX, as Meta serializes webhook bodies. */
export function metaSerialize(body: unknown): string {
  return JSON.stringify(body).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** `sha256=<hex>` HMAC of `raw` with `secret`. */
export function sign(raw: string | Buffer, secret: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(raw).digest('hex');
}

/**
 * Rewrites the business account ids of a webhook body to `accountId` (returns a new object). Returns the
 * channel, or undefined when the body is not a Meta webhook.
 */
export function rewriteAccount(body: Json, accountId: string): { body: Json; channel: MetaChannel } | undefined {
  const channel = OBJECT_CHANNEL[String(body.object)];
  if (!channel) return undefined;
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  for (const entry of (copy.entry as Json[] | undefined) ?? []) {
    if (channel === 'whatsappapi') {
      for (const change of (entry.changes as Json[] | undefined) ?? []) {
        const metadata = (change.value as Json | undefined)?.metadata as Json | undefined;
        if (metadata) metadata.phone_number_id = accountId;
      }
      continue;
    }
    const original = String(entry.id);
    entry.id = accountId;
    for (const list of ['messaging', 'standby'] as const) {
      for (const ev of (entry[list] as Json[] | undefined) ?? []) {
        for (const side of ['sender', 'recipient'] as const) {
          const party = ev[side] as Json | undefined;
          if (party && String(party.id) === original) party.id = accountId;
        }
      }
    }
  }
  return { body: copy, channel };
}

function listFiles(target: string): string[] {
  const st = statSync(target);
  if (st.isFile()) return [target];
  const out: string[] = [];
  for (const name of readdirSync(target).sort()) {
    const p = join(target, name);
    if (statSync(p).isDirectory()) {
      if (name === 'whatsapp-baileys') continue;
      out.push(...listFiles(p));
    } else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}

async function connectionAccount(api: string, id: number): Promise<{ channel: string; accountId: string }> {
  let token = process.env.ATENDO_TOKEN;
  if (!token) {
    const email = process.env.ADMIN_EMAIL ?? 'admin@example.com';
    const password = process.env.ADMIN_PASSWORD;
    if (!password) throw new Error('--connection needs ATENDO_TOKEN or ADMIN_PASSWORD (with ADMIN_EMAIL)');
    const res = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
    token = ((await res.json()) as { token: string }).token;
  }
  const res = await fetch(`${api}/whatsapp/${id}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /whatsapp/${id}: ${res.status} ${await res.text()}`);
  const conn = (await res.json()) as { channel: string; facebookPageUserId?: string | null };
  if (!conn.facebookPageUserId) throw new Error(`connection ${id} (${conn.channel}) has no Meta account id`);
  return { channel: conn.channel, accountId: conn.facebookPageUserId };
}

/** The API the replay posts to: API_URL, else the local API on PORT (as `npm start` runs it; default 8080). */
export function replayApiUrl(env: Record<string, string | undefined> = process.env): string {
  return (env.API_URL || `http://localhost:${env.PORT || 8080}`).replace(/\/+$/, '');
}

async function main(argv: string[]): Promise<number> {
  const args = argv.slice(2);
  const dry = args.includes('--dry-run');
  const ci = args.indexOf('--connection');
  const connectionId = ci >= 0 ? Number(args[ci + 1]) : undefined;
  const targets = args.filter((a, i) => !a.startsWith('--') && (ci < 0 || i !== ci + 1));
  if (!targets.length) {
    console.error('usage: npm run replay -- <file|dir> [--connection <id>] [--dry-run]');
    return 2;
  }
  const api = replayApiUrl();
  // The server's secret: META_APP_SECRET, else the one a local development server generated in DATA_DIR.
  const localSecrets = join(resolve(process.env.DATA_DIR ?? './.data'), 'meta-secrets.json');
  const secret = process.env.META_APP_SECRET ?? (existsSync(localSecrets) ? (JSON.parse(readFileSync(localSecrets, 'utf8')) as { appSecret?: string }).appSecret : undefined);
  if (!secret && !dry) {
    console.error(`META_APP_SECRET is not set (it must equal the server's) and ${localSecrets} does not exist`);
    return 2;
  }
  const forced = connectionId !== undefined ? await connectionAccount(api, connectionId) : undefined;
  let sent = 0;
  let failed = 0;
  let skipped = 0;
  for (const target of targets) {
    const path = resolve(target);
    if (!existsSync(path)) {
      console.error(`not found: ${target}`);
      return 2;
    }
    for (const file of listFiles(path)) {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as Json;
      const channel = OBJECT_CHANNEL[String(raw.object)];
      if (!channel || (forced && forced.channel !== channel)) {
        skipped++;
        continue;
      }
      const rewritten = rewriteAccount(raw, forced?.accountId ?? DEMO_ACCOUNT_IDS[channel])!;
      const bytes = metaSerialize(rewritten.body);
      if (dry) {
        console.log(`${basename(file)} -> ${channel} (${bytes.length} bytes)`);
        sent++;
        continue;
      }
      const res = await fetch(`${api}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, secret!) }, body: bytes });
      const ok = res.status === 200;
      if (ok) sent++;
      else failed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${res.status} ${channel.padEnd(11)} ${file.replace(process.cwd() + '/', '')}${ok ? '' : ' ' + (await res.text()).slice(0, 200)}`);
    }
  }
  console.log(`replayed ${sent}, failed ${failed}, skipped ${skipped} (not Meta webhooks or other channel)`);
  return failed ? 1 : 0;
}

if (require.main === module) {
  main(process.argv).then((code) => process.exit(code), (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
