// The console's built-in webhook receiver, like `stripe listen` without a second terminal: a webhook endpoint
// whose URL is this server (`POST /console/receiver/{id}`), registered by the page through the public API like
// any endpoint. Served only while the sandbox is on (the console's router), and reachable by the sender only
// under WEBHOOK_DEV_TARGETS (http and loopback; server/webhooks/targets.ts), which the registration checks.
//
// - A receiver id is known while an endpoint (not deleted) targets it: the request is checked against the secrets
//   of every endpoint whose URL ends with `/console/receiver/{id}`, with the client's verifier
//   (client/webhooks.ts, the partner's own check) on the service's clock. A verified request is answered 200, an
//   invalid one 400 (the service retries it, as Part C says), an unknown id 404. The page never gets a secret
//   from here, and no secret is in a URL or a log line.
// - Each request (headers, raw body, the verdict) is kept in memory, bounded: MAX_REQUESTS per receiver,
//   MAX_RECEIVERS receivers (the least recently used is dropped), bodies up to MAX_BODY_BYTES (a larger one is
//   413, kept without its body). A restart forgets them; the endpoint keeps working.
// - The page follows a receiver with `GET /console/receiver/{id}/stream` (the admin token in Authorization):
//   server-sent events, the kept requests first, then each as it arrives.
import type { Request, Response, Router } from 'express';
import express from 'express';
import { checkWebhookSignature } from '../../client/webhooks.js';
import { signingSecrets } from '../domain/webhooks/endpoints.js';
import { ApiError, GatewayError } from '../errors.js';
import { adminTokenCheck } from './admin.js';
import type { AppContext } from './context.js';
import { endpointsTargetingPath } from '../store/webhook-endpoints.js';
import { CONSOLE_PATH } from '../console/page.js';
import type { ReceivedRequest } from '../console/received.js';

export const RECEIVER_PATH = `${CONSOLE_PATH}/receiver`;
export const MAX_RECEIVERS = 20;
export const MAX_REQUESTS = 50;
export const MAX_BODY_BYTES = 64 * 1024;
/** A receiver id: what the page draws (a UUID) or any 16 to 64 URL-safe characters. */
const RECEIVER_ID = /^[A-Za-z0-9_-]{16,64}$/;
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

/** The routes of the receiver (mount them only while the sandbox is on). */
export function receiverRouter(ctx: AppContext, log = new ReceiverLog()): Router {
  const router = express.Router();
  const authorized = adminTokenCheck(ctx.config.adminToken);
  const notFound = () => new ApiError(404, 'not_found', 'No such receiver (no webhook endpoint targets it).');

  router.post(`${RECEIVER_PATH}/:id`, (req, res, next) => {
    void (async () => {
      const id = req.params.id ?? '';
      const endpoints = RECEIVER_ID.test(id)
        ? await endpointsTargetingPath(ctx.database.db, `${RECEIVER_PATH}/${id}`)
        : [];
      if (endpoints.length === 0) {
        req.resume();
        throw notFound();
      }
      const { body, size } = await readBody(req, MAX_BODY_BYTES);
      const header = req.get('service-signature');
      const now = ctx.clock.now();
      let verdict: { verified: boolean; webhook_id: string | null; failure: string | null } = {
        verified: false,
        webhook_id: null,
        failure: body === null ? 'body_too_large' : 'signature_mismatch',
      };
      if (body !== null)
        for (const endpoint of endpoints) {
          for (const secret of signingSecrets(endpoint, now)) {
            const check = checkWebhookSignature({ payload: body, header, secret, now });
            if (check.ok) verdict = { verified: true, webhook_id: endpoint.id, failure: null };
            else if (check.reason !== 'signature_mismatch') verdict.failure = check.reason;
          }
          if (verdict.verified) break;
        }
      const status = body === null ? 413 : verdict.verified ? 200 : 400;
      log.record(id, {
        received_at: now.toISOString(),
        headers: headersOf(req),
        body: body === null ? null : body.toString('utf8'),
        size,
        ...verdict,
        status,
      });
      res.status(status).json({ received: true, verified: verdict.verified });
    })().catch(next);
  });

  router.get(`${RECEIVER_PATH}/:id/stream`, (req, res, next) => {
    void (async () => {
      if (!authorized(req)) throw new GatewayError(401, 'Missing or invalid admin token.');
      const id = req.params.id ?? '';
      if (
        !RECEIVER_ID.test(id) ||
        (await endpointsTargetingPath(ctx.database.db, `${RECEIVER_PATH}/${id}`)).length === 0
      )
        throw notFound();
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      });
      const send = (request: ReceivedRequest) =>
        res.write(`id: ${request.seq}\nevent: request\ndata: ${JSON.stringify(request)}\n\n`);
      const { kept, stop } = log.follow(id, send);
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
