// One outbound HTTP exchange to addresses already checked by the URL rules (targets.ts), shared by webhook
// deliveries (sender.ts) and the invoke block's calls. Outbound only: no database.
//
// - The connection goes to the checked addresses: the request's `lookup` hands them to the socket, so the name is
//   never resolved a second time (no DNS rebinding). TLS still checks SNI and the certificate against the name.
// - One deadline (`remainingMs`) covers the connection, TLS, the answer's headers and its body.
// - The answer's body is read up to `bodyCap` bytes; past it the exchange ends with what it has.
// - With `keepAlive` (webhook deliveries), the connection is kept for the next exchange to the same origin AND the
//   same checked addresses (`KeepAlivePools`): a socket is only ever reused for the addresses just checked, and a
//   re-check that yields other addresses retires the origin's old sockets. A socket whose answer was cut short
//   (cap, deadline, error) is destroyed, never pooled.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import { codeOf, type NonEmpty } from '../guards.js';
import type { TargetAddress } from './targets.js';

export type AttemptError =
  'http_status' | 'timeout' | 'dns_failed' | 'connection_failed' | 'tls_failed' | 'unsafe_target';

/** What an exchange gave: the status (null without a valid one), the answer's headers and body, or why it broke. */
export interface ExchangeResult {
  status: number | null;
  error: Exclude<AttemptError, 'http_status' | 'unsafe_target'> | null;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA']);

/** Maps a request error to the attempt error (anything not DNS or TLS is a failed connection). */
export function classifyRequestError(error: unknown): Exclude<AttemptError, 'http_status' | 'unsafe_target'> {
  const code = codeOf(error);
  if (typeof code !== 'string') return 'connection_failed';
  if (DNS_CODES.has(code)) return 'dns_failed';
  if (
    TLS_CODES.has(code) ||
    code.startsWith('CERT_') ||
    code.startsWith('CRL_') ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_')
  ) {
    return 'tls_failed';
  }
  if (code === 'ETIMEDOUT') return 'timeout';
  return 'connection_failed';
}

function checkedLookup(addresses: NonEmpty<TargetAddress>): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      const [first] = addresses;
      callback(null, first.address, first.family);
    }
  };
}

/** How long an idle pooled socket is kept: under Node's default server keep-alive (5 s), so a reuse rarely races. */
const IDLE_SOCKET_MS = 4_000;
/** Origins with pooled connections kept at most (the least recently used are retired first). */
const MAX_POOLED_ORIGINS = 512;

interface Pool {
  /** The checked addresses the pool's sockets were opened to. */
  addresses: string;
  agent: http.Agent;
}

/**
 * Keep-alive agents by origin, each bound to the addresses it was opened to. A lookup with other addresses (the
 * name now resolves elsewhere) retires the origin's agent: its idle sockets are closed at once, the busy ones
 * when their exchange ends (they are never handed out again). One per process (`sharedPools`).
 */
export class KeepAlivePools {
  private readonly pools = new Map<string, Pool>();

  /** The agent for `url`'s origin opened to exactly `addresses`. */
  agentFor(url: URL, addresses: NonEmpty<TargetAddress>): http.Agent {
    const origin = url.origin;
    const bound = addresses.map((a) => `${a.family}/${a.address}`).join(',');
    const pool = this.pools.get(origin);
    this.pools.delete(origin);
    if (pool && pool.addresses === bound) {
      this.pools.set(origin, pool); // most recently used last
      return pool.agent;
    }
    if (pool) retire(pool.agent);
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 16, scheduling: 'lifo' as const };
    const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.pools.set(origin, { addresses: bound, agent });
    for (const [oldest, old] of this.pools) {
      if (this.pools.size <= MAX_POOLED_ORIGINS) break;
      this.pools.delete(oldest);
      retire(old.agent);
    }
    return agent;
  }

  /** Closes every pooled connection (tests, shutdown). */
  close(): void {
    for (const pool of this.pools.values()) pool.agent.destroy();
    this.pools.clear();
  }
}

/** No new exchange goes through `agent`: its idle sockets close now, its busy ones at their idle timeout. */
function retire(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  agent.maxFreeSockets = 0;
}

/** The process's keep-alive pools of webhook deliveries. */
export const sharedPools = new KeepAlivePools();

/** Where and how one exchange goes: the checked target, the request line, headers and body. */
export interface ExchangeRequest {
  target: { url: URL; hostname: string; addresses: NonEmpty<TargetAddress> };
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
  /** An extra trusted CA (PEM) for the tests' HTTPS receivers; the public roots stay trusted. */
  ca?: string | Buffer | undefined;
  remainingMs: number;
  bodyCap: number;
  /** Keep the connection for later exchanges to the same origin and addresses (default: one connection each). */
  pools?: KeepAlivePools;
}

/** The request to the addresses just checked (pinned lookup), and for https the test CA if any. */
function requestOptions(input: ExchangeRequest): https.RequestOptions {
  const { url, hostname, addresses } = input.target;
  const secure = url.protocol === 'https:';
  const length = input.body ? { 'Content-Length': String(input.body.length) } : {};
  const options: https.RequestOptions = {
    method: input.method,
    host: hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...input.headers, Host: url.host, ...length },
    agent: input.pools ? input.pools.agentFor(url, addresses) : false,
    lookup: checkedLookup(addresses),
  };
  if (secure) {
    options.rejectUnauthorized = true;
    if (input.ca !== undefined) options.ca = [...tls.rootCertificates, input.ca];
  }
  return options;
}

/**
 * Sends the request and reads the answer until it ends, breaks, passes the cap or the deadline. Never throws. A
 * pooled socket the receiver closed while it sat idle (reset before any answer) is retried once on a new one, within
 * the same deadline: the receiver may then see the request twice, which at-least-once allows.
 */
export async function exchange(input: ExchangeRequest): Promise<ExchangeResult> {
  const deadline = performance.now() + input.remainingMs;
  const first = await exchangeOnce(input);
  if (!first.staleSocket) return first.result;
  const remainingMs = deadline - performance.now();
  if (remainingMs <= 0) return { ...first.result, error: 'timeout' };
  return (await exchangeOnce({ ...input, remainingMs })).result;
}

function exchangeOnce(input: ExchangeRequest): Promise<{ result: ExchangeResult; staleSocket: boolean }> {
  const transport = input.target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    let headers: http.IncomingHttpHeaders = {};
    let timedOut = false;
    const chunks: Buffer[] = [];
    let bytes = 0;
    /** `keep`: the answer was read to its end, so a pooled socket may serve the next exchange. */
    const finish = (error: ExchangeResult['error'], keep = false, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        result: { status, error, headers, body: Buffer.concat(chunks).subarray(0, input.bodyCap) },
        staleSocket,
      });
      if (!keep) req.destroy();
    };

    const req = transport.request(requestOptions(input), (res) => {
      // Node's parser takes any three digits; one outside 100-599 is no HTTP status (RFC 9110).
      status = res.statusCode !== undefined && res.statusCode >= 100 && res.statusCode <= 599 ? res.statusCode : null;
      headers = res.headers;
      res.on('data', (chunk: Buffer) => {
        if (bytes < input.bodyCap) chunks.push(chunk);
        bytes += chunk.length;
        if (bytes > input.bodyCap) finish(null);
      });
      res.on('end', () => finish(null, true));
      res.on('error', () => {});
      res.on('close', () => {
        if (timedOut) return;
        // The connection broke in the middle of the answer.
        finish(res.complete ? null : 'connection_failed');
      });
    });
    const timer = setTimeout(() => {
      timedOut = true;
      finish('timeout');
    }, input.remainingMs);
    req.on('error', (error) => {
      if (timedOut) return;
      const stale = req.reusedSocket && status === null && codeOf(error) === 'ECONNRESET';
      finish(classifyRequestError(error), false, stale);
    });
    req.end(input.body ?? undefined);
  });
}
