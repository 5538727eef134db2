// Per-account rate limits by call kind (Part A, Limits): read 120, write 60, send 20 calls per one-minute
// window, all keys together.
import type { RateKind } from '../../generated/operations.js';

export const RATE_LIMITS: Record<RateKind, number> = { read: 120, write: 60, send: 20 };
export const RATE_WINDOW_MS = 60_000;

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

/** Fixed one-minute windows counted in this process. Enough for one process; see the store-backed one. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  async hit(accountId: string, kind: RateKind, now: Date): Promise<RateDecision> {
    const limit = RATE_LIMITS[kind];
    const start = Math.floor(now.getTime() / RATE_WINDOW_MS) * RATE_WINDOW_MS;
    const id = `${accountId}:${kind}`;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(id, w);
    }
    w.count += 1;
    const resetSeconds = Math.max(0, Math.ceil((start + RATE_WINDOW_MS - now.getTime()) / 1000));
    return { allowed: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), resetSeconds };
  }
}
