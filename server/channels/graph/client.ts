// The Graph API client (Meta's HTTP API behind whatsapp, and later instagram): one exchange at a time, and what
// the caller needs to decide what happened to it. No retries of its own: whether a call may be sent again is the
// caller's (the send retries a connection that was never made, once).
//
// - An exchange ends in one of three ways, which a send must tell apart: `not_connected` (no connection was
//   made — refused, DNS, the connect timeout — so no byte of the request left: safe to send again), `lost` (the
//   request was written, then the answer did not come whole: a timeout or a reset; Meta may have acted on it), or
//   `answered` (an HTTP status and the body, JSON or not).
// - Connect timeout 5 s (TLS included), total 15 s from the start to the answer's last byte; both configurable.
// - Every body is read with a bound: 1 MB of JSON, media bytes up to the platform's limit (100 MB) plus one byte
//   to tell "too large" from "exactly the limit".
// - The access token goes in the Authorization header only: never in a URL, an error message or a result.
// - Base URL and version are the caller's (configuration: GRAPH_API_BASE_URL, GRAPH_API_VERSION), never per
//   connection; path segments are encoded here, so an id can never reach another route.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { codeOf, isRecord } from '../../guards.js';

export const DEFAULT_GRAPH_BASE_URL = 'https://graph.facebook.com';
export const DEFAULT_GRAPH_API_VERSION = 'v23.0';
export const CONNECT_TIMEOUT_MS = 5_000;
export const TOTAL_TIMEOUT_MS = 15_000;
/** The most bytes of a JSON answer read. */
export const JSON_BODY_LIMIT = 1024 * 1024;
/** The largest media the platform takes (whatsapp's 100 MB document): a download reads at most one byte more. */
export const MEDIA_BYTES_LIMIT = 100 * 1024 * 1024;
/** How long a kept-alive connection may wait idle for the next call. */
const IDLE_SOCKET_MS = 4_000;
/** Sent with every call (Meta's media URLs have been seen to refuse a download without one). */
export const USER_AGENT = 'Service-Channels/1.0';

export interface GraphSettings {
  /** e.g. https://graph.facebook.com, or the fake's loopback address. */
  baseUrl: string;
  /** e.g. v23.0 */
  version: string;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  jsonBodyLimit?: number;
}

/** Meta's error body (`{error: {message, type, code, error_subcode, error_data, fbtrace_id}}`), read. */
export interface GraphError {
  message: string | null;
  type: string | null;
  code: number | undefined;
  subcode: number | undefined;
  /** `error_data.details`: Meta's longer explanation, when it gives one. */
  details: string | null;
  fbtraceId: string | null;
}

/** An answer's body: JSON, or why it is not (unparsable, or past the bound). */
export type GraphBody = { json: true; value: unknown } | { json: false; reason: 'not_json' | 'too_large' };

/** How a call ended (see the header). */
export type GraphAnswer =
  | { kind: 'answered'; status: number; body: GraphBody }
  | { kind: 'not_connected'; reason: string }
  | { kind: 'lost'; reason: 'timeout' | 'reset' };

/** How a download ended: the bytes, or as a call ends (an HTTP answer other than 2xx, not connected, lost). */
export type DownloadAnswer =
  | { kind: 'downloaded'; bytes: Uint8Array; contentType: string | null }
  | { kind: 'too_large'; limit: number }
  | { kind: 'answered'; status: number; body: GraphBody }
  | { kind: 'not_connected'; reason: string }
  | { kind: 'lost'; reason: 'timeout' | 'reset' };

/** A JSON call: `segments` after the version (`[phoneNumberId, 'messages']`), each encoded here. */
export interface GraphRequest {
  method: 'GET' | 'POST' | 'DELETE';
  segments: readonly string[];
  query?: Readonly<Record<string, string>>;
  token: string;
  json?: unknown;
}

/** A multipart upload (`POST /{version}/{phone_number_id}/media`): text fields, then the file. */
export interface GraphUpload {
  segments: readonly string[];
  token: string;
  fields: Readonly<Record<string, string>>;
  file: { field: string; bytes: Uint8Array; contentType: string; filename: string };
  /** Longer than a JSON call's by default: a file of up to 100 MB goes up. */
  totalTimeoutMs?: number;
}

/** A download of media bytes from an address Meta gave (its short-lived media URL), with the same token. */
export interface GraphDownload {
  url: string;
  /** Absent: a signed CDN address (Instagram's attachments), which takes no token. */
  token?: string;
  /** Bytes at most (default MEDIA_BYTES_LIMIT); one more makes it `too_large`. */
  limit?: number;
  totalTimeoutMs?: number;
}

/** Meta's error object in an answer's body; undefined when the body holds none. */
export function graphErrorOf(body: GraphBody): GraphError | undefined {
  if (!body.json || !isRecord(body.value) || !isRecord(body.value.error)) return undefined;
  const error = body.value.error;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const int = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
  return {
    message: text(error.message),
    type: text(error.type),
    code: int(error.code),
    subcode: int(error.error_subcode),
    details: isRecord(error.error_data) ? text(error.error_data.details) : null,
    fbtraceId: text(error.fbtrace_id),
  };
}

/** What one exchange gave, before its body is interpreted. */
type RawAnswer =
  | { kind: 'answered'; status: number; contentType: string | null; bytes: Buffer; overLimit: boolean }
  | { kind: 'not_connected'; reason: string }
  | { kind: 'lost'; reason: 'timeout' | 'reset' };

interface ExchangeInput {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** Bytes of the answer read at most; one more ends the exchange with `overLimit`. */
  limit: number;
}

const errorReason = (error: unknown): string => {
  const code = codeOf(error);
  return typeof code === 'string' ? code : 'connection_failed';
};

/** Reads an answer's body up to the bound, then hands over what came. */
function readAnswer(res: http.IncomingMessage, limit: number, done: (answer: RawAnswer) => void): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const answered = (overLimit: boolean) =>
    done({
      kind: 'answered',
      status: res.statusCode ?? 0,
      contentType: res.headers['content-type'] ?? null,
      bytes: Buffer.concat(chunks),
      overLimit,
    });
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limit) answered(true);
    else chunks.push(chunk);
  });
  res.on('end', () => answered(false));
  res.on('error', () => {});
  // The connection broke in the middle of the answer.
  res.on('close', () => {
    if (!res.complete) done({ kind: 'lost', reason: 'reset' });
  });
}

/** One exchange. Never throws: every ending is a RawAnswer (see the header for the three kinds). */
function exchange(input: ExchangeInput, agents: Agents): Promise<RawAnswer> {
  const secure = input.url.protocol === 'https:';
  return new Promise<RawAnswer>((resolve) => {
    let settled = false;
    let connected = false;
    let req: http.ClientRequest | undefined;
    const finish = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      resolve(answer);
      req?.destroy();
    };
    // Until the connection is made nothing was written: the caller may send again.
    const broken = (reason: string, after: 'timeout' | 'reset') =>
      finish(connected ? { kind: 'lost', reason: after } : { kind: 'not_connected', reason });
    const connectTimer = setTimeout(() => broken('connect_timeout', 'timeout'), input.connectTimeoutMs);
    const totalTimer = setTimeout(() => broken('connect_timeout', 'timeout'), input.totalTimeoutMs);
    const madeConnection = () => {
      connected = true;
      clearTimeout(connectTimer);
    };

    try {
      const length = input.body ? { 'Content-Length': String(input.body.length) } : {};
      req = (secure ? https : http).request(input.url, {
        method: input.method,
        headers: { 'User-Agent': USER_AGENT, ...input.headers, ...length },
        agent: secure ? agents.https : agents.http,
      });
    } catch (error) {
      // A header Node refuses (its message names the header, never the value).
      return finish({ kind: 'not_connected', reason: errorReason(error) });
    }
    req.on('socket', (socket) => {
      // A kept-alive socket is connected already; a new one once its TCP (and TLS) handshake is done.
      if (!socket.connecting) madeConnection();
      else socket.once(secure ? 'secureConnect' : 'connect', madeConnection);
    });
    req.on('response', (res) => {
      madeConnection();
      readAnswer(res, input.limit, finish);
    });
    req.on('error', (error) => broken(errorReason(error), 'reset'));
    req.end(input.body ?? undefined);
  });
}

/** The body of an answer, as JSON when it is. */
function bodyOf(raw: Extract<RawAnswer, { kind: 'answered' }>): GraphBody {
  if (raw.overLimit) return { json: false, reason: 'too_large' };
  try {
    const value: unknown = JSON.parse(raw.bytes.toString('utf8'));
    return { json: true, value };
  } catch {
    return { json: false, reason: 'not_json' };
  }
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/** A quoted multipart parameter: no quote, backslash or line break can end it early. */
const quoted = (value: string) => value.replace(/["\\\r\n]/g, '_');
/** A header value of a part: no line break can start another header. */
const oneLine = (value: string) => value.replace(/[\r\n]/g, ' ');

/** `multipart/form-data`: the text fields, then the file (RFC 7578). */
export function multipartBody(upload: Pick<GraphUpload, 'fields' | 'file'>): { boundary: string; body: Buffer } {
  const boundary = `graph-${randomBytes(16).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(upload.fields))
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`),
    );
  const { file } = upload;
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.filename)}"\r\n` +
        `Content-Type: ${oneLine(file.contentType)}\r\n\r\n`,
    ),
    Buffer.from(file.bytes),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { boundary, body: Buffer.concat(parts) };
}

/** The client: the settings, and kept-alive connections of its own. */
export class GraphClient {
  // An idle connection is dropped before a server's usual idle timeout (Node's own: 5 s) can close it under a
  // request: a reset on a reused connection reads as `lost`, an open outcome.
  private readonly agents: Agents = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };

  constructor(private readonly settings: GraphSettings) {}

  /** `{baseUrl}/{version}/{segments…}?{query}`, each segment encoded. */
  url(segments: readonly string[], query: Readonly<Record<string, string>> = {}): URL {
    let base = this.settings.baseUrl;
    while (base.endsWith('/')) base = base.slice(0, -1);
    const path = [this.settings.version, ...segments].map(encodeURIComponent).join('/');
    const url = new URL(`${base}/${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url;
  }

  private timeouts(totalTimeoutMs?: number) {
    return {
      connectTimeoutMs: this.settings.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      totalTimeoutMs: totalTimeoutMs ?? this.settings.totalTimeoutMs ?? TOTAL_TIMEOUT_MS,
    };
  }

  /** A JSON call. Never throws for the network's or Meta's faults. */
  async call(request: GraphRequest): Promise<GraphAnswer> {
    const body = request.json === undefined ? null : Buffer.from(JSON.stringify(request.json), 'utf8');
    const raw = await exchange(
      {
        url: this.url(request.segments, request.query),
        method: request.method,
        headers: {
          Authorization: `Bearer ${request.token}`,
          Accept: 'application/json',
          ...(body ? { 'Content-Type': 'application/json' } : {}),
        },
        body,
        ...this.timeouts(),
        limit: this.settings.jsonBodyLimit ?? JSON_BODY_LIMIT,
      },
      this.agents,
    );
    return raw.kind === 'answered' ? { kind: 'answered', status: raw.status, body: bodyOf(raw) } : raw;
  }

  /** A multipart upload (media). Never throws for the network's or Meta's faults. */
  async upload(upload: GraphUpload): Promise<GraphAnswer> {
    const { boundary, body } = multipartBody(upload);
    const raw = await exchange(
      {
        url: this.url(upload.segments),
        method: 'POST',
        headers: {
          Authorization: `Bearer ${upload.token}`,
          Accept: 'application/json',
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
        },
        body,
        ...this.timeouts(upload.totalTimeoutMs),
        limit: this.settings.jsonBodyLimit ?? JSON_BODY_LIMIT,
      },
      this.agents,
    );
    return raw.kind === 'answered' ? { kind: 'answered', status: raw.status, body: bodyOf(raw) } : raw;
  }

  /** Media bytes from Meta's media URL, with the bearer token. Never throws for the network's or Meta's faults. */
  async download(download: GraphDownload): Promise<DownloadAnswer> {
    let url: URL;
    try {
      url = new URL(download.url);
    } catch {
      return { kind: 'not_connected', reason: 'invalid_url' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'not_connected', reason: 'invalid_url' };
    const limit = download.limit ?? MEDIA_BYTES_LIMIT;
    const raw = await exchange(
      {
        url,
        method: 'GET',
        headers: download.token === undefined ? {} : { Authorization: `Bearer ${download.token}` },
        body: null,
        ...this.timeouts(download.totalTimeoutMs),
        limit,
      },
      this.agents,
    );
    if (raw.kind !== 'answered') return raw;
    if (raw.status < 200 || raw.status > 299) return { kind: 'answered', status: raw.status, body: bodyOf(raw) };
    if (raw.overLimit) return { kind: 'too_large', limit };
    return { kind: 'downloaded', bytes: new Uint8Array(raw.bytes), contentType: raw.contentType };
  }

  /** Closes the kept-alive connections (at shutdown, and after a test). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
