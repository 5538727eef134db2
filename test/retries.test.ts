// The retry schedules with jitter (server/retries.ts, issue 33): with a seeded source the waits spread across each
// window, the extremes of the source hit its bounds, and no wait leaves the seeds' schedule (Part C's webhook
// table: never later than a step, never sooner than the step before; invoke: never past 2 s then 8 s).
import { describe, expect, it } from 'vitest';
import {
  DATABASE_FAULT_MAX_ATTEMPTS,
  databaseFaultRetryAt,
  databaseFaultRetryWindow,
  DEFAULT_JOB_MAX_ATTEMPTS,
  defaultJobRetryAt,
  defaultJobRetryWindow,
  invokeRetryDelayMs,
  invokeRetryWindow,
  jitter,
  WEBHOOK_MAX_ATTEMPTS,
  webhookRetryDelayMs,
  webhookRetryWindow,
  type Random,
} from '../server/retries.js';
import { rng } from '../scripts/bench/common.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** A seeded source (mulberry32, the benches' generator): the same draws at every run. */
const seeded = (seed: number): Random => rng(seed);

/** Part C: "2: 1 minute after attempt 1 … 6: 5 hours after attempt 5; 7 to 10: 10 hours after the previous one". */
const PART_C = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR];

/** How many of `draws` fall in each tenth of [min, max]: spread means every tenth gets some. */
function tenths(draws: number[], min: number, max: number): number[] {
  const counts = Array<number>(10).fill(0);
  for (const d of draws) counts[Math.min(9, Math.floor(((d - min) / (max - min)) * 10))]! += 1;
  return counts;
}

describe('retry schedules with jitter', () => {
  it('draws uniformly between the bounds, both included; a draw outside [0, 1] or not a number is clamped', () => {
    expect(jitter(1000, 5000, () => 0)).toBe(1000);
    expect(jitter(1000, 5000, () => 1)).toBe(5000);
    expect(jitter(1000, 5000, () => 0.25)).toBe(2000);
    expect(jitter(1000, 5000, () => -3)).toBe(1000);
    expect(jitter(1000, 5000, () => 7)).toBe(5000);
    expect(jitter(1000, 5000, () => Number.NaN)).toBe(5000);
  });

  it("webhook deliveries: each wait is between the table's step before and its own, and the extremes hit them", () => {
    const windows = PART_C.map((_, i) => webhookRetryWindow(i + 1));
    expect(windows).toEqual([
      { min: 0, max: MINUTE },
      { min: MINUTE, max: 5 * MINUTE },
      { min: 5 * MINUTE, max: 30 * MINUTE },
      { min: 30 * MINUTE, max: 2 * HOUR },
      { min: 2 * HOUR, max: 5 * HOUR },
      { min: 5 * HOUR, max: 10 * HOUR },
      { min: 10 * HOUR, max: 10 * HOUR },
      { min: 10 * HOUR, max: 10 * HOUR },
      { min: 10 * HOUR, max: 10 * HOUR },
    ]);
    expect(webhookRetryWindow(WEBHOOK_MAX_ATTEMPTS)).toBeNull();
    expect(webhookRetryDelayMs(WEBHOOK_MAX_ATTEMPTS, () => 1)).toBeNull();
    // The source's extremes: 1 walks the table exactly, 0 the step before each.
    expect(PART_C.map((_, i) => webhookRetryDelayMs(i + 1, () => 1))).toEqual(PART_C);
    expect(PART_C.map((_, i) => webhookRetryDelayMs(i + 1, () => 0))).toEqual([0, ...PART_C.slice(0, 8)]);
  });

  it('webhook deliveries: 2,000 walks with a seeded source spread across every window and never leave Part C’s table', () => {
    const random = seeded(33);
    const byStep: number[][] = PART_C.map(() => []);
    const totals: number[] = [];
    const outside: string[] = [];
    for (let walk = 0; walk < 2000; walk++) {
      let total = 0;
      for (let n = 1; n < WEBHOOK_MAX_ATTEMPTS; n++) {
        const wait = webhookRetryDelayMs(n, random)!;
        // Never later than the table states, never sooner than its step before: the waits never shrink.
        if (wait > PART_C[n - 1]! || wait < (n === 1 ? 0 : PART_C[n - 2]!)) outside.push(`step ${n}: ${wait} ms`);
        byStep[n - 1]!.push(wait);
        total += wait;
      }
      totals.push(total);
    }
    expect(outside).toEqual([]);
    // Steps 1 to 6 have a window: every tenth of it gets at least 5 % of the draws (uniform: 10 %).
    for (let n = 1; n <= 6; n++) {
      const window = webhookRetryWindow(n)!;
      for (const count of tenths(byStep[n - 1]!, window.min, window.max)) expect(count).toBeGreaterThan(100);
    }
    // Ten attempts over about 2 days: between 37 h 36 min and 47 h 36 min, about 42 h 36 min on average.
    expect(Math.min(...totals)).toBeGreaterThanOrEqual(37 * HOUR + 36 * MINUTE);
    expect(Math.max(...totals)).toBeLessThanOrEqual(47 * HOUR + 36 * MINUTE);
    const mean = totals.reduce((a, b) => a + b, 0) / totals.length;
    expect(Math.abs(mean - (42 * HOUR + 36 * MINUTE))).toBeLessThan(10 * MINUTE);
  });

  it('invoke retries: the second attempt within 2 s, the third between 2 s and 8 s after the second', () => {
    expect([invokeRetryWindow(1), invokeRetryWindow(2)]).toEqual([
      { min: 0, max: 2 * SECOND },
      { min: 2 * SECOND, max: 8 * SECOND },
    ]);
    expect([invokeRetryDelayMs(1, () => 1), invokeRetryDelayMs(2, () => 1)]).toEqual([2 * SECOND, 8 * SECOND]);
    expect([invokeRetryDelayMs(1, () => 0), invokeRetryDelayMs(2, () => 0)]).toEqual([0, 2 * SECOND]);
    const random = seeded(7);
    for (const n of [1, 2]) {
      const window = invokeRetryWindow(n);
      const draws = Array.from({ length: 1000 }, () => invokeRetryDelayMs(n, random));
      expect(draws.filter((d) => d < window.min || d > window.max)).toEqual([]);
      for (const count of tenths(draws, window.min, window.max)) expect(count).toBeGreaterThan(50);
    }
  });

  it('failed jobs and database faults: full jitter, uniform in [0, cap], the caps and the give-up unchanged', () => {
    const now = new Date('2026-11-20T14:00:00Z');
    const at = (d: Date | null) => (d === null ? null : d.getTime() - now.getTime());
    // Default: caps 30 s, 1 min, 2 min, … 1 h; gives up at the 10th attempt.
    expect(at(defaultJobRetryAt({ attempts: 1 }, null, now, () => 1))).toBe(30 * SECOND);
    expect(at(defaultJobRetryAt({ attempts: 1 }, null, now, () => 0))).toBe(0);
    expect(at(defaultJobRetryAt({ attempts: 9 }, null, now, () => 1))).toBe(HOUR);
    expect(defaultJobRetryAt({ attempts: DEFAULT_JOB_MAX_ATTEMPTS }, null, now, () => 1)).toBeNull();
    // Database faults: caps 2 s, 4 s, … 15 min; gives up at DATABASE_FAULT_MAX_ATTEMPTS.
    expect(at(databaseFaultRetryAt({ attempts: 1 }, null, now, () => 1))).toBe(2 * SECOND);
    expect(at(databaseFaultRetryAt({ attempts: 30 }, null, now, () => 1))).toBe(15 * MINUTE);
    expect(at(databaseFaultRetryAt({ attempts: 30 }, null, now, () => 0))).toBe(0);
    expect(databaseFaultRetryAt({ attempts: DATABASE_FAULT_MAX_ATTEMPTS }, null, now, () => 1)).toBeNull();

    const random = seeded(20);
    for (const [window, n] of [
      [defaultJobRetryWindow(3)!, 3],
      [databaseFaultRetryWindow(12)!, 12],
    ] as const) {
      expect(window.min).toBe(0);
      const draws = Array.from({ length: 1000 }, () =>
        n === 3
          ? at(defaultJobRetryAt({ attempts: n }, null, now, random))!
          : at(databaseFaultRetryAt({ attempts: n }, null, now, random))!,
      );
      expect(draws.filter((d) => d < 0 || d > window.max)).toEqual([]);
      for (const count of tenths(draws, 0, window.max)) expect(count).toBeGreaterThan(50);
    }
    // The database-fault give-up still spans about a week of outage: the mean wait is half the cap.
    let meanSpan = 0;
    for (let n = 1; n < DATABASE_FAULT_MAX_ATTEMPTS; n++) meanSpan += databaseFaultRetryWindow(n)!.max / 2;
    expect(meanSpan / (24 * HOUR)).toBeGreaterThan(6.5);
    expect(meanSpan / (24 * HOUR)).toBeLessThan(8);
  });
});
