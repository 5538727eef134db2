// `npm run mock`: the Prism mock of the bundled spec (generated/openapi.yaml), on port 4010 by default.
//
// Prism (node_modules/.bin/prism, static examples) serves every route with the named examples of the spec.
// This wrapper sits in front of it and makes the mock answer like the API where Prism does not:
// - an invalid request (wrong type, value out of limits, unknown body field, missing required header) gets the
//   documented `400` envelope `{type: "error", message, context: {details}}`, built from Prism's violations
//   (Prism itself answers the operation's first 422 example, or its 400 example, whatever the fault);
// - an unknown query parameter gets `400` too (Prism ignores it; the API refuses it);
// - a path the API does not have gets `404 not_found` in the envelope (Prism answers problem+json);
// - `RateLimit-Limit` matches the route's rate kind (the spec's `x-rate-limits`, as the server reads them);
// - malformed JSON gets the API's 400 envelope;
// - no example header that describes a state the call did not create (`answerHeaders`);
// - a sent graph (create, update, unsaved validate) is checked with the server's own validation (./graph.ts),
//   and Prism reads the description as the server's validator does (`validatorSpec`);
// - the media download answers its 302, as the API.
// Everything else is Prism's answer. Choose an answer with `Prefer: code=404` or `Prefer: example=<ExampleName>`
// (any status; an unknown name gets 400 naming the route's examples); a missing bearer key gets the gateway 401.
//
// Usage: npm run mock [-- --port 4010] [--host 127.0.0.1] [--verbose]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rateLimits } from '../generated/operations.js';
import { validatorSpec } from '../server/http/spec.js';
import { preconditionRequired } from '../server/domain/workflows/if-match.js';
import { checkGraph, graphRouteOf } from './graph.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type JsonObject = Record<string, unknown>;

interface RouteParam {
  name: string;
  in: string;
}
interface Route {
  method: string;
  template: string;
  regex: RegExp;
  literalSegments: number;
  params: RouteParam[];
  rateKind: string | undefined;
  deprecated: boolean;
  /** It documents a `302` (the media download): the API's answer, Prism's first pick is the `200` after it. */
  redirects: boolean;
  /** The operation's named examples by name → the status that documents it. */
  examples: Map<string, string>;
}

export interface MockOptions {
  /** Port of the mock (0 picks a free one). Default 4010. */
  port?: number;
  host?: string;
  /** The bundled spec; default generated/openapi.yaml. */
  spec?: string;
  /** Print Prism's output and one line per request. */
  verbose?: boolean;
}

export interface RunningMock {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Calls per window by rate kind: the spec's `x-rate-limits`, as the server enforces them. */
const RATE_LIMITS: Readonly<Record<string, number>> = rateLimits.kinds;
const VALIDATION_MESSAGE = 'The request does not follow the API format.';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolveRef(doc: JsonObject, node: unknown): unknown {
  let current = node;
  for (let i = 0; i < 20 && isObject(current) && typeof current.$ref === 'string'; i += 1) {
    let target: unknown = doc;
    for (const token of current.$ref.slice(2).split('/')) {
      target = isObject(target) ? target[token.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    current = target;
  }
  return current;
}

/** The routes of the spec, most specific first (literal segments before `{params}`). */
export function loadRoutes(specJsonPath: string): Route[] {
  const doc = JSON.parse(readFileSync(specJsonPath, 'utf8')) as JsonObject;
  const routes: Route[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [template, rawItem] of Object.entries(paths)) {
    const item = resolveRef(doc, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = resolveRef(doc, item[method]);
      if (!isObject(op)) continue;
      const own = Array.isArray(op.parameters) ? op.parameters : [];
      const params = [...own, ...shared]
        .map((p) => resolveRef(doc, p))
        .filter(isObject)
        .map((p) => ({ name: String(p.name), in: String(p.in) }));
      const segments = template.split('/').filter(Boolean);
      const pattern = segments
        .map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      const examples = new Map<string, string>();
      const responses = isObject(op.responses) ? op.responses : {};
      for (const [status, rawResponse] of Object.entries(responses)) {
        const response = resolveRef(doc, rawResponse);
        const content = isObject(response) && isObject(response.content) ? response.content : {};
        for (const media of Object.values(content)) {
          const named = isObject(media) && isObject(media.examples) ? media.examples : {};
          for (const name of Object.keys(named)) if (!examples.has(name)) examples.set(name, status);
        }
      }
      routes.push({
        method: method.toUpperCase(),
        template,
        regex: new RegExp(`^/${pattern}/?$`),
        literalSegments: segments.filter((s) => !s.startsWith('{')).length,
        params,
        rateKind: typeof op['x-rate-kind'] === 'string' ? op['x-rate-kind'] : undefined,
        deprecated: op.deprecated === true,
        redirects: '302' in responses,
        examples,
      });
    }
  }
  return routes.sort((a, b) => b.literalSegments - a.literalSegments);
}

interface Violation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

interface Detail {
  location: string;
  path: string | null;
  message: string;
}

/** Turns Prism's request violations into the `context.details` of the 400 envelope. */
export function violationsToDetails(violations: Violation[], route: Route | undefined): Detail[] {
  const details: Detail[] = [];
  for (const v of violations) {
    const [side, where, ...rest] = v.location ?? [];
    if (side !== 'request' || v.severity !== 'Error') continue;
    let message = String(v.message ?? 'invalid');
    if (where === 'body') {
      message = message.replace(/^Request body( property \S+)? /, '');
      let pointer = rest.length ? `/${rest.join('/')}` : null;
      const unknown = /must NOT have additional properties; found '(.+)'/.exec(message);
      const missing = /must have required property '(.+)'/.exec(message);
      if (unknown) {
        pointer = `${pointer ?? ''}/${unknown[1]}`;
        message = `unknown field: ${unknown[1]}`;
      } else if (missing) {
        pointer = `${pointer ?? ''}/${missing[1]}`;
        message = 'is required';
      }
      details.push({ location: 'body', path: pointer, message });
    } else if (where === 'query' || where === 'path' || where === 'header') {
      // A missing required parameter comes without a name in the location: it is in the message.
      const missing = /must have required property '(.+)'/.exec(message);
      const given = rest[0] ?? missing?.[1] ?? '';
      const declared = route?.params.find((p) => p.in === where && p.name.toLowerCase() === given.toLowerCase());
      const name = declared?.name ?? (given || null);
      message = missing ? 'is required' : message.replace(/^Request (query|path|header) parameter \S+ /i, '');
      details.push({ location: where, path: name, message });
    } else {
      details.push({ location: 'body', path: null, message });
    }
  }
  return details;
}

/** The body parser's message when a JSON request body does not parse, else null (as the API's express.json). */
function malformedJson(req: IncomingMessage, body: Buffer): string | null {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!body.length || !(type === 'application/json' || /^application\/[^/]+\+json$/.test(type))) return null;
  try {
    JSON.parse(body.toString('utf8'));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'invalid JSON';
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return body.length ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** `Prefer: code=404, example=Name` as an ordered map. */
function parsePrefer(header: string | string[] | undefined): Map<string, string> {
  const prefer = new Map<string, string>();
  for (const part of [header ?? []].flat().join(',').split(/[,;]/)) {
    const [key, ...rest] = part.split('=');
    const name = key?.trim().toLowerCase();
    if (name)
      prefer.set(
        name,
        rest
          .join('=')
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return prefer;
}

/**
 * The example headers that would describe a state the call did not create: no `Deprecation`/`Sunset` on a
 * route that is not deprecated, no `Idempotent-Replayed` (the mock remembers no key: every call is a first
 * call), an `ETag` only with the revision of the automation returned, and never Prism's `sl-violations`.
 */
export function answerHeaders(
  headers: Record<string, string | string[] | undefined>,
  route: Route,
  payload: Buffer,
): void {
  if (!route.deprecated) {
    delete headers.deprecation;
    delete headers.sunset;
  }
  delete headers['idempotent-replayed'];
  delete headers['sl-violations'];
  if (headers.etag !== undefined) {
    let revision: unknown;
    try {
      const parsed: unknown = JSON.parse(payload.toString('utf8'));
      revision = isObject(parsed) ? parsed.revision : undefined;
    } catch {
      revision = undefined;
    }
    if (typeof revision === 'number') headers.etag = `"${revision}"`;
    else delete headers.etag;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function freePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(port));
    });
  });
}

function startPrism(spec: string, host: string, port: number, verbose: boolean): Promise<ChildProcess> {
  return new Promise((resolveChild, reject) => {
    const prism = spawn(
      join(repoRoot, 'node_modules/.bin/prism'),
      ['mock', spec, '--host', host, '--port', String(port), '--cors=false', '--dynamic=false', '--errors=false'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } },
    );
    let output = '';
    const timer = setTimeout(() => {
      prism.kill();
      reject(new Error(`Prism did not start within 60 s:\n${output.slice(-2000)}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      if (verbose) process.stdout.write(text);
      if (output.length < 100_000) output += text;
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        // From here on, drop Prism's own log (several lines a request); the wrapper logs one line a request.
        prism.stdout?.off('data', onData);
        prism.stderr?.off('data', onData);
        prism.stdout?.resume();
        prism.stderr?.resume();
        resolveChild(prism);
      }
    };
    prism.stdout?.on('data', onData);
    prism.stderr?.on('data', onData);
    prism.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const host = options.host ?? '127.0.0.1';
  const spec = resolve(repoRoot, options.spec ?? 'generated/openapi.yaml');
  const specJson = spec.replace(/\.ya?ml$/, '.json');
  const routes = loadRoutes(specJson);
  // GET /openapi.json answers the whole description the mock serves, as the API does, not the abridged example.
  const description = Buffer.from(JSON.stringify(JSON.parse(readFileSync(specJson, 'utf8'))));
  const verbose = options.verbose ?? false;
  const prismPort = await freePort(host);
  // Prism validates requests against the description as the server's validator reads it (server/http/spec.ts):
  // a sent block checked for its format only (the catalog check is the service's 422, below), If-Match optional
  // (its absence is the service's 428).
  const workDir = mkdtempSync(join(tmpdir(), 'mock-'));
  const prismSpec = options.spec === undefined ? join(workDir, 'openapi.json') : spec;
  if (options.spec === undefined) writeFileSync(prismSpec, JSON.stringify(validatorSpec('public')));
  const prism = await startPrism(prismSpec, host, prismPort, verbose);
  const killPrism = () => {
    prism.kill('SIGTERM');
    rmSync(workDir, { recursive: true, force: true });
  };
  process.once('exit', killPrism); // never leave Prism behind when this process ends

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://mock.local');
    const method = (req.method ?? 'GET').toUpperCase();
    const route = routes.find((r) => r.method === method && r.regex.test(url.pathname));
    const log = (status: number) => {
      if (verbose) console.log(`${method} ${url.pathname}${url.search} → ${status}`);
    };

    if (route && url.pathname === '/openapi.json') {
      log(200);
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': description.length,
        'Cache-Control': 'public, max-age=300',
      });
      res.end(method === 'HEAD' ? undefined : description);
      return;
    }
    if (!route) {
      log(404);
      sendJson(res, 404, {
        type: 'error',
        message: `No route ${method} ${url.pathname}.`,
        context: { code: 'not_found' },
      });
      return;
    }
    const known = new Set(route.params.filter((p) => p.in === 'query').map((p) => p.name));
    const unknown = [...new Set(url.searchParams.keys())].filter((k) => !known.has(k));
    if (unknown.length) {
      log(400);
      sendJson(res, 400, {
        type: 'error',
        message: VALIDATION_MESSAGE,
        context: {
          details: unknown.map((name) => ({
            location: 'query',
            path: name,
            message: `unknown query parameter: ${name}`,
          })),
        },
      });
      return;
    }

    const body = await readBody(req);
    // Malformed JSON: the API's body parser answers 400 in the envelope (Prism answers its own format).
    const malformed = malformedJson(req, body);
    if (malformed !== null) {
      log(400);
      sendJson(res, 400, {
        type: 'error',
        message: VALIDATION_MESSAGE,
        context: { details: [{ location: 'body', path: null, message: malformed }] },
      });
      return;
    }
    // `Prefer: example=<name>` picks the example under whatever status documents it (Prism alone looks only
    // under the first success, or under `code=`, and answers a raw 404 otherwise).
    const upstreamHeaders: Record<string, string | string[] | undefined> = {
      ...req.headers,
      host: `${host}:${prismPort}`,
    };
    const prefer = parsePrefer(req.headers.prefer);
    const wanted = prefer.get('example');
    if (wanted !== undefined) {
      const status = route.examples.get(wanted);
      if (status === undefined) {
        log(400);
        const names = [...route.examples.keys()];
        sendJson(res, 400, {
          type: 'error',
          message: `No example named ${wanted} on ${route.method} ${route.template}. Its examples: ${names.join(', ')}.`,
          context: {
            details: [{ location: 'header', path: 'Prefer', message: `unknown example: ${wanted}` }],
            examples: names,
          },
        });
        return;
      }
      prefer.set('code', status === 'default' ? '500' : status);
      upstreamHeaders.prefer = [...prefer].map(([k, v]) => `${k}=${v}`).join(', ');
    } else if (route.redirects && !prefer.has('code')) {
      // The API redirects (the file is at Location); the 200 is what a client that follows the redirect gets.
      prefer.set('code', '302');
      upstreamHeaders.prefer = [...prefer].map(([k, v]) => `${k}=${v}`).join(', ');
    }
    // PATCH of an automation without If-Match: the service's 428 (the validator lets it through).
    if (route.method === 'PATCH' && route.template === '/v1/workflows/{workflowId}' && !req.headers['if-match']) {
      const error = preconditionRequired();
      log(error.status);
      sendJson(res, error.status, error.body());
      return;
    }
    // A sent graph is checked with the server's own validation, unless an answer is picked with Prefer.
    const graphRoute = graphRouteOf(route.method, route.template);
    const graphAnswer =
      graphRoute && !prefer.has('code') && wanted === undefined ? await checkGraph(graphRoute, parseJson(body)) : null;
    const upstream = httpRequest(
      { host, port: prismPort, method, path: req.url, headers: upstreamHeaders },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const status = answer.statusCode ?? 500;
          let violations: Violation[] = [];
          const header = answer.headers['sl-violations'];
          if (typeof header === 'string' && header.startsWith('[')) {
            try {
              violations = JSON.parse(header) as Violation[];
            } catch {
              violations = [];
            }
          }
          const details = violationsToDetails(violations, route);
          if ((status === 400 || status === 422) && details.length) {
            log(400);
            sendJson(res, 400, { type: 'error', message: VALIDATION_MESSAGE, context: { details } });
            return;
          }
          const headers = { ...answer.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          delete headers.connection;
          delete headers['keep-alive'];
          const limit = route.rateKind ? RATE_LIMITS[route.rateKind] : undefined;
          if (limit !== undefined && headers['ratelimit-limit'] !== undefined) {
            headers['ratelimit-limit'] = String(limit);
            const remaining = Number(headers['ratelimit-remaining']);
            headers['ratelimit-remaining'] = String(
              Number.isFinite(remaining) ? Math.min(remaining, limit - 1) : limit - 1,
            );
          }
          let payload = Buffer.concat(chunks);
          answerHeaders(headers, route, payload);
          if (graphAnswer && status >= 200 && status < 300) {
            // The definition decides (as the API's handler would, after the format checks Prism made).
            payload = Buffer.from(JSON.stringify(graphAnswer.body));
            delete headers.etag;
            headers['content-type'] = 'application/json';
            log(graphAnswer.status);
            res.writeHead(graphAnswer.status, { ...headers, 'content-length': payload.length });
            res.end(payload);
            return;
          }
          log(status);
          res.writeHead(status, { ...headers, 'content-length': payload.length });
          res.end(payload);
        });
      },
    );
    upstream.on('error', (error) => {
      log(502);
      sendJson(res, 502, {
        type: 'error',
        message: `Prism did not answer: ${error.message}`,
        context: { code: 'mock_unavailable' },
      });
    });
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { type: 'error', message: String(error), context: { code: 'internal_error' } });
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    process.off('exit', killPrism);
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections();
    if (prism.exitCode === null) {
      const exited = new Promise<void>((r) => prism.once('exit', () => r()));
      prism.kill('SIGTERM');
      const timer = setTimeout(() => prism.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(workDir, { recursive: true, force: true });
  };
  return { url: `http://${host}:${port}`, port, close };
}

function argValue(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = args[i]!;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(argValue('port') ?? process.env.PORT ?? 4010);
  const host = argValue('host') ?? '127.0.0.1';
  const verbose = process.argv.includes('--verbose');
  const mock = await startMock({ port, host, verbose });
  // One banner: where, what, how to pick an answer. Prism's own lines (its routes, its internal port, which
  // skips this wrapper) only with --verbose.
  console.log(
    [
      `Mock of the Engagement Platform API on ${mock.url}`,
      '  Static examples of the public description (generated/openapi.yaml) served by Prism, answering like the API:',
      '  any `Authorization: Bearer …` key; it checks formats and graphs, not state (it remembers nothing you create).',
      `  Try:  curl -H 'Authorization: Bearer test' ${mock.url}/v1/contacts`,
      "  Pick an answer: -H 'Prefer: code=404' or -H 'Prefer: example=<ExampleName>' (an unknown name lists the route's).",
      verbose
        ? '  --verbose: Prism output and one line per request below.'
        : '  Add --verbose for Prism output and one line per request.',
    ].join('\n'),
  );
  const stop = () => {
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
