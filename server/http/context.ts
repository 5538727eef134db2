// What the HTTP layer needs from the rest of the process, and what a handler receives: the app's context, the
// request's `res.locals`, the handler and replayer types of the public and admin operations.
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import type { Database } from '../store/database.js';
import type { AccountRow, ApiKeyRow } from '../store/accounts.js';
import type { IdempotencyStore, StoredAnswer } from '../store/idempotency.js';
import type { JobsAtCommit } from '../store/jobs.js';
import type { operations as adminOperations } from '../../generated/admin-api.js';
import type { operations as publicOperations } from '../../generated/api.js';
import type { AdminOperationId, OperationId, OperationInfo } from '../../generated/operations.js';
import type { RateLimiter } from './rate-limit.js';
import type { Result } from './respond.js';

/** The process's settings, database, clock and logger, and the services it shares with its jobs (../services.ts). */
export interface AppContext extends Services {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  /**
   * This process's job worker, which runs at once the jobs a request commits claimed for it (the channel
   * webhooks' payloads); absent (tests, WORKERS=false, before the worker starts): the loops claim them.
   */
  jobsAtCommit?: JobsAtCommit;
  /** Key store and lease settings of Idempotency-Key; defaults suit production (tests change them). */
  idempotency?: IdempotencyOptions;
}

export interface IdempotencyOptions {
  /** The key store; default the `idempotency_keys` table. */
  store?: IdempotencyStore;
  /** How long a running request holds its key without renewing it (default 60 s). */
  leaseMs?: number;
  /** How often a running request renews its lease (real time, default 15 s). */
  heartbeatMs?: number;
  /** A request running longer than this stops renewing, so a hung handler ends as outcome_unknown (10 min). */
  maxHoldMs?: number;
  /** A key store slower than this counts as unreachable (default 5 s). */
  storeTimeoutMs?: number;
}

/** A public operation of the generated table, with its id. */
export type Operation = OperationInfo & { id: OperationId };

declare module 'express-serve-static-core' {
  /** What the pipeline (app.ts) leaves in `res.locals` for the middleware after it. */
  interface Locals {
    requestId: string;
    /** The public operation the request is for. */
    operation?: Operation;
    /** The route template labelling the request log and metrics when no public operation matched (admin, media). */
    route?: string;
    /** The path parameters of the matched operation: Express empties req.params in later middleware. */
    params?: Record<string, string>;
    caller?: Caller;
    rate?: { limit: number; remaining: number; resetSeconds: number };
  }
}

export interface Caller {
  account: AccountRow;
  key: ApiKeyRow;
}

/** The operations of both descriptions: the public API (generated/api.ts) and the vendor console's
 * (generated/admin-api.ts, every id prefixed `admin`, so the two sets never share a name). */
type operations = publicOperations & adminOperations;

/** An operation of the spec, public or admin. */
export type SpecOperationId = keyof operations;

/** The generated description of operation `Id`: its parameters, request body and responses. */
type SpecOperation<Id extends SpecOperationId> = operations[Id];

/** `T` without `undefined`; an operation declaring none (`never`) gets an empty object. */
type Declared<T> = [Exclude<T, undefined>] extends [never] ? Record<string, never> : Exclude<T, undefined>;

/** The path parameters of operation `Id` (`{ contactId: string }`). */
export type PathParams<Id extends SpecOperationId> = Declared<SpecOperation<Id>['parameters']['path']>;

/** The query parameters of operation `Id`, as the request validator lets them through. */
export type QueryParams<Id extends SpecOperationId> = Declared<SpecOperation<Id>['parameters']['query']>;

/** The JSON request body of operation `Id`; `undefined` when it takes none, possibly so when it is optional. */
export type RequestBody<Id extends SpecOperationId> = [NonNullable<SpecOperation<Id>['requestBody']>] extends [never]
  ? undefined
  : NonNullable<SpecOperation<Id>['requestBody']> extends { content: { 'application/json': infer Body } }
    ? undefined extends SpecOperation<Id>['requestBody']
      ? Body | undefined
      : Body
    : undefined;

/** The statuses a handler may answer with; errors are thrown as ApiError, never returned. */
type SuccessStatus = 200 | 201 | 202 | 204 | 301 | 302 | 303 | 307 | 308;

/** One declared success of a response map: the status literal with that status's JSON body (none for 204, 302). */
type SuccessOf<Responses> = {
  [Status in keyof Responses & SuccessStatus]: Responses[Status] extends {
    content: { 'application/json': infer Body };
  }
    ? { status: Status; body: Body; headers?: Record<string, string> }
    : { status: Status; body?: undefined; headers?: Record<string, string> };
}[keyof Responses & SuccessStatus];

/** What a handler of operation `Id` answers: one of the operation's declared successes. */
export type HandlerResult<Id extends SpecOperationId> = SuccessOf<SpecOperation<Id>['responses']>;

export interface HandlerInput<Id extends OperationId> {
  req: Request;
  operation: Operation;
  caller: Caller;
  app: AppContext;
  params: PathParams<Id>;
  query: QueryParams<Id>;
  body: RequestBody<Id>;
}

/** The handler of operation `Id`, typed from the spec: a wrong field, body or status does not compile. */
export type Handler<Id extends OperationId> = (input: HandlerInput<Id>) => Promise<HandlerResult<Id>>;

export type Handlers = { [Id in OperationId]?: Handler<Id> };

/** A handler as app.ts calls it, for any operation: what it receives is only known at run time. */
export interface UntypedHandlerInput {
  req: Request;
  operation: Operation;
  caller: Caller;
  app: AppContext;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export type UntypedHandler = (input: UntypedHandlerInput) => Promise<Result>;

/** The stored answer of a success of operation `Id`: what its handler answered, back from JSON. */
export type StoredSuccess<Id extends OperationId> = HandlerResult<Id> & { headers: Record<string, string> };

/** Turns the stored answer of a success into the answer of its replay (or throws an ApiError). */
export type Replayer<Id extends OperationId> = (
  answer: StoredSuccess<Id>,
  input: { app: AppContext; caller: Caller },
) => Promise<StoredAnswer>;
export type Replayers = { [Id in OperationId]?: Replayer<Id> };

/** A replayer as the idempotency middleware calls it, for any operation. */
export type UntypedReplayer = (
  answer: StoredAnswer,
  input: { app: AppContext; caller: Caller },
) => Promise<StoredAnswer>;

export interface AdminHandlerInput<Id extends AdminOperationId> {
  req: Request;
  app: AppContext;
  params: PathParams<Id>;
  /** The validated query string. */
  query: QueryParams<Id>;
  body: RequestBody<Id>;
}

/** The handler of admin operation `Id`, typed from the spec as the public ones are. */
export type AdminHandler<Id extends AdminOperationId> = (input: AdminHandlerInput<Id>) => Promise<HandlerResult<Id>>;

/**
 * The admin operations that answer with a stream (`text/event-stream`) rather than one JSON body: the router
 * binds them to their own handlers (./event-stream.ts), which write the response as events happen.
 */
export const ADMIN_STREAMS = ['adminGetAccountEventStream'] as const;
export type AdminStreamId = (typeof ADMIN_STREAMS)[number];

/** Every admin operation of the spec has its handler (a stream has its own): a missing one is a type error. */
export type AdminHandlers = { [Id in Exclude<AdminOperationId, AdminStreamId>]: AdminHandler<Id> };

/** An admin handler as the router calls it, for any operation: what it receives is only known at run time. */
export type UntypedAdminHandler = (input: {
  req: Request;
  app: AppContext;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}) => Promise<Result>;

/**
 * The entry of `id` in a table typed by operation id (handlers, admin handlers, replayers), as the one dispatch
 * point calls it: with the request as it arrived, or its stored answer. The request validator has checked the
 * request against the operation's parameters and body before any handler runs, and only this operation's handler
 * wrote an answer under its key: that is what makes the entry's types true.
 */
function entryOf<Untyped>(table: { readonly [id: string]: unknown }, id: string): Untyped | undefined {
  // The types above hold per operation id; the dispatch point knows the id only at run time (see above).
  return table[id] as Untyped | undefined;
}

export const handlerOf = (handlers: Handlers, id: OperationId) => entryOf<UntypedHandler>(handlers, id);

export const adminHandlerOf = (handlers: AdminHandlers, id: AdminOperationId) =>
  entryOf<UntypedAdminHandler>(handlers, id);

export const replayerOf = (replayers: Replayers, id: OperationId) => entryOf<UntypedReplayer>(replayers, id);
