// One outbound HTTP exchange to addresses already checked by the URL rules (targets.ts), shared by webhook
// deliveries (sender.ts) and the invoke block's calls. Outbound only: no database.
//
// - The connection goes to the checked addresses: the request's `lookup` hands them to the socket, so the name is
//   never resolved a second time (no DNS rebinding). TLS still checks SNI and the certificate against the name.
// - One deadline (`remainingMs`) covers the connection, TLS, the answer's headers and its body.
// - The answer's body is read up to `bodyCap` bytes; past it the exchange ends with what it has.
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
    agent: false,
    lookup: checkedLookup(addresses),
  };
  if (secure) {
    options.rejectUnauthorized = true;
    if (input.ca !== undefined) options.ca = [...tls.rootCertificates, input.ca];
  }
  return options;
}

/** Sends the request and reads the answer until it ends, breaks, passes the cap or the deadline. Never throws. */
export function exchange(input: ExchangeRequest): Promise<ExchangeResult> {
  const transport = input.target.url.protocol === 'https:' ? https : http;
  return new Promise<ExchangeResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    let headers: http.IncomingHttpHeaders = {};
    let timedOut = false;
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (error: ExchangeResult['error']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, error, headers, body: Buffer.concat(chunks).subarray(0, input.bodyCap) });
      req.destroy();
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
      res.on('end', () => finish(null));
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
      finish(classifyRequestError(error));
    });
    req.end(input.body ?? undefined);
  });
}
