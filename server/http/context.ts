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
import type { OperationId, OperationInfo } from '../../generated/operations.js';
import type { IdempotencyOptions } from './idempotency.js';
import type { RateLimiter } from './rate-limit.js';

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

export interface HandlerInput {
  req: Request;
  operation: OperationInfo & { id: OperationId };
  caller: Caller;
  app: AppContext;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (input: HandlerInput) => Promise<HandlerResult>;
export type Handlers = Partial<Record<OperationId, Handler>>;
