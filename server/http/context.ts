// What the HTTP layer needs from the rest of the process, and what a handler receives.
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { ChannelProvider } from '../channels/provider.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { MediaStorage } from '../media/storage.js';
import type { Database } from '../store/database.js';
import type { TargetPolicy } from '../webhooks/targets.js';
import type { AccountRow, ApiKeyRow } from '../store/accounts.js';
import type { operations } from '../../generated/api.js';
import type { OperationId, OperationInfo } from '../../generated/operations.js';
import type { IdempotencyOptions } from './idempotency.js';
import type { RateLimiter } from './rate-limit.js';
import type { Result } from './respond.js';

export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** Key store and lease settings of Idempotency-Key; defaults suit production (tests change them). */
  idempotency?: IdempotencyOptions;
  /** The channel layer; the sandbox when absent. */
  provider?: ChannelProvider;
  /** Where media bytes live; `LocalDiskStorage` on `DATA_DIR/media` when absent (server/media/storage.ts). */
  storage?: MediaStorage;
  /**
   * The webhook URL rules (resolver, development targets, extra trusted CA); `targetPolicy(config)` when absent.
   * Tests set a stub resolver or a test CA here.
   */
  webhookTargets?: TargetPolicy;
}

export interface Caller {
  account: AccountRow;
  key: ApiKeyRow;
}

/** An operation of the spec, public or admin (generated/api.ts `operations`). */
export type SpecOperationId = keyof operations;

/** The generated description of operation `Id`: its parameters, request body and responses. */
type Operation<Id extends SpecOperationId> = operations[Id];

/** `T` without `undefined`; an operation declaring none (`never`) gets an empty object. */
type Declared<T> = [Exclude<T, undefined>] extends [never] ? Record<string, never> : Exclude<T, undefined>;

/** The path parameters of operation `Id` (`{ contactId: string }`). */
export type PathParams<Id extends SpecOperationId> = Declared<Operation<Id>['parameters']['path']>;

/** The query parameters of operation `Id`, as the request validator lets them through. */
export type QueryParams<Id extends SpecOperationId> = Declared<Operation<Id>['parameters']['query']>;

/** The JSON request body of operation `Id`; `undefined` when it takes none, possibly so when it is optional. */
export type RequestBody<Id extends SpecOperationId> = [NonNullable<Operation<Id>['requestBody']>] extends [never]
  ? undefined
  : NonNullable<Operation<Id>['requestBody']> extends { content: { 'application/json': infer Body } }
    ? undefined extends Operation<Id>['requestBody']
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
export type HandlerResult<Id extends SpecOperationId> = SuccessOf<Operation<Id>['responses']>;

export interface HandlerInput<Id extends OperationId> {
  req: Request;
  operation: OperationInfo & { id: OperationId };
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
  operation: OperationInfo & { id: OperationId };
  caller: Caller;
  app: AppContext;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export type UntypedHandler = (input: UntypedHandlerInput) => Promise<Result>;

/**
 * The handler of `id`, to call with the request as it arrived. The request validator has checked it against
 * the operation's parameters and body before any handler runs, which is what makes the handler's types true.
 */
export function handlerOf(handlers: Handlers, id: OperationId): UntypedHandler | undefined {
  return handlers[id] as UntypedHandler | undefined;
}
