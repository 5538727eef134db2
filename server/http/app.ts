// The Express app: every public route of the spec, bound by operationId from generated/operations.ts.
//
//   request → edge (403 no body) and ceiling (429 no body) → request id and deadline (503 at it) → HEAD as GET
//           → /healthz /readyz /metrics (no key) → request log and metrics → media upload/download links
//           → tracked links (/links/{token}, no key) → the console page (/console, while the sandbox is on)
//           → Meta's webhooks (/channels/…, signed, raw bytes)
//           → JSON body (400 malformed or nested over 64 levels, 413 payload_too_large over 1 MB) → admin API
//           → route match (unknown → 404 envelope)
//           → gateway auth (401/403 with only message) → scope (403 insufficient_scope)
//           → rate limit (429 rate_limited) → entry rules (ids canonical, decimal integers: 400)
//           → OpenAPI validation (400)
//           → idempotency (replay with Idempotent-Replayed, 409, 422, 503) → handler
//           → response headers → error envelope
// Every operation of the spec has its handler (routes/index.ts); a table without one (a test's) answers 501
// not_implemented for it.
import { strictFormats } from './formats.js';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ADMIN_PREFIX, operations } from '../../generated/operations.js';
import { ApiError, GatewayError, serviceUnavailable } from '../errors.js';
import { deadlinePassed, DeadlineExceededError, handlerStarted } from '../request-context.js';
import { serveWithDeadline } from './deadline.js';
import { consoleRouter } from '../console/page.js';
import { receiverRouter } from './console-receiver.js';
import { channelWebhookRouter } from './channel-webhooks.js';
import { adminRouter } from './admin.js';
import { KeyResolver } from './auth.js';
import { edgeGuard } from './edge.js';
import { healthRoutes } from './health.js';
import { createObservability } from './observability.js';
import { handlerOf, type AdminHandlers, type AppContext, type Handlers, type Replayers } from './context.js';
import { idempotency } from './idempotency.js';
import { mediaTransferRouter } from './media-links.js';
import { trackedLinkRouter } from './tracked-links.js';
import { operationList, operationMatcher } from './operation-match.js';
import { memoiseRoutePatterns } from './route-patterns.js';
import { specDocument, requestValidatorSpec } from './spec.js';
import { operationsWithoutInput, validatorOnce } from './validators.js';
import { descriptionRouter } from './description.js';
import { refuseNulCharacters } from './nul.js';
import { canonicalParams, entryRules, headAsGet, ownQuery } from './entry-rules.js';
import { refuseDeepJson } from './json-depth.js';
import { sendJsonDirectly, sendResult } from './respond.js';
import { checkResponse } from './response-check.js';
import { answerInternalError } from './internal-error.js';
import { inOrder, type Step } from './pipeline.js';

/** The largest JSON body (1 MB); a larger one is 413 payload_too_large. */
export const MAX_BODY_BYTES = 1_048_576;

/** What the app serves: the handlers of the public and admin APIs, and the replayers of the public one. */
export interface AppRoutes {
  /** The public API's handlers by operationId (routes/index.ts). */
  handlers: Handlers;
  /** The Idempotency-Key replayers by operationId (routes/index.ts), handed to the middleware (idempotency.ts). */
  replayers: Replayers;
  /** The admin API's handlers (admin.ts). */
  adminHandlers: AdminHandlers;
}

export function createApp(ctx: AppContext, routes: AppRoutes): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  app.set('trust proxy', ctx.config.trustProxy);
  sendJsonDirectly(app);

  // The edge (403 with no body per IP) and the gateway's per-second ceiling (429 with no body): before anything.
  // The front's steps run as one middleware (./pipeline.ts): each layer of Express's router costs a call, a path
  // parse and a pattern test per request.
  app.use(inOrder([edgeGuard(ctx), requestIdAndDeadline(ctx), headAsGet]));

  const observability = createObservability({
    logger: ctx.logger,
    db: ctx.database.db,
    clock: ctx.clock,
    webConcurrency: ctx.config.webConcurrency,
  });
  const jsonBodies = jsonBodyParser();

  // The public API (every path under /v1/): logged and counted, its JSON body parsed, then its own pipeline, all
  // in one middleware. A call that matches no operation goes on to the 404 below.
  memoiseRoutePatterns();
  const publicApi = inOrder([
    observability.middleware,
    jsonBodies,
    matchOperation(),
    // Gateway: every public operation (all under /v1) needs a valid key of an account with API access.
    authenticate(ctx),
    scopeAndRateLimit(ctx),
    // The entry rules (NUL and lone surrogates, ids, integers) before the validator: ./entry-rules.ts.
    refuseNulCharacters,
    applyEntryRules(),
    publicValidation(ctx),
    // Idempotency-Key on mutating routes: after validation (a malformed request takes no key), before the
    // handler. The replayers come from the route table here, so the middleware imports no route.
    idempotency(ctx, routes.replayers),
    runHandler(ctx, routes.handlers),
  ]);
  const publicCall = (req: Request) => req.path.startsWith('/v1/');

  // What is beside the public API, none of it under /v1/ (a public call skips it all with one test of its path).
  const besideApi = express.Router();
  // Operations routes first: no key, no rate limit, not logged or counted (probes would drown the rest).
  besideApi.use(healthRoutes(ctx.database));
  besideApi.get('/metrics', observability.metrics);
  besideApi.use(observability.middleware);
  // Pre-signed media upload and download links: the storage, not the API (no key, rate limit or validator),
  // and before the JSON parser, which would swallow an upload of type application/json.
  besideApi.use(mediaTransferRouter(ctx));
  // The tracking addresses of automations' link buttons: opened by contacts' browsers (no key, no JSON).
  besideApi.use(trackedLinkRouter(ctx));
  // The console page (a client of the admin and public APIs, no route of its own) while the sandbox is on.
  if (ctx.config.sandboxEnabled) besideApi.use(consoleRouter(ctx.logger), receiverRouter(ctx));
  // Meta's webhooks (no key, signed by the app secret; their raw bytes, before the JSON parser).
  besideApi.use(channelWebhookRouter(ctx));
  // The public description (GET /openapi.json, no key) and, in development, the reference pages (/docs).
  besideApi.use(descriptionRouter(ctx));
  besideApi.use(jsonBodies);
  // The admin API (vendor console), with its own token and validator.
  besideApi.use(ADMIN_PREFIX, adminRouter(ctx, routes.adminHandlers));

  app.use((req, res, next) => (publicCall(req) ? publicApi(req, res, next) : besideApi(req, res, next)));

  app.use((req, _res, next) => next(new ApiError(404, 'not_found', `No route ${req.method} ${req.path}.`)));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendError(ctx, req, res, error);
  });
  return app;
}

/**
 * The request id, and the deadline: a request not answered by then gets 503, and its database work is refused
 * and rolled back from then on (./deadline.ts).
 */
/**
 * JSON bodies, parsed by Express's parser. A request with no body (no Content-Length, no Transfer-Encoding: the
 * parser's own test) skips it: the parser's setup per request was a tenth of GET /v1/me's pipeline.
 */
function jsonBodyParser(): RequestHandler {
  const parse = express.json({
    limit: MAX_BODY_BYTES,
    type: ['application/json', 'application/*+json'],
    verify: refuseDeepJson,
  });
  return (req, res, next) => {
    const { 'content-length': length, 'transfer-encoding': encoding } = req.headers;
    if (encoding === undefined && (length === undefined || Number.isNaN(Number(length)))) return next();
    return parse(req, res, next);
  };
}

function requestIdAndDeadline(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const deadlineMs = ctx.config.requestDeadlineMs;
    serveWithDeadline(requestId, deadlineMs, res, next, () => {
      ctx.logger.warn({ requestId, route: req.path, deadline_ms: deadlineMs }, 'request deadline passed');
      sendError(ctx, req, res, deadlinePassed(deadlineMs / 1000));
    });
  };
}

/** The public operation a request is for, and its path parameters, into `res.locals`. */
function matchOperation(): RequestHandler {
  const operationOf = operationMatcher(operationList(operations));
  return (req, res, next) => {
    try {
      const matched = operationOf(req.method, req.path);
      if (matched) {
        // A query is parsed once here (Express 5 parses it at each read): the entry rules, the validator and
        // the handler read it after.
        if (req.url.includes('?')) ownQuery(req);
        res.locals.operation = matched.operation;
        res.locals.params = matched.params;
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The caller of the request's key, into `res.locals` (401 or 403 from the gateway otherwise). */
function authenticate(ctx: AppContext): RequestHandler {
  const keys = new KeyResolver(ctx.database.db, ctx.clock, ctx.config.keyCacheSeconds);
  return (req, res, next) => {
    if (!res.locals.operation) return next();
    keys
      .authenticate(req.headers.authorization)
      .then((caller) => {
        res.locals.caller = caller;
        next();
      })
      .catch(next);
  };
}

/** The key's scope (403 insufficient_scope), then the account's rate limit (429 rate_limited). */
function scopeAndRateLimit(ctx: AppContext): RequestHandler {
  return (_req, res, next) => {
    const { operation, caller } = res.locals;
    if (!operation || !caller) return next();
    if (operation.scope && !caller.key.scopes.includes(operation.scope))
      return next(
        new ApiError(403, 'insufficient_scope', `This key lacks the scope ${operation.scope}.`, {
          required_scope: operation.scope,
        }),
      );
    ctx.rateLimiter
      .hit(caller.account.id, operation.rateKind, ctx.clock.now())
      .then((decision) => {
        res.locals.rate = decision;
        setRateHeaders(res, decision);
        if (decision.allowed) return next();
        next(
          new ApiError(
            429,
            'rate_limited',
            `Too many ${operation.rateKind} calls this minute.`,
            { kind: operation.rateKind, limit: decision.limit, retry_after: decision.resetSeconds },
            { 'Retry-After': String(decision.resetSeconds) },
          ),
        );
      })
      // The counters live in the database that also holds the idempotency keys: when it cannot be reached, a
      // route taking Idempotency-Key answers as rule 5 says (503, nothing ran); others get the 500 envelope.
      .catch((error: unknown) => {
        if (operation.idempotency === 'none') return next(error);
        ctx.logger.error({ err: error }, 'rate counters unavailable');
        next(serviceUnavailable());
      });
  };
}

/** The entry rules of the operation (ids canonical, decimal integers), its path parameters made canonical. */
function applyEntryRules(): RequestHandler {
  const apply = entryRules(specDocument());
  return (req, res, next) => {
    const { operation, params } = res.locals;
    if (!operation) return next();
    try {
      res.locals.params = canonicalParams(params ?? {});
      apply(operation.id, req);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * The OpenAPI validator, skipped for a request it has nothing to check: an operation that declares no parameter
 * and no body (GET /v1/me), called with no query string and no body. The validator would still look the
 * operation up (a walk of the spec's paths) and run its schemas on empty input: a tenth of such a call's CPU.
 * With response validation on (development, tests) it always runs, as it did when express-openapi-validator checked
 * the responses too, and the response check (./response-check.ts) is put on the response once the request passed.
 */
function publicValidation(ctx: AppContext): Step {
  const validate = inOrder(publicValidator(ctx));
  if (ctx.config.responseValidation)
    return (req, res, next) =>
      validate(req, res, (error?: unknown) => {
        const { operation } = res.locals;
        if (!error && operation)
          checkResponse('public', operation, res, (defect) => answerInternalError(ctx.logger, req, res, defect));
        next(error);
      });
  const withoutInput = operationsWithoutInput(specDocument());
  return (req, res, next) => {
    const { operation } = res.locals;
    const { headers } = req;
    const nothingToCheck =
      operation !== undefined &&
      withoutInput.has(operation.id) &&
      !req.url.includes('?') &&
      headers['content-length'] === undefined &&
      headers['transfer-encoding'] === undefined;
    if (nothingToCheck) next();
    else validate(req, res, next);
  };
}

function publicValidator(ctx: AppContext) {
  const { requestValidation } = ctx.config;
  return validatorOnce(`public requests:${requestValidation}`, () =>
    OpenApiValidator.middleware({
      apiSpec: requestValidatorSpec(),
      validateRequests: requestValidation
        ? { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false }
        : false,
      // The responses are checked by ./response-check.ts.
      validateResponses: false,
      validateSecurity: false,
      // The description is checked where it is made (lint:spec, the generated files' test), not at every start.
      validateApiSpec: false,
      validateFormats: true,
      formats: strictFormats,
      ignoreUndocumented: false,
      ignorePaths: /^\/(healthz|readyz|metrics|admin)(\/|$)/,
    }),
  );
}

/** The handler of the operation, with the request as the validator let it through. */
function runHandler(ctx: AppContext, handlers: Handlers): RequestHandler {
  return (req, res, next) => {
    const { operation, caller } = res.locals;
    if (!operation || !caller) return next();
    const handler = handlerOf(handlers, operation.id);
    if (!handler)
      return next(
        new ApiError(
          501,
          'not_implemented',
          `${operation.method.toUpperCase()} ${operation.path} is not available yet.`,
        ),
      );
    // What the request commits from here on is its effect; the rate counter and the key's claim were not.
    handlerStarted();
    handler({
      req,
      operation,
      caller,
      app: ctx,
      params: res.locals.params ?? {},
      query: req.query,
      body: req.body,
    })
      .then((result) => sendResult(res, result))
      .catch(next);
  };
}

function setRateHeaders(res: Response, rate: { limit: number; remaining: number; resetSeconds: number }) {
  res.setHeader('RateLimit-Limit', String(rate.limit));
  res.setHeader('RateLimit-Remaining', String(rate.remaining));
  res.setHeader('RateLimit-Reset', String(rate.resetSeconds));
}

/**
 * The gateway's answers carry only `message`: its own refusals, and a service's refusal of an account without
 * API access (the gateway's 403, met by a call its key cache let through).
 */
function isGatewayAnswer(error: unknown): error is GatewayError | ApiError {
  return error instanceof GatewayError || (error instanceof ApiError && error.code === 'no_api_access');
}

interface ValidatorError {
  status: number;
  message?: string;
  errors?: { path?: string; message?: string; location?: string }[];
}

function isValidatorError(error: unknown): error is ValidatorError {
  return typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number';
}

function sendError(ctx: AppContext, req: Request, res: Response, thrown: unknown): void {
  if (res.headersSent) return;
  // A statement refused past the deadline, met before the deadline's timer ran: the deadline's answer.
  const error = thrown instanceof DeadlineExceededError ? deadlinePassed(ctx.config.requestDeadlineMs / 1000) : thrown;
  if (isGatewayAnswer(error)) {
    res.status(error.status).json({ message: error.message });
    return;
  }
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.status(error.status).json(error.body());
    return;
  }
  // Before the validator's errors: the body parser's carry a numeric status too (413, 415).
  if (isBodyParserError(error)) {
    if (error.type === 'entity.too.large') {
      const tooLarge = new ApiError(413, 'payload_too_large', 'The request body is larger than 1 MB.', {
        max_size: MAX_BODY_BYTES,
      });
      res.status(413).json(tooLarge.body());
      return;
    }
    res.status(400).json({
      type: 'error',
      message: 'The request does not follow the API format.',
      context: { details: [{ location: 'body', path: null, message: error.message }] },
    });
    return;
  }
  if (isValidatorError(error) && error.status >= 400 && error.status < 500) {
    if (error.status === 404 || error.status === 405) {
      res.status(404).json(new ApiError(404, 'not_found', `No route ${req.method} ${req.path}.`).body());
      return;
    }
    res.status(400).json({
      type: 'error',
      message: 'The request does not follow the API format.',
      context: { details: validationDetails(error) },
    });
    return;
  }
  answerInternalError(ctx.logger, req, res, error);
}

function isBodyParserError(error: unknown): error is { message: string; type: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    'type' in error &&
    typeof error.type === 'string' &&
    [
      'entity.parse.failed',
      'entity.too.large',
      'entity.too.deep',
      'encoding.unsupported',
      'charset.unsupported',
    ].includes(error.type)
  );
}

function validationDetails(error: ValidatorError) {
  // Express's own refusal of a malformed percent-encoding in the path carries no validator detail.
  if (!error.errors?.length && /decode param/i.test(error.message ?? ''))
    return [{ location: 'path', path: null, message: 'a path parameter is not valid percent-encoding' }];
  const items = error.errors?.length ? error.errors : [{ message: error.message ?? 'invalid request' }];
  return items.map((e) => {
    const raw = e.path ?? '';
    const m = /^\/?(body|query|headers|params|path)(?:\/|\.)?(.*)$/.exec(raw.replace(/^\./, ''));
    const where = m?.[1];
    const location =
      where === 'query'
        ? 'query'
        : where === 'headers'
          ? 'header'
          : where === 'params' || where === 'path'
            ? 'path'
            : 'body';
    const rest = m?.[2] ?? '';
    const path = location === 'body' ? (rest ? `/${rest.replace(/\./g, '/')}` : null) : rest || null;
    return { location, path, message: e.message ?? 'invalid' };
  });
}
