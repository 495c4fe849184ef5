import net from 'node:net';
import { OutageError } from '@atendo/sdk';
import type { FastifyBaseLogger } from 'fastify';

/**
 * How the kernel's PostgreSQL connections are opened (issue 37 item 8). Every pool of the kernel (knex,
 * the job worker's) builds its sockets through `guardedStream` (pg's `stream` factory), which:
 *
 * - drops TCP self-connections: a connect to 127.0.0.1:P while nothing listens on P may be given the
 *   ephemeral local port P and then "succeed" by simultaneous open, the socket connected to itself. pg then
 *   waits forever for an answer to its own startup message, and PostgreSQL cannot start again on P (the
 *   port is taken) until the socket is closed. A socket whose local address and port equal its remote ones
 *   is destroyed at connect, before pg sees it, with a `SelfConnectError` (an outage);
 * - backs off reconnects with jitter: after a connection attempt to a server fails (refused, unreachable,
 *   timed out, a self-connection), the next attempt to that server waits a doubling delay from 50 ms up to
 *   `reconnectMaxMs`, each delay jittered (from half to all of it); one attempt at a time probes the server
 *   meanwhile, and every other connect fails at once with a `DatabaseBackoffError` (an outage: requests
 *   answer 503 ERR_SERVICE_UNAVAILABLE without waiting). The first attempt that connects ends it. Under
 *   load this makes a few connection attempts a second instead of one per query, which is also what made
 *   a self-connection likely (each attempt takes another ephemeral port);
 * - bounds each connection's opening (TCP, startup and authentication) to `connectTimeoutMs` (pg's
 *   `connectionTimeoutMillis`), so that a server that accepts and never answers cannot hold a pool.
 *
 * The backoff state is per server (`host:port`) and per process: every pool of the process backs off
 * together.
 */
export interface PgConnectOptions {
  /** Longest time a new connection may take to open (TCP, startup, authentication), ms; 0: no limit. Default 10000. */
  connectTimeoutMs?: number;
  /** Longest delay between two connection attempts while the server is unreachable, ms (at least 50). Default 5000. */
  reconnectMaxMs?: number;
  /** Where the outage's start and end, and self-connections, are logged. */
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/** The first delay of the reconnect backoff, ms. */
export const RECONNECT_MIN_MS = 50;
/** A probe attempt still unsettled after this long no longer holds the others back, ms. */
const PROBE_STALE_MS = 30_000;

/** A TCP connection that connected to itself (local address and port equal the remote ones): dropped. */
export class SelfConnectError extends OutageError {
  readonly code = 'ESELFCONNECT';
  constructor(readonly target: string) {
    super(`database ${target}: the connection connected to itself (TCP self-connect: nothing listens on the port); dropped`);
    this.name = 'SelfConnectError';
  }
}

/** A connection refused without trying: the server was unreachable and the next attempt is not due yet. */
export class DatabaseBackoffError extends OutageError {
  readonly code = 'EDBBACKOFF';
  constructor(readonly target: string, readonly retryInMs: number, cause: unknown) {
    super(`database ${target} unreachable (${errorText(cause)}); ${retryInMs > 0 ? `next connection attempt in ${Math.round(retryInMs)} ms` : 'a connection attempt is under way'}`, { cause });
    this.name = 'DatabaseBackoffError';
  }
}

/** Counters of one server's gate (tests, diagnostics). */
export interface GateStats {
  /** Connection attempts that reached the network. */
  attempts: number;
  /** Of those, the ones that failed (refused, unreachable, timed out, self-connected). */
  failures: number;
  /** Of those, self-connections (dropped). */
  selfConnects: number;
  /** Connects failed at once during a backoff (no network attempt). */
  refused: number;
}

/**
 * Per server: the reconnect backoff shared by every pool of the process (exported for its unit test; the
 * kernel uses it through GuardedSocket). Times are epoch ms passed in by the caller.
 */
export class ReconnectGate {
  /** Consecutive failed rounds (0: reachable). */
  private streak = 0;
  /** Epoch ms before which no attempt is made (but the probe). */
  private nextAt = 0;
  private probeSince = 0;
  private downSince = 0;
  private lastError: unknown;
  readonly stats: GateStats = { attempts: 0, failures: 0, selfConnects: 0, refused: 0 };

  constructor(readonly target: string) {}

  /** May a connection attempt start now? `probe`: it is the one attempt made while the server is down. */
  admit(now: number): { go: true; probe: boolean } | { go: false; error: DatabaseBackoffError } {
    if (this.streak === 0) {
      this.stats.attempts++;
      return { go: true, probe: false };
    }
    const probing = this.probeSince !== 0 && now - this.probeSince < PROBE_STALE_MS;
    if (now >= this.nextAt && !probing) {
      this.probeSince = now;
      this.stats.attempts++;
      return { go: true, probe: true };
    }
    this.stats.refused++;
    return { go: false, error: new DatabaseBackoffError(this.target, this.nextAt - now, this.lastError) };
  }

  /** An attempt connected: the server is reachable again. */
  connected(now: number, probe: boolean, log?: PgConnectOptions['log']): void {
    if (probe) this.probeSince = 0;
    if (this.streak === 0) return;
    log?.info({ database: this.target, downMs: now - this.downSince, failedRounds: this.streak }, 'database reachable again: connections open normally');
    this.streak = 0;
    this.nextAt = 0;
    this.probeSince = 0;
  }

  /** An attempt failed before connecting (or self-connected). Failures of attempts already in flight count as one round. */
  failed(now: number, probe: boolean, err: unknown, maxMs: number, log?: PgConnectOptions['log']): void {
    this.stats.failures++;
    if (err instanceof SelfConnectError) this.stats.selfConnects++;
    this.lastError = err;
    if (probe) this.probeSince = 0;
    if (this.streak > 0 && !probe) return; // an attempt that started before the outage was seen
    if (this.streak === 0) this.downSince = now;
    this.streak++;
    const cap = Math.max(RECONNECT_MIN_MS, maxMs);
    const delay = Math.min(cap, RECONNECT_MIN_MS * 2 ** Math.min(this.streak - 1, 20));
    const wait = delay / 2 + Math.random() * (delay / 2);
    this.nextAt = now + wait;
    if (this.streak === 1) {
      log?.warn({ database: this.target, err: errorText(err) }, `database unreachable: new connections back off (jittered, up to ${cap} ms apart) and fail at once meanwhile (503)`);
    }
  }
}

const gates = new Map<string, ReconnectGate>();

function gateFor(target: string): ReconnectGate {
  let gate = gates.get(target);
  if (!gate) {
    gate = new ReconnectGate(target);
    gates.set(target, gate);
  }
  return gate;
}

/** The counters of the gate of server `host:port` (undefined before the first connection to it). */
export function connectStats(host: string, port: number): Readonly<GateStats> | undefined {
  return gates.get(`${host}:${port}`)?.stats;
}

/** True when `socket` is connected to itself: same local and remote address and port. */
export function isSelfConnected(socket: net.Socket): boolean {
  return socket.localPort !== undefined && socket.localPort === socket.remotePort && socket.localAddress !== undefined && socket.localAddress === socket.remoteAddress;
}

/** The TCP endpoint of `net.Socket#connect`'s arguments (`(port, host)` or `({port, host})`); undefined for a Unix socket path. */
function endpoint(args: unknown[]): { port: number; host: string } | undefined {
  const [a, b] = args;
  if (a && typeof a === 'object') {
    const o = a as { port?: unknown; host?: unknown; path?: unknown };
    if (o.path !== undefined || o.port === undefined) return undefined;
    return { port: Number(o.port), host: typeof o.host === 'string' ? o.host : 'localhost' };
  }
  if (typeof a === 'number' || (typeof a === 'string' && /^\d+$/.test(a))) return { port: Number(a), host: typeof b === 'string' ? b : 'localhost' };
  return undefined;
}

function errorText(err: unknown): string {
  if (!err) return 'no answer';
  const e = err as { code?: unknown; message?: unknown };
  return [typeof e.code === 'string' ? e.code : '', typeof e.message === 'string' ? e.message : String(err)].filter(Boolean).join(' ');
}

/**
 * A TCP socket for pg that refuses connects during a backoff, drops a self-connection at connect and
 * reports each attempt's outcome to its server's gate (see PgConnectOptions).
 */
export class GuardedSocket extends net.Socket {
  private gate?: ReconnectGate;
  private probe = false;
  /** True while a connect attempt that reached the network has not settled. */
  private attempting = false;

  constructor(private readonly guard: PgConnectOptions = {}) {
    super();
  }

  // The overloads of net.Socket#connect, taken as they come.
  override connect(...args: unknown[]): this {
    const to = endpoint(args);
    if (!to) return (super.connect as (...a: unknown[]) => this)(...args);
    const gate = gateFor(`${to.host}:${to.port}`);
    const verdict = gate.admit(Date.now());
    if (!verdict.go) {
      // Failed on the next tick, once pg has attached its listeners (as a refused connection would).
      process.nextTick(() => this.destroy(verdict.error));
      return this;
    }
    this.gate = gate;
    this.probe = verdict.probe;
    this.attempting = true;
    return (super.connect as (...a: unknown[]) => this)(...args);
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (this.attempting) {
      if (event === 'connect') {
        this.attempting = false;
        if (isSelfConnected(this)) {
          const err = new SelfConnectError(`${this.remoteAddress}:${this.remotePort}`);
          this.gate!.failed(Date.now(), this.probe, err, this.maxMs(), this.guard.log);
          this.guard.log?.error({ database: err.target, localPort: this.localPort }, 'database connection connected to itself (TCP self-connect on the dead server\'s port): dropped so that the server can start again');
          // pg never sees 'connect': the 'error' below fails its connect.
          this.destroy(err);
          return false;
        }
        this.gate!.connected(Date.now(), this.probe, this.guard.log);
      } else if (event === 'error' || event === 'close') {
        this.attempting = false;
        this.gate!.failed(Date.now(), this.probe, event === 'error' ? args[0] : new Error('closed before connecting'), this.maxMs(), this.guard.log);
      }
    }
    return super.emit(event, ...args);
  }

  private maxMs(): number {
    return this.guard.reconnectMaxMs ?? 5_000;
  }
}

/** pg's `stream` factory for these options (a new GuardedSocket per connection). */
export function guardedStream(opts: PgConnectOptions = {}): () => net.Socket {
  return () => new GuardedSocket(opts);
}

/**
 * The pg client settings that carry these options: `{stream, connectionTimeoutMillis}`, to spread into a
 * `pg.Client` / `pg.Pool` config or knex's `connection` object next to `connectionString`.
 */
export function pgConnectSettings(opts: PgConnectOptions = {}): { stream: () => net.Socket; connectionTimeoutMillis: number } {
  return { stream: guardedStream(opts), connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000 };
}
