// The one clock every time rule reads (key expiry, rate windows, idempotency retention, leases, retries).
// Tests move a ManualClock instead of waiting.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-11-20T14:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/**
 * The system time moved forward by an offset: the sandbox's clock, which the admin API advances so that a
 * client team can see a reply window close or a download link expire without waiting. The offset lives in
 * the process (the embedded mode runs one).
 */
export class OffsetClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  offsetSeconds(): number {
    return this.offsetMs / 1000;
  }
}

/** A clock the sandbox can advance (an OffsetClock, or a test's ManualClock). */
export interface AdvanceableClock extends Clock {
  advance(ms: number): void;
}

export const isAdvanceable = (clock: Clock): clock is AdvanceableClock =>
  'advance' in clock && typeof clock.advance === 'function';
