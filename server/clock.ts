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
