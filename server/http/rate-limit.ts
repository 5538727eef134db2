// Per-account rate limits by call kind (Part A, Limits): read 120, write 60, send 20 calls per one-minute
// window, all keys of the account together, across every server process sharing the database.
//
// Why our own limiter over `rate_counters` and not rate-limiter-flexible's RateLimiterPostgres:
// - it reads Date.now() throughout, so the windows could not follow the injectable clock (tests move it);
// - its windows start at an account's first call, while RateLimit-Reset must count to the end of the minute;
// - it takes a `pg` pool, knex, sequelize or typeorm client and creates its own table outside our migrations,
//   so it cannot run on PGlite, where one upsert on our table does the same job on both engines.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { rateLimits, type RateKind } from '../../generated/operations.js';
import { countAccountCall, pruneRateCounters } from '../store/rate.js';
import type { DB } from '../store/schema.js';

// The spec's `x-rate-limits`, the one place the numbers live.
export const RATE_LIMITS: Record<RateKind, number> = rateLimits.kinds;
export const RATE_WINDOW_MS = rateLimits.windowSeconds * 1000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision>;
}

/** Windows are aligned on the minute, so every process agrees on them and RateLimit-Reset ends with it. */
export function rateWindow(now: Date): { start: number; resetSeconds: number } {
  const start = Math.floor(now.getTime() / RATE_WINDOW_MS) * RATE_WINDOW_MS;
  return { start, resetSeconds: Math.ceil((start + RATE_WINDOW_MS - now.getTime()) / 1000) };
}

function decide(kind: RateKind, count: number, resetSeconds: number): RateDecision {
  const limit = RATE_LIMITS[kind];
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/** Counts in the database: the limits hold across every process on one PostgreSQL (or PGlite in one process). */
export class StoreRateLimiter implements RateLimiter {
  private nextPruneAt = 0;
  /** The last pruning started (tests await it). */
  pruning: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly logger?: Logger,
  ) {}

  async hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision> {
    const { start, resetSeconds } = rateWindow(now);
    const count = await countAccountCall(this.db, accountId, kind, new Date(start).toISOString());
    this.prune(start);
    return decide(kind, count, resetSeconds);
  }

  /**
   * At most once a minute per process, off the request's path. The previous window is kept: a process whose
   * clock is a little behind may still be counting into it.
   */
  private prune(windowStart: number): void {
    if (windowStart < this.nextPruneAt) return;
    this.nextPruneAt = windowStart + RATE_WINDOW_MS;
    this.pruning = pruneRateCounters(this.db, new Date(windowStart - RATE_WINDOW_MS).toISOString()).then(
      () => undefined,
      (error: unknown) => this.logger?.warn({ err: error }, 'pruning rate counters failed'),
    );
  }
}

/** Fixed windows counted in this process only: for code that needs a limiter without a database. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  async hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision> {
    const { start, resetSeconds } = rateWindow(now);
    const id = `${accountId}:${kind}`;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(id, w);
    }
    w.count += 1;
    return decide(kind, w.count, resetSeconds);
  }
}
