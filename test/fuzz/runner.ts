// What sends the fuzz harness's requests and judges every answer:
// - fetch (undici) for the usual methods, a raw socket for HEAD (to see any body byte) and TRACE;
// - a per-request deadline (2 s): a request not answered in time is a violation;
// - the checks every answer gets: no 5xx, the error envelope on a 4xx (Part A, Errors), no body on a HEAD;
// - the per-account rate limits: a 429 `rate_limited` advances the sandbox clock one minute and the request is
//   sent again once (429s are counted, never violations); a kind whose RateLimit-Remaining reached 0 advances the
//   clock before its next request;
// - a watchdog polling GET /healthz every 200 ms on its own connection: a poll not answered within 1 s is a
//   violation, 10 s without an answer stops the run;
// - hard limits: an overall deadline, and a run of requests in a row that time out stops it too.
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { Operation, RateKind } from './spec.js';
import { isObject } from './spec.js';

export type FuzzClass = 'schema' | 'ids' | 'numeric' | 'nesting' | 'methods' | 'watchdog' | 'run';
export const CLASSES: FuzzClass[] = ['schema', 'ids', 'numeric', 'nesting', 'methods', 'watchdog', 'run'];

export interface Violation {
  cls: FuzzClass;
  method: string;
  /** The path as sent (query included), cut to 200 characters. */
  path: string;
  /** The spec operation (`GET /v1/contacts/{contactId}`), or the path template for a method the path lacks. */
  op: string;
  /** What the case did: `contactId UPPER`, `limit=Infinity`… */
  label: string;
  /** What is wrong. */
  rule: string;
  /** The rule's family (`5xx`, `timeout`, `envelope`, `expected 400`…): what reports group by. */
  kind: string;
  status: number | null;
  excerpt: string;
}

export type Auth = 'key' | 'admin' | 'none' | { raw: string };

export interface SendSpec {
  op?: Operation;
  method: string;
  /** Raw path with its query, sent as written (percent-encoding included). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Default `application/json` when there is a body; null sends none. */
  contentType?: string | null;
  /** Default: the admin token under /admin, else the demo key. */
  auth?: Auth;
}

export interface Answer {
  /** 0 when there was no answer. */
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
  bodyBytes: number;
  ms: number;
  timedOut: boolean;
  error?: string;
}

export interface Meta {
  cls: FuzzClass;
  /** The operation key or path template the request belongs to. */
  op: string;
  label: string;
}

export interface RunnerOptions {
  baseUrl: string;
  apiKey: string;
  adminToken: string;
  /** Per-request deadline (2 s). */
  requestTimeoutMs?: number;
  /** When the whole run must stop. */
  deadlineAt: number;
  log?: (line: string) => void;
  /** Logs every fuzz request and its answer. */
  trace?: boolean;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const excerptOf = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);
const FETCH_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const DETAIL_LOCATIONS = new Set(['path', 'query', 'header', 'body']);

/** What is wrong with a 4xx body (Part A, Errors), or undefined when it is an envelope. */
export function envelopeProblem(status: number, text: string): string | undefined {
  const body = parseJson(text);
  if (!isObject(body)) return text === '' ? 'a 4xx without a body' : 'a 4xx body that is not a JSON object';
  const keys = Object.keys(body);
  if ((status === 401 || status === 403) && keys.length === 1 && typeof body.message === 'string') return undefined;
  if (body.type !== 'error') return 'a 4xx body without type "error"';
  if (typeof body.message !== 'string' || body.message === '') return 'a 4xx body without a message';
  const context = body.context;
  if (!isObject(context)) return 'a 4xx body without context';
  if (typeof context.code === 'string' && context.code !== '') return undefined;
  if (status === 400 && Array.isArray(context.details) && context.details.length > 0) {
    const bad = context.details.find(
      (d) =>
        !isObject(d) ||
        typeof d.location !== 'string' ||
        !DETAIL_LOCATIONS.has(d.location) ||
        typeof d.message !== 'string' ||
        !(d.path === undefined || d.path === null || typeof d.path === 'string'),
    );
    return bad === undefined ? undefined : 'a 400 whose context.details items are not {location, path, message}';
  }
  return status === 400 ? 'a 400 without context.code or context.details' : 'a 4xx without context.code';
}

/** The error code of an answer (`context.code`), if any. */
export function errorCode(answer: Answer): string | undefined {
  const body = parseJson(answer.text);
  return isObject(body) && isObject(body.context) && typeof body.context.code === 'string'
    ? body.context.code
    : undefined;
}

function decodeChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** One request on its own socket (`Connection: close`), every byte of the answer read: HEAD, TRACE. */
function rawExchange(
  base: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  signal: AbortSignal,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((ok, fail) => {
    const socket = connect(Number(base.port), base.hostname);
    const chunks: Buffer[] = [];
    const onAbort = () => socket.destroy(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => {
      signal.removeEventListener('abort', onAbort);
      fail(e);
    });
    socket.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return fail(new Error('aborted'));
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return fail(new Error(`no complete answer (${all.length} bytes)`));
      const [statusLine, ...lines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
      const head: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) head[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let rest: Buffer = all.subarray(end + 4);
      if (method !== 'HEAD' && /chunked/i.test(head['transfer-encoding'] ?? '')) rest = decodeChunked(rest);
      ok({ status, headers: head, body: rest });
    });
    const lines = [`${method} ${path} HTTP/1.1`, `Host: ${base.host}`, 'Connection: close'];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (body) lines.push(`Content-Length: ${body.byteLength}`);
    socket.write(lines.join('\r\n') + '\r\n\r\n');
    if (body) socket.write(body);
  });
}

export interface Stats {
  /** Fuzz requests (checked). */
  requests: number;
  /** Seeding, fresh resources, If-Match reads, clock advances: not checked. */
  supportRequests: number;
  byClass: Record<string, number>;
  operations: Set<string>;
  /** Answers 429 (any code), first tries and retries. */
  rateLimited: number;
  clockAdvances: number;
}

export class Runner {
  readonly violations: Violation[] = [];
  readonly stats: Stats = {
    requests: 0,
    supportRequests: 0,
    byClass: {},
    operations: new Set(),
    rateLimited: 0,
    clockAdvances: 0,
  };
  /** Why the run stopped early, when it did. */
  stopped: string | undefined;
  private readonly base: URL;
  private readonly abort = new AbortController();
  private readonly timeoutMs: number;
  private readonly remaining: Partial<Record<RateKind, number>> = {};
  private advancing: Promise<void> | undefined;
  private clockWorks = true;
  private timeoutsInARow = 0;
  private readonly inFlight = new Set<string>();
  private readonly recent: string[] = [];

  constructor(readonly options: RunnerOptions) {
    this.base = new URL(options.baseUrl);
    this.timeoutMs = options.requestTimeoutMs ?? 2000;
  }

  log(line: string): void {
    this.options.log?.(line);
  }

  /** Stops the run: no request is sent after this, those in flight are aborted. */
  stop(reason: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = reason;
    this.abort.abort();
    this.log(`run stopped: ${reason}`);
  }

  record(v: Violation): void {
    this.violations.push({ ...v, path: v.path.length > 200 ? `${v.path.slice(0, 200)}…` : v.path });
  }

  /** What was in flight and the last requests sent: the context of a watchdog violation. */
  context(): string {
    const flying = [...this.inFlight];
    return flying.length ? `in flight: ${flying.join(' | ')}` : `last sent: ${this.recent.slice(-3).join(' | ')}`;
  }

  /** Moves the sandbox clock one minute on: every per-minute rate window starts again. */
  advanceClock(): Promise<void> {
    if (!this.clockWorks) return Promise.resolve();
    this.advancing ??= (async () => {
      try {
        const answer = await this.exchange(
          {
            method: 'PATCH',
            path: '/admin/v1/sandbox/clock',
            body: JSON.stringify({ advance_seconds: 60 }),
            auth: 'admin',
          },
          5000,
        );
        this.stats.supportRequests += 1;
        this.stats.clockAdvances += 1;
        if (answer.status !== 200) {
          this.clockWorks = false;
          this.log(`the sandbox clock cannot be advanced (${answer.status} ${answer.text.slice(0, 200)})`);
        }
        for (const kind of Object.keys(this.remaining) as RateKind[]) delete this.remaining[kind];
      } finally {
        this.advancing = undefined;
      }
    })();
    return this.advancing;
  }

  private authHeader(spec: SendSpec): string | undefined {
    const auth = spec.auth ?? (spec.path.startsWith('/admin/') ? 'admin' : 'key');
    if (auth === 'none') return undefined;
    if (auth === 'key') return `Bearer ${this.options.apiKey}`;
    if (auth === 'admin') return `Bearer ${this.options.adminToken}`;
    return auth.raw;
  }

  /** One exchange, no checks and no retry. */
  private async exchange(spec: SendSpec, timeoutMs: number): Promise<Answer> {
    const headers: Record<string, string> = { ...spec.headers };
    const authorization = this.authHeader(spec);
    if (authorization !== undefined) headers.Authorization = authorization;
    const body = typeof spec.body === 'string' ? new TextEncoder().encode(spec.body) : spec.body;
    const contentType = spec.contentType === undefined ? (body ? 'application/json' : null) : spec.contentType;
    if (contentType !== null) headers['Content-Type'] = contentType;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.abort.signal]);
    const started = performance.now();
    const description = `${spec.method} ${spec.path.slice(0, 160)}`;
    this.inFlight.add(description);
    this.recent.push(description);
    if (this.recent.length > 10) this.recent.shift();
    try {
      if (!FETCH_METHODS.has(spec.method)) {
        const res = await rawExchange(this.base, spec.method, spec.path, headers, body, signal);
        return {
          status: res.status,
          headers: res.headers,
          text: res.body.toString('utf8'),
          bodyBytes: res.body.length,
          ms: performance.now() - started,
          timedOut: false,
        };
      }
      const res = await fetch(new URL(spec.path, this.base), {
        method: spec.method,
        headers,
        body,
        redirect: 'manual',
        signal,
      });
      // A stream (the admin event stream) stays open: its answer is its status and headers, then it is closed.
      const streaming = /^text\/event-stream/.test(res.headers.get('content-type') ?? '') && res.ok;
      if (streaming) await res.body?.cancel();
      const bytes = streaming ? Buffer.alloc(0) : Buffer.from(await res.arrayBuffer());
      const head: Record<string, string> = {};
      res.headers.forEach((value, name) => (head[name.toLowerCase()] = value));
      return {
        status: res.status,
        headers: head,
        text: bytes.toString('utf8'),
        bodyBytes: bytes.length,
        ms: performance.now() - started,
        timedOut: false,
      };
    } catch (error) {
      const ms = performance.now() - started;
      const aborted = signal.aborted;
      return {
        status: 0,
        headers: {},
        text: '',
        bodyBytes: 0,
        ms,
        timedOut: aborted && !this.abort.signal.aborted,
        error: aborted ? (this.abort.signal.aborted ? 'run stopped' : 'timed out') : String(error),
      };
    } finally {
      this.inFlight.delete(description);
    }
  }

  private kindOf(spec: SendSpec): RateKind | undefined {
    if (!spec.op || spec.op.admin) return undefined;
    return spec.op.rateKind;
  }

  /** Sends with the rate-limit handling (clock advance, one retry). */
  private async sendRated(spec: SendSpec, timeoutMs: number, support: boolean): Promise<Answer> {
    const kind = this.kindOf(spec);
    if (kind !== undefined && this.remaining[kind] === 0) await this.advanceClock();
    let answer = await this.exchange(spec, timeoutMs);
    if (support) this.stats.supportRequests += 1;
    if (answer.status === 429) {
      this.stats.rateLimited += 1;
      const code = errorCode(answer);
      if (code === 'rate_limited' || answer.text === '') {
        await this.advanceClock();
        if (this.stopped !== undefined) return answer;
        answer = await this.exchange(spec, timeoutMs);
        if (support) this.stats.supportRequests += 1;
        else this.stats.requests += 1;
        if (answer.status === 429) this.stats.rateLimited += 1;
      }
    }
    const remaining = Number(answer.headers['ratelimit-remaining']);
    if (kind !== undefined && answer.headers['ratelimit-remaining'] !== undefined && Number.isFinite(remaining))
      this.remaining[kind] = remaining;
    return answer;
  }

  /** A request of the harness itself (seeding, fresh resources, If-Match reads): not checked. */
  async support(spec: SendSpec): Promise<Answer> {
    if (this.stopped !== undefined) return stoppedAnswer();
    return this.sendRated(spec, 5000, true);
  }

  /** A fuzz request: counted, and checked (no 5xx, in time, the 4xx envelope, no body on HEAD). */
  async send(spec: SendSpec, meta: Meta): Promise<Answer> {
    if (this.stopped !== undefined) return stoppedAnswer();
    if (Date.now() > this.options.deadlineAt) {
      this.stop('the run reached its time limit');
      this.record({
        cls: 'run',
        method: '-',
        path: '-',
        op: '-',
        label: 'time limit',
        rule: 'the run did not finish within its time limit (cases were left)',
        kind: 'time limit',
        status: null,
        excerpt: '',
      });
      return stoppedAnswer();
    }
    this.stats.requests += 1;
    this.stats.byClass[meta.cls] = (this.stats.byClass[meta.cls] ?? 0) + 1;
    this.stats.operations.add(meta.op);
    const answer = await this.sendRated(spec, this.timeoutMs, false);
    if (this.options.trace)
      this.log(
        `${meta.cls} ${meta.label} | ${spec.method} ${spec.path.slice(0, 150)} → ${answer.status || answer.error} ` +
          `${Math.round(answer.ms)} ms ${answer.text.slice(0, 120).replace(/\s+/g, ' ')}`,
      );
    if (answer.error === 'run stopped') return answer;
    this.check(spec, meta, answer);
    return answer;
  }

  /** Records a violation of `meta`'s case for this request and answer. */
  fail(spec: SendSpec, meta: Meta, answer: Answer, kind: string, rule: string): void {
    this.record({
      cls: meta.cls,
      method: spec.method,
      path: spec.path,
      op: meta.op,
      label: meta.label,
      rule,
      kind,
      status: answer.status === 0 ? null : answer.status,
      excerpt: excerptOf(answer.error ?? answer.text),
    });
  }

  private check(spec: SendSpec, meta: Meta, answer: Answer): void {
    if (answer.timedOut) {
      this.fail(spec, meta, answer, 'timeout', `no answer within ${this.timeoutMs} ms`);
      this.timeoutsInARow += 1;
      if (this.timeoutsInARow >= 8) this.stop('8 requests in a row were not answered in time');
      return;
    }
    this.timeoutsInARow = 0;
    if (answer.status === 0)
      return this.fail(spec, meta, answer, 'no answer', `no answer: ${answer.error ?? 'connection lost'}`);
    if (answer.ms > this.timeoutMs)
      this.fail(spec, meta, answer, 'timeout', `answered after ${Math.round(answer.ms)} ms`);
    if (answer.status >= 500) return this.fail(spec, meta, answer, '5xx', `status ${answer.status}`);
    if (answer.status === 429) return;
    if (spec.method === 'HEAD') {
      if (answer.bodyBytes > 0)
        this.fail(spec, meta, answer, 'HEAD body', `HEAD answered with a body (${answer.bodyBytes} bytes)`);
      return;
    }
    // A tracked link (`/links/{token}`) is opened by a browser: its 404 and 410 are small HTML pages (the spec's).
    if (spec.path.startsWith('/links/') && /^text\/html/.test(answer.headers['content-type'] ?? '')) return;
    if (answer.status >= 400) {
      const problem = envelopeProblem(answer.status, answer.text);
      if (problem) this.fail(spec, meta, answer, 'envelope', problem);
    }
  }
}

function stoppedAnswer(): Answer {
  return { status: 0, headers: {}, text: '', bodyBytes: 0, ms: 0, timedOut: false, error: 'run stopped' };
}

/**
 * Polls GET /healthz every 200 ms on its own keep-alive connection. A poll not answered within 1 s is a
 * violation (one per outage, naming what was in flight); 10 s without an answer stops the run.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  /** Ends the pause between two polls at once (on stop). */
  private wake: (() => void) | undefined;
  private running = false;
  private lastAnswer = Date.now();
  private inOutage = false;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private loop: Promise<void> | undefined;
  polls = 0;
  /** The slowest answered poll, and what was in flight then. */
  slowest = { ms: 0, context: '' };

  constructor(
    private readonly runner: Runner,
    private readonly baseUrl: string,
    private readonly intervalMs = 200,
    private readonly answerWithinMs = 1000,
    private readonly stopAfterMs = 10_000,
  ) {}

  start(): void {
    this.running = true;
    this.lastAnswer = Date.now();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
    this.agent.destroy();
  }

  /** Records a watchdog violation: /healthz did not answer (`context`: what was in flight). */
  private stall(context: string, rule: string, kind: string): void {
    this.runner.record({
      cls: 'watchdog',
      method: 'GET',
      path: '/healthz',
      op: 'GET /healthz',
      label: context,
      rule,
      kind,
      status: null,
      excerpt: '',
    });
  }

  private poll(): Promise<boolean> {
    return new Promise((ok) => {
      const req = httpRequest(
        new URL('/healthz', this.baseUrl),
        { agent: this.agent, signal: AbortSignal.timeout(this.answerWithinMs) },
        (res) => {
          res.resume();
          res.on('end', () => ok(res.statusCode === 200));
          res.on('error', () => ok(false));
        },
      );
      req.on('error', () => ok(false));
      req.end();
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      const context = this.runner.context();
      const answered = await this.poll();
      this.polls += 1;
      const took = Date.now() - started;
      if (answered && took > this.slowest.ms) this.slowest = { ms: took, context };
      if (!this.running) break;
      if (answered) {
        if (this.inOutage) this.runner.log(`/healthz answers again after ${Date.now() - this.lastAnswer} ms`);
        this.inOutage = false;
        this.lastAnswer = Date.now();
      } else {
        if (!this.inOutage) {
          this.inOutage = true;
          this.stall(
            context,
            `server stopped answering: GET /healthz not answered within ${this.answerWithinMs} ms`,
            'not answering',
          );
        }
        if (Date.now() - this.lastAnswer >= this.stopAfterMs) {
          this.stall(
            context,
            `server stopped answering for ${this.stopAfterMs / 1000} s: run stopped`,
            'stopped answering',
          );
          this.runner.stop(`GET /healthz unanswered for ${this.stopAfterMs / 1000} s`);
          break;
        }
      }
      const wait = Math.max(0, this.intervalMs - (Date.now() - started));
      await new Promise<void>((ok) => {
        this.wake = ok;
        this.timer = setTimeout(ok, wait);
      });
    }
  }
}
