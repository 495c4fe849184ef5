import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';

/**
 * The one outbound fetcher for URLs that come from outside (media of channel webhooks, provider answers):
 * `@atendo/sdk/fetch` (Node only). Against server-side request forgery (issue 18 item 8):
 * - only http(s), only hosts of `allowHosts` (exact `host`, `host:port`, or `*.suffix`);
 * - the address is checked **after DNS resolution, at connect time** (the socket connects to the checked
 *   address: no rebinding window): loopback, private, link-local, unique-local, carrier-grade NAT,
 *   multicast, unspecified and reserved ranges are refused unless listed in `allowPrivate` (CIDRs or
 *   addresses: tests' local servers; `OUTBOUND_FETCH_ALLOW_PRIVATE` in the kernel's env);
 * - redirects are followed by hand (at most `maxRedirects`), each hop checked again like the first;
 * - `credentials` (e.g. `authorization`) go only to `credentialHosts`; a hop to another host gets the
 *   request without them;
 * - the whole exchange, body included, is bounded by `timeoutMs`; bodies over `maxBytes` are refused
 *   (declared length at once, streamed bytes as they come);
 * - `trustedOrigins` (origins the operator configured, e.g. the Graph API base URL) skip the address check.
 */

/** Why an outbound fetch was refused or failed. */
export type OutboundFetchReason = 'scheme' | 'host' | 'address' | 'redirect' | 'size' | 'status' | 'timeout';

export class OutboundFetchError extends Error {
  constructor(
    message: string,
    readonly reason: OutboundFetchReason,
  ) {
    super(message);
    this.name = 'OutboundFetchError';
  }
}

export interface SafeFetchPolicy {
  /** Hosts that may be fetched (`host`, `host:port` or `*.suffix`); undefined: any host (addresses still checked). */
  allowHosts?: readonly string[];
  /** Hosts the `credentials` headers may be sent to (same syntax). */
  credentialHosts?: readonly string[];
  /** Non-public addresses still allowed: CIDRs (`127.0.0.0/8`) or single addresses. */
  allowPrivate?: readonly string[];
  /** Origins (`https://graph.facebook.com`) trusted as configured: no host or address check. */
  trustedOrigins?: readonly string[];
  /** Largest body, bytes. */
  maxBytes: number;
  /** Whole exchange (all hops and the body), ms. */
  timeoutMs: number;
  /** Redirects followed (default 3). */
  maxRedirects?: number;
}

export interface SafeFetchInit {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Headers sent only to `credentialHosts`. */
  credentials?: Record<string, string>;
}

export interface SafeResponse {
  status: number;
  /** The final URL (after redirects). */
  url: string;
  headers: Headers;
  /** The body, bounded by maxBytes and timeoutMs (errors with an OutboundFetchError past them). */
  body: Readable;
  /** The body as JSON (bounded the same way). */
  json<T = unknown>(): Promise<T>;
}

/** Whether `host` (`hostname` or `hostname:port`) matches a pattern list. */
export function hostAllowed(url: URL, patterns: readonly string[] | undefined): boolean {
  if (!patterns) return true;
  const name = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const withPort = url.port ? `${name}:${url.port}` : name;
  for (const raw of patterns) {
    const p = raw.trim().toLowerCase();
    if (!p) continue;
    if (p.startsWith('*.')) {
      if (name.endsWith(p.slice(1)) && name.length > p.length - 1) return true;
    } else if (p === name || p === withPort) return true;
  }
  return false;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRanges(list: readonly string[] | undefined): Range[] {
  const out: Range[] = [];
  for (const raw of list ?? []) {
    const s = raw.trim();
    if (!s) continue;
    try {
      if (s.includes('/')) out.push(ipaddr.parseCIDR(s));
      else {
        const a = ipaddr.process(s);
        out.push([a, a.kind() === 'ipv4' ? 32 : 128]);
      }
    } catch {
      throw new Error(`not an address or CIDR: ${s}`);
    }
  }
  return out;
}

/** Whether `address` may be connected to: a public unicast address, or one inside `allowed`. */
export function addressAllowed(address: string, allowed: readonly string[] | Range[] = []): boolean {
  let a: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    a = ipaddr.process(address); // IPv4-mapped IPv6 becomes IPv4
  } catch {
    return false;
  }
  if (a.range() === 'unicast') return true;
  const ranges = (allowed.length && typeof allowed[0] === 'string' ? parseRanges(allowed as string[]) : (allowed as Range[]));
  return ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
}

const agents = new Map<string, Agent>();
let trustedAgent: Agent | undefined;

/** A dispatcher whose every connection resolves the host and refuses addresses outside the policy. */
function guardedAgent(allowPrivate: readonly string[] | undefined): Agent {
  const key = (allowPrivate ?? []).join(',');
  let agent = agents.get(key);
  if (agent) return agent;
  const ranges = parseRanges(allowPrivate);
  const lookup = (hostname: string, options: { all?: boolean; family?: number } | number, callback: (err: Error | null, address?: string | LookupAddress[], family?: number) => void): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    dnsLookup(hostname, { family: opts.family ?? 0, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as LookupAddress[];
      const refused = list.find((x) => !addressAllowed(x.address, ranges));
      if (refused || !list.length) return callback(new OutboundFetchError(`${hostname} resolves to a refused address ${refused?.address ?? '(none)'}`, 'address'));
      if (opts.all) callback(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  };
  agent = new Agent({ connect: { lookup: lookup as never }, connections: 16 });
  agents.set(key, agent);
  return agent;
}

function bounded(body: ReadableStream<Uint8Array> | null, maxBytes: number): Readable {
  if (!body) return Readable.from([]);
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new OutboundFetchError(`body over ${maxBytes} bytes`, 'size'));
      else done(null, chunk);
    },
  });
  const src = Readable.fromWeb(body as unknown as WebReadableStream<Uint8Array>);
  src.on('error', (err) => counter.destroy(err));
  return src.pipe(counter);
}

/**
 * Fetches `url` under `policy` (see the module comment). Answers any status (the caller decides); throws
 * OutboundFetchError for a refused scheme, host or address, too many redirects, a declared body over the
 * limit, or the timeout.
 */
export async function safeFetch(url: string, policy: SafeFetchPolicy, init: SafeFetchInit = {}): Promise<SafeResponse> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  const maxRedirects = policy.maxRedirects ?? 3;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new OutboundFetchError('not a URL', 'scheme');
  }
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new OutboundFetchError(`scheme ${current.protocol} refused`, 'scheme');
    const trusted = (policy.trustedOrigins ?? []).some((o) => {
      try {
        return new URL(o).origin === current.origin;
      } catch {
        return false;
      }
    });
    let dispatcher: Dispatcher;
    if (trusted) dispatcher = trustedAgent ??= new Agent({ connections: 16 });
    else {
      if (!hostAllowed(current, policy.allowHosts)) throw new OutboundFetchError(`host ${current.host} is not allowed`, 'host');
      const literal = current.hostname.replace(/^\[|\]$/g, '');
      if (ipaddr.isValid(literal) && !addressAllowed(literal, policy.allowPrivate ?? [])) throw new OutboundFetchError(`address ${literal} refused`, 'address');
      dispatcher = guardedAgent(policy.allowPrivate);
    }
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.credentials && (trusted || hostAllowed(current, policy.credentialHosts ?? []))) Object.assign(headers, init.credentials);
    let res: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      res = await undiciFetch(current, { method: init.method ?? 'GET', headers, redirect: 'manual', signal, dispatcher });
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundFetchError) throw cause;
      if (signal.aborted) throw new OutboundFetchError(`no answer within ${policy.timeoutMs} ms`, 'timeout');
      throw err;
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) throw new OutboundFetchError(`more than ${maxRedirects} redirects`, 'redirect');
      current = new URL(location, current);
      continue;
    }
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > policy.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new OutboundFetchError(`body of ${declared} bytes is over ${policy.maxBytes}`, 'size');
    }
    const body = bounded(res.body as ReadableStream<Uint8Array> | null, policy.maxBytes);
    signal.addEventListener('abort', () => body.destroy(new OutboundFetchError(`no answer within ${policy.timeoutMs} ms`, 'timeout')), { once: true });
    return {
      status: res.status,
      url: current.toString(),
      headers: res.headers as unknown as Headers,
      body,
      json: async <T>() => {
        const chunks: Buffer[] = [];
        for await (const c of body) chunks.push(c as Buffer);
        return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
      },
    };
  }
}
