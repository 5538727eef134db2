// Per-account rate limits by call kind (Part A, Limits; the numbers are the spec's `x-rate-limits`), calls per
// one-minute window, all keys of the account together, across every server process sharing the database.
//
// Why our own limiter over `rate_counters` and not rate-limiter-flexible's RateLimiterPostgres:
// - it reads Date.now() throughout, so the windows could not follow the injectable clock (tests move it);
// - its windows start at an account's first call, while RateLimit-Reset must count to the end of the minute;
// - it takes a `pg` pool, knex, sequelize or typeorm client and creates its own table outside our migrations,
//   so it cannot run on PGlite, where one upsert on our table does the same job on both engines.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { rateLimits, type RateKind } from '../../generated/operations.js';
import type { Database } from '../store/database.js';
import { runInBackground } from '../store/priority.js';
import {
  accountBucket,
  countAccountCalls,
  pruneRateCounters,
  readAccountCounts,
  saveAccountCounts,
  type AccountCount,
} from '../store/rate.js';
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
  /** Saves what the limiter holds in memory, if anything, and stops its timers. */
  close?(): Promise<void>;
}

/** Windows are aligned on the minute, so every process agrees on them and RateLimit-Reset ends with it. */
export function rateWindow(now: Date): { start: number; resetSeconds: number } {
  const start = Math.floor(now.getTime() / RATE_WINDOW_MS) * RATE_WINDOW_MS;
  return { start, resetSeconds: Math.ceil((start + RATE_WINDOW_MS - now.getTime()) / 1000) };
}

const isRateKind = (value: string | undefined): value is RateKind =>
  value !== undefined && Object.hasOwn(RATE_LIMITS, value);

function decide(kind: RateKind, count: number, resetSeconds: number): RateDecision {
  const limit = RATE_LIMITS[kind];
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/**
 * Counts in the database, for several processes on one PostgreSQL: the limits hold across all of them. Calls of
 * one account and kind that arrive while its count is being written wait and go together in the next write
 * (`count = count + n`), numbered in their order of arrival: exact, with one round trip per batch rather than
 * per call, and at most one write per counter in flight in each process.
 */
export class StoreRateLimiter implements RateLimiter {
  private nextPruneAt = 0;
  /** The last pruning started (tests await it). */
  pruning: Promise<void> = Promise.resolve();
  private readonly counters = new Map<string, CounterBatches>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly logger?: Logger,
  ) {}

  hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision> {
    const { start, resetSeconds } = rateWindow(now);
    this.prune(start);
    const id = `${accountId}:${kind}:${start}`;
    let counter = this.counters.get(id);
    if (!counter) {
      counter = { writing: false, waiting: [] };
      this.counters.set(id, counter);
    }
    const count = new Promise<number>((resolve, reject) => counter.waiting.push({ resolve, reject }));
    if (!counter.writing) this.write(id, counter, accountId, kind, start);
    return count.then((n) => decide(kind, n, resetSeconds));
  }

  /** Writes the waiting calls as one batch, then the calls that arrived meanwhile, until none waits. */
  private write(id: string, counter: CounterBatches, accountId: string, kind: RateKind, start: number): void {
    const batch = counter.waiting.splice(0);
    counter.writing = true;
    countAccountCalls(this.db, accountId, kind, new Date(start).toISOString(), batch.length)
      .then(
        (total) => batch.forEach((call, i) => call.resolve(total - batch.length + 1 + i)),
        (error: unknown) => batch.forEach((call) => call.reject(error)),
      )
      .finally(() => {
        counter.writing = false;
        if (counter.waiting.length > 0) this.write(id, counter, accountId, kind, start);
        else this.counters.delete(id);
      });
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

interface CounterBatches {
  /** Whether a write of this counter is in flight. */
  writing: boolean;
  /** Calls waiting for the next write. */
  waiting: { resolve(count: number): void; reject(error: unknown): void }[];
}

/** Fixed windows counted in this process only: for code that needs a limiter without a database. */
export class MemoryRateLimiter implements RateLimiter {
  protected readonly windows = new Map<string, { accountId: string; kind: RateKind; start: number; count: number }>();

  async hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision> {
    return this.count(accountId, kind, now);
  }

  protected count(accountId: string, kind: RateKind, now: Date): RateDecision {
    const { start, resetSeconds } = rateWindow(now);
    const id = `${accountId}:${kind}`;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      w = { accountId, kind, start, count: 0 };
      this.windows.set(id, w);
    }
    w.count += 1;
    return decide(kind, w.count, resetSeconds);
  }
}

/**
 * Embedded PGlite: one process owns the data directory, so it counts in memory, exactly, without a query per
 * call (the write was half of an embedded call's time). The counts are saved every second and read back when
 * the process starts: a restart, even a kill -9, forgives at most the last second's calls.
 */
export class EmbeddedRateLimiter extends MemoryRateLimiter {
  private loaded: Promise<void> | undefined;
  private readonly changed = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly logger?: Logger,
    saveEveryMs = 1000,
  ) {
    super();
    this.timer = setInterval(() => void this.save(), saveEveryMs);
    this.timer.unref();
  }

  override async hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision> {
    // A failed read (database briefly down) is not remembered: the next call tries again.
    this.loaded ??= this.load(now).catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    await this.loaded;
    this.changed.add(`${accountId}:${kind}`);
    return this.count(accountId, kind, now);
  }

  /** Saves the counts changed since the last save (and prunes past windows); the last save's promise. */
  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const counts: AccountCount[] = [];
      for (const id of this.changed) {
        const w = this.windows.get(id);
        if (w) counts.push({ bucket: accountBucket(w.accountId, w.kind), windowStart: w.start, count: w.count });
      }
      this.changed.clear();
      if (counts.length === 0) return;
      // Windows over a minute older than the newest are done: their entries go (the map stays bounded).
      const newest = Math.max(...counts.map((c) => c.windowStart));
      for (const [id, w] of this.windows) if (w.start < newest - RATE_WINDOW_MS) this.windows.delete(id);
      try {
        await runInBackground(async () => {
          await saveAccountCounts(this.db, counts);
          const oldest = Math.min(...counts.map((c) => c.windowStart));
          await pruneRateCounters(this.db, new Date(oldest - RATE_WINDOW_MS).toISOString());
        });
      } catch (error) {
        this.logger?.warn({ err: error }, 'saving rate counters failed');
      }
    });
    return this.saving;
  }

  /** Saves what is left and stops saving. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.save();
  }

  /** The counts a previous process saved for the current window. */
  private async load(now: Date): Promise<void> {
    const { start } = rateWindow(now);
    for (const saved of await readAccountCounts(this.db, start)) {
      const [, accountId, kind] = saved.bucket.split(':');
      // Every saved bucket is `account:<id>:<kind>` (accountBucket); anything else is not this limiter's.
      if (accountId === undefined || !isRateKind(kind)) continue;
      const id = `${accountId}:${kind}`;
      const w = this.windows.get(id);
      if (!w || w.start < saved.windowStart)
        this.windows.set(id, { accountId, kind, start: saved.windowStart, count: saved.count });
      else if (w.start === saved.windowStart) w.count = Math.max(w.count, saved.count);
    }
  }
}

const embeddedLimiters = new WeakMap<Database, EmbeddedRateLimiter>();

/**
 * The limiter of a database: shared counts in PostgreSQL, or the one in-memory counter of an embedded database
 * (every app on that handle counts together, as the processes of one PostgreSQL do).
 */
export function rateLimiterFor(database: Database, logger?: Logger): RateLimiter {
  if (database.engine === 'postgres') return new StoreRateLimiter(database.db, logger);
  let limiter = embeddedLimiters.get(database);
  if (!limiter) {
    limiter = new EmbeddedRateLimiter(database.db, logger);
    embeddedLimiters.set(database, limiter);
  }
  return limiter;
}
