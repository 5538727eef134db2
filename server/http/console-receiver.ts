// The console's built-in webhook receiver, like `stripe listen` without a second terminal: a webhook endpoint
// whose URL is this server (`POST /console/receiver/{accountId}/{id}`), registered by the page through the public
// API like any endpoint. Served only while the sandbox is on (the console's router), and reachable by the sender
// only under WEBHOOK_DEV_TARGETS (http and loopback; server/webhooks/targets.ts), which the registration checks.
//
// - A receiver belongs to the account its path names (issue 33), and is known while an endpoint of that account
//   (not deleted) targets it: every lookup is the account's endpoints whose URL ends with the receiver's path
//   (an endpoint of another account aimed at the same path is never among them). A request is checked against
//   their secrets with the server's verifier (webhooks/signing.ts, held to the partner's client/webhooks.ts) on
//   the service's clock, through the domain (domain/webhooks/receivers.ts).
// - Only a request one of them verifies is answered 200 and kept. Anything else (an unknown account or id, no
//   endpoint of the account on it, a missing or forged signature, another account's delivery aimed here, a body
//   over MAX_BODY_BYTES, which cannot be checked) is answered as an unknown receiver: 404 not_found, nothing
//   kept, so a caller without the account's secret learns nothing, not even that the receiver exists. The page
//   never gets a secret from here, and no secret is in a URL or a log line.
// - The kept requests (headers, raw body, the verdict) are in memory, bounded: MAX_REQUESTS per receiver,
//   MAX_RECEIVERS receivers (the least recently used is dropped). A restart forgets them; the endpoint keeps
//   working.
// - The page follows a receiver with `GET /console/receiver/{accountId}/{id}/stream` (the admin token in
//   Authorization): server-sent events, the kept requests first, then each as it arrives.
import type { Request, Response, Router } from 'express';
import express from 'express';
import { receiverEndpoints, signingEndpoint } from '../domain/webhooks/receivers.js';
import { ApiError, GatewayError } from '../errors.js';
import { canonicalId, isUuid } from '../ids.js';
import { adminTokenCheck } from './admin.js';
import type { AppContext } from './context.js';
import { CONSOLE_PATH } from '../console/page.js';
import type { ReceivedRequest } from '../console/received.js';

export const RECEIVER_PATH = `${CONSOLE_PATH}/receiver`;
export const MAX_RECEIVERS = 20;
export const MAX_REQUESTS = 50;
export const MAX_BODY_BYTES = 64 * 1024;
/** A receiver id: what the page draws (a UUID) or any 16 to 64 URL-safe characters. */
const RECEIVER_ID = /^[A-Za-z0-9_-]{16,64}$/;

/** A receiver: its account, the path its endpoints' URLs end with, and its key in the log. */
interface ReceiverRef {
  accountId: string;
  path: string;
  key: string;
}

/** The receiver `/console/receiver/{account}/{id}` names, or undefined when it cannot be one (nothing is read). */
function receiverRef(account: string | undefined, id: string | undefined): ReceiverRef | undefined {
  if (account === undefined || id === undefined || !isUuid(account) || !RECEIVER_ID.test(id)) return undefined;
  const accountId = canonicalId(account);
  return { accountId, path: `${RECEIVER_PATH}/${account}/${id}`, key: `${accountId}/${id}` };
}
const KEEP_ALIVE_MS = 15_000;

interface Receiver {
  requests: ReceivedRequest[];
  next: number;
  listeners: Set<(request: ReceivedRequest) => void>;
}

/** The kept requests of every receiver, bounded (the oldest receiver and the oldest requests go first). */
export class ReceiverLog {
  private readonly receivers = new Map<string, Receiver>();

  private get(id: string): Receiver {
    let receiver = this.receivers.get(id);
    if (receiver)
      this.receivers.delete(id); // re-inserted: most recently used last
    else receiver = { requests: [], next: 1, listeners: new Set() };
    this.receivers.set(id, receiver);
    for (const [old, r] of this.receivers) {
      if (this.receivers.size <= MAX_RECEIVERS) break;
      if (r.listeners.size === 0) this.receivers.delete(old);
    }
    return receiver;
  }

  record(id: string, request: Omit<ReceivedRequest, 'seq'>): ReceivedRequest {
    const receiver = this.get(id);
    const kept = { seq: receiver.next++, ...request };
    receiver.requests.push(kept);
    if (receiver.requests.length > MAX_REQUESTS) receiver.requests.splice(0, receiver.requests.length - MAX_REQUESTS);
    for (const listener of receiver.listeners) listener(kept);
    return kept;
  }

  follow(id: string, listener: (request: ReceivedRequest) => void): { kept: ReceivedRequest[]; stop: () => void } {
    const receiver = this.get(id);
    receiver.listeners.add(listener);
    return { kept: [...receiver.requests], stop: () => receiver.listeners.delete(listener) };
  }

  size(): number {
    return this.receivers.size;
  }
}

/** Open receiver streams, so a stopping server can end them before it waits for its connections. */
const openStreams = new Set<Response>();

export function endReceiverStreams(): number {
  const count = openStreams.size;
  for (const res of [...openStreams]) res.end();
  openStreams.clear();
  return count;
}

/** The body, at most `cap` bytes (null past it: the rest is read and dropped). */
async function readBody(req: Request, cap: number): Promise<{ body: Buffer | null; size: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size <= cap) chunks.push(buffer);
  }
  return { body: size <= cap ? Buffer.concat(chunks) : null, size };
}

function headersOf(req: Request): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    pairs.push([String(req.rawHeaders[i]).toLowerCase(), String(req.rawHeaders[i + 1])]);
  return pairs;
}

/** What the receiver keeps of a request its account's endpoint `webhookId` signed. */
function keptRequest(req: Request, now: Date, body: Buffer, webhookId: string): Omit<ReceivedRequest, 'seq'> {
  return {
    received_at: now.toISOString(),
    headers: headersOf(req),
    body: body.toString('utf8'),
    size: body.length,
    verified: true,
    webhook_id: webhookId,
    failure: null,
    status: 200,
  };
}

/** The routes of the receiver (mount them only while the sandbox is on). */
export function receiverRouter(ctx: AppContext, log = new ReceiverLog()): Router {
  const router = express.Router();
  const authorized = adminTokenCheck(ctx.config.adminToken);
  // One answer for every request the receiver does not keep: an unknown receiver and a refused request alike.
  const notFound = () => new ApiError(404, 'not_found', 'No such receiver (no webhook endpoint targets it).');
  /** The receiver's account's endpoints on it (none for a path that names no receiver). */
  const endpointsOf = async (ref: ReceiverRef | undefined) =>
    ref ? receiverEndpoints(ctx.database.db, ref.accountId, ref.path) : [];

  router.post(`${RECEIVER_PATH}/:account/:id`, (req, res, next) => {
    void (async () => {
      const ref = receiverRef(req.params.account, req.params.id);
      const endpoints = await endpointsOf(ref);
      if (!ref || endpoints.length === 0) {
        req.resume();
        throw notFound();
      }
      const { body } = await readBody(req, MAX_BODY_BYTES);
      const now = ctx.clock.now();
      const endpoint = body && signingEndpoint(endpoints, body, req.get('service-signature'), now);
      if (!body || !endpoint) throw notFound();
      log.record(ref.key, keptRequest(req, now, body, endpoint.id));
      res.status(200).json({ received: true, verified: true });
    })().catch(next);
  });

  router.get(`${RECEIVER_PATH}/:account/:id/stream`, (req, res, next) => {
    void (async () => {
      if (!authorized(req)) throw new GatewayError(401, 'Missing or invalid admin token.');
      const ref = receiverRef(req.params.account, req.params.id);
      if (!ref || (await endpointsOf(ref)).length === 0) throw notFound();
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      });
      const send = (request: ReceivedRequest) =>
        res.write(`id: ${request.seq}\nevent: request\ndata: ${JSON.stringify(request)}\n\n`);
      const { kept, stop } = log.follow(ref.key, send);
      openStreams.add(res);
      res.write(': receiver open\n\n');
      for (const request of kept) send(request);
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      res.once('close', () => {
        clearInterval(keepAlive);
        stop();
        openStreams.delete(res);
      });
    })().catch(next);
  });
  return router;
}
