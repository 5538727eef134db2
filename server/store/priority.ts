// Background work (the job workers) yields the database to the API's requests. Code that runs inside
// `runInBackground` — a worker's claims and its jobs, whatever they call — asks for a connection at the lower
// priority:
// - embedded PGlite has one session: a request waiting for it goes before every waiting background job, and a
//   background job gets one turn in FOREGROUND_TURNS + 1 when both wait, so neither can starve the other and a
//   request waits for at most one background transaction; between holders the event loop reads what arrived;
// - PostgreSQL's pool: background work holds at most its share of the connections at once; the rest stay
//   free for requests.
import { AsyncLocalStorage } from 'node:async_hooks';

const background = new AsyncLocalStorage<boolean>();

/** Runs `work` (and everything it starts) as background work. */
export function runInBackground<T>(work: () => Promise<T>): Promise<T> {
  return background.run(true, work);
}

/** Whether the caller runs as background work. */
export function isBackground(): boolean {
  return background.getStore() === true;
}

/** When requests and background work both wait for PGlite's session: requests served in a row before a job. */
export const FOREGROUND_TURNS = 8;

/**
 * Hands one resource (PGlite's single session) to one holder at a time: waiting requests first, a waiting
 * background holder after FOREGROUND_TURNS requests in a row.
 */
export class PriorityTurns {
  private held = false;
  private readonly foreground: (() => void)[] = [];
  private readonly background: (() => void)[] = [];
  /** Foreground turns given since the last background one. */
  private streak = 0;

  /** Resolves when the caller holds the resource; call `release()` once done. */
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      this.count(isBackground());
      return Promise.resolve();
    }
    return new Promise((ok) => (isBackground() ? this.background : this.foreground).push(ok));
  }

  release(): void {
    if (this.foreground.length === 0 && this.background.length === 0) {
      this.held = false;
      return;
    }
    // Handed over on the event loop's next turn, not at once: PGlite answers within microtasks, so holders
    // handed over at once would run back to back and the loop would never read the requests arriving
    // meanwhile (measured: the event loop held up to 400 ms at a time during a webhook backlog). The choice is
    // made then, with the requests read in between already waiting.
    setImmediate(() => this.handOver());
  }

  private handOver(): void {
    const backgroundTurn =
      this.background.length > 0 && (this.foreground.length === 0 || this.streak >= FOREGROUND_TURNS);
    const next = backgroundTurn ? this.background.shift() : this.foreground.shift();
    if (!next) {
      this.held = false;
      return;
    }
    this.count(backgroundTurn);
    next();
  }

  /** Waiting holders, for tests and metrics. */
  get waiting(): { foreground: number; background: number } {
    return { foreground: this.foreground.length, background: this.background.length };
  }

  private count(backgroundTurn: boolean): void {
    this.streak = backgroundTurn ? 0 : this.streak + 1;
  }
}

/**
 * Lets background work take at most `limit` of something at once (PostgreSQL pool connections); foreground
 * callers are never held.
 */
export class BackgroundShare {
  private inUse = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('the background share must be ≥ 1');
  }

  /** Resolves with the release function (a no-op for foreground callers). */
  async take(): Promise<() => void> {
    if (!isBackground()) return () => {};
    if (this.inUse < this.limit) this.inUse++;
    else await new Promise<void>((ok) => this.waiting.push(ok)); // the slot is handed over as it stays taken
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.inUse--;
    };
  }
}
