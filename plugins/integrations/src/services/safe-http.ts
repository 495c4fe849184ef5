import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';
import ipaddr from 'ipaddr.js';
import { AppError } from '@atendo/sdk';
import type { HttpAnswer, HttpRequest } from '../contract';

/** Largest answer body read (bytes); larger answers are an error. */
export const MAX_ANSWER_BYTES = 1_000_000;

/**
 * The allow-list of INTEGRATIONS_ALLOW_HOSTS: host names (exact, case-insensitive) and IP addresses or
 * CIDR ranges that may be reached even though they are private (for tests and on-premises n8n servers).
 */
export class AllowList {
  private readonly hosts = new Set<string>();
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  constructor(spec: string) {
    for (const raw of spec.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
      if (ipaddr.isValidCIDR(raw)) this.ranges.push(ipaddr.parseCIDR(raw));
      else if (ipaddr.isValid(raw)) {
        const ip = ipaddr.process(raw);
        this.ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      } else this.hosts.add(raw);
    }
  }
  host(name: string): boolean {
    return this.hosts.has(name.toLowerCase());
  }
  address(addr: string): boolean {
    const ip = ipaddr.process(addr);
    return this.ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
  }
}

/** True for globally routable unicast addresses (not loopback, private, link-local, CGNAT, multicast...). */
export function isPublicAddress(addr: string): boolean {
  if (!ipaddr.isValid(addr)) return false;
  return ipaddr.process(addr).range() === 'unicast';
}

/**
 * Checks a URL an admin gave (before storing it and before each call): http or https, no credentials,
 * and a host that is not a private address literal (names are checked again at connect time).
 * Throws 400 ERR_INTEGRATION_URL_NOT_ALLOWED.
 */
export function checkUrl(raw: string, allow: AllowList): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('ERR_INTEGRATION_URL_NOT_ALLOWED', 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('ERR_INTEGRATION_URL_NOT_ALLOWED', 'only http and https');
  if (url.username || url.password) throw new AppError('ERR_INTEGRATION_URL_NOT_ALLOWED', 'no credentials in the URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allow.host(host)) return url;
  if (ipaddr.isValid(host) && !isPublicAddress(host) && !allow.address(host)) throw new AppError('ERR_INTEGRATION_URL_NOT_ALLOWED', 'private address');
  if (!ipaddr.isValid(host) && (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local'))) {
    throw new AppError('ERR_INTEGRATION_URL_NOT_ALLOWED', 'private host name');
  }
  return url;
}

/**
 * An HTTP client for admin-given URLs: every connection's resolved addresses are checked (no DNS
 * rebinding to a private address), redirects are refused, each call has a timeout and a body cap.
 */
export class SafeHttp {
  private readonly agent: Agent;
  /** `resolve`: the DNS look-up (default `dns.lookup`; tests give a stand-in resolver). */
  constructor(
    private readonly allow: AllowList,
    private readonly timeoutMs: number,
    resolve: (hostname: string, cb: (err: NodeJS.ErrnoException | null, addrs: LookupAddress[]) => void) => void = (h, cb) => dnsLookup(h, { all: true }, cb),
  ) {
    this.agent = new Agent({
      connect: {
        lookup: (hostname: string, options: object, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
          resolve(hostname, (err, addrs) => {
            if (err) return cb(err, '');
            const list = addrs as LookupAddress[];
            const ok = this.allow.host(hostname) || list.every((a) => isPublicAddress(a.address) || this.allow.address(a.address));
            if (!ok || !list.length) return cb(new AppError('ERR_INTEGRATION_URL_NOT_ALLOWED', `${hostname} resolves to a private address`), '');
            if ((options as { all?: boolean }).all) return cb(null, list);
            return cb(null, list[0].address, list[0].family);
          });
        },
      },
    });
  }

  /** Calls `raw` (see `IntegrationTools.http`). */
  async request(raw: string, init: HttpRequest = {}): Promise<HttpAnswer> {
    const url = checkUrl(raw, this.allow);
    const headers: Record<string, string> = { 'user-agent': 'Atendo-Integrations/1', ...(init.headers ?? {}) };
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] = 'application/json';
    }
    const res = await undiciFetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'error', dispatcher: this.agent, signal: AbortSignal.timeout(this.timeoutMs) });
    const bytes = await this.readCapped(res.body);
    const text = bytes.toString('utf8');
    const contentType = res.headers.get('content-type') ?? '';
    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, ok: res.ok, contentType, text, json };
  }

  /** Downloads a file (at most `maxBytes`) from an admin- or integration-given URL. */
  async download(raw: string, maxBytes: number): Promise<{ bytes: Buffer; contentType: string }> {
    const url = checkUrl(raw, this.allow);
    const res = await undiciFetch(url, { redirect: 'error', dispatcher: this.agent, signal: AbortSignal.timeout(this.timeoutMs) });
    if (!res.ok) throw new Error(`download ${res.status}`);
    return { bytes: await this.readCapped(res.body, maxBytes), contentType: res.headers.get('content-type') ?? '' };
  }

  private async readCapped(stream: AsyncIterable<Uint8Array> | null, max = MAX_ANSWER_BYTES): Promise<Buffer> {
    if (!stream) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of stream) {
      n += c.length;
      if (n > max) throw new Error(`answer larger than ${max} bytes`);
      chunks.push(Buffer.from(c));
    }
    return Buffer.concat(chunks);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
