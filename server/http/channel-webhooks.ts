// Meta's webhooks for the real channels (issues 35 and 36), one path per provider (`/channels/whatsapp/webhook`,
// `/channels/instagram/webhook`), each the same: `GET`, the subscription check (`hub.verify_token` against
// META_VERIFY_TOKEN: 200 with the challenge as text/plain, else 403), and `POST` on the same path, the events: the
// X-Hub-Signature-256 of the raw body bytes under META_APP_SECRET (401 when missing or wrong, nothing kept), a
// body that is JSON (400 otherwise), at most MAX_WEBHOOK_BYTES (413), then committed as it came with the provider
// its path names (with the payloads arriving meanwhile: one commit for many) and answered 200 once committed; the
// decoding runs after the answer (domain/channels). A payload naming an account no connection has is still 200
// (logged when applied): Meta disables a webhook that keeps failing.
//
// Not the partner's API: no key, no rate limit per account, no OpenAPI validator (Meta's payload is Meta's), and
// not counted by the edge's per-client limit (Meta posts from a few addresses). Without META_APP_SECRET the
// routes do not exist (404): a webhook that cannot be verified is never taken in.
import { timingSafeEqual } from 'node:crypto';
import express, { type Router } from 'express';
import { metaSignatureValid } from '../channels/graph/signature.js';
import { ChannelWebhookIntake } from '../domain/channels/webhook-intake.js';
import { ApiError } from '../errors.js';
import type { ChannelWebhookPayload } from '../job-kinds.js';
import type { AppContext } from './context.js';
import { publicBaseUrl } from './base-url.js';

export const WHATSAPP_WEBHOOK_PATH = '/channels/whatsapp/webhook';
export const INSTAGRAM_WEBHOOK_PATH = '/channels/instagram/webhook';
/** Meta's payloads are a few kilobytes; a batch of statuses stays far below this. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;
/** Meta's challenge is a number; anything longer is not Meta's. */
const CHALLENGE = /^[A-Za-z0-9_.-]{1,256}$/;

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

export function channelWebhookRouter(ctx: AppContext): Router {
  const router = express.Router();
  const secret = ctx.config.metaAppSecret;
  if (secret === undefined) return router;
  const verifyToken = ctx.config.metaVerifyToken;
  // Payloads arriving together are committed together (group commit), each answered after its own commit.
  const intake = new ChannelWebhookIntake(ctx.database.db, ctx.clock, ctx.jobsAtCommit);

  const mount = (path: string, provider: ChannelWebhookPayload['provider']) => {
    router.get(path, (req, res) => {
      res.locals.route = path; // the request log's and the metrics' route label (observability.ts)
      const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = req.query;
      const verified =
        mode === 'subscribe' &&
        typeof token === 'string' &&
        verifyToken !== undefined &&
        sameText(token, verifyToken) &&
        typeof challenge === 'string' &&
        CHALLENGE.test(challenge);
      if (!verified || typeof challenge !== 'string') {
        ctx.logger.warn({ path }, 'a webhook subscription check did not match META_VERIFY_TOKEN');
        res.status(403).type('text/plain').send('Forbidden');
        return;
      }
      res.status(200).type('text/plain').set('X-Content-Type-Options', 'nosniff').send(challenge);
    });

    router.post(path, express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES }), async (req, res, next) => {
      res.locals.route = path;
      try {
        const raw: unknown = req.body;
        const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
        if (!metaSignatureValid(bytes, req.get('x-hub-signature-256'), secret)) {
          ctx.logger.warn({ path }, 'a webhook without a valid X-Hub-Signature-256 was refused');
          throw new ApiError(401, 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body.');
        }
        const text = bytes.toString('utf8');
        if (!isJson(text)) throw new ApiError(400, 'invalid_json', 'The body is not JSON.');
        await intake.accept(provider, text, publicBaseUrl(ctx, req));
        res.status(200).json({ received: true });
      } catch (error) {
        next(error);
      }
    });
  };
  mount(WHATSAPP_WEBHOOK_PATH, 'whatsapp_cloud');
  mount(INSTAGRAM_WEBHOOK_PATH, 'instagram_graph');
  return router;
}
