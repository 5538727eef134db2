// Background work (the job workers) yields the database to the API's requests. Code that runs inside
// `runInBackground` — a worker's claims and its jobs, whatever they call — asks for a connection at the lower
// priority:
// - embedded PGlite has one session: a request waiting for it goes before a waiting background job that has
//   waited less than BACKGROUND_PATIENCE_MS (and before FOREGROUND_TURNS requests went ahead of it); past that,
//   the jobs take BACKGROUND_TURNS transactions for each request's, the job begun first first. So a request waits
//   for at most two background transactions, and a burst of requests cannot leave the jobs it causes (an
//   automation's run, whose transactions outnumber its write's) behind: measured on bench:engine, one turn each
//   left a line growing all burst long (trigger → send p50 ~450 ms), two keep it short (~95 ms). Between holders
//   the event loop reads what arrived;
// - PostgreSQL's pool: background work holds at most its share of the connections at once; the rest stay
//   free for requests.
// While a burst of requests that defers its work (Meta's webhooks: each 200 only needs its payload committed)
// says so (`yieldForBurst`), background work yields more: one pool connection at a time on PostgreSQL, and on
// PGlite no turns for impatience (the FOREGROUND_TURNS floor stays), so the burst's answers get the process.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Background work's place in line: among waiting background holders, the work begun first goes first. */
interface BackgroundWork {
  begunAt: number;
}

const background = new AsyncLocalStorage<BackgroundWork>();

/**
 * Runs `work` (and everything it starts) as background work, begun now: each job is run in a call of its own
 * (jobs/worker.ts), so on PGlite's one session the job begun first finishes first, rather than every job in
 * flight moving one transaction in turn and all finishing late together.
 */
export function runInBackground<T>(work: () => Promise<T>): Promise<T> {
  return background.run({ begunAt: performance.now() }, work);
}

/** Until when (performance.now()) background work yields more to a burst of requests. */
let burstUntil = -Infinity;

/** A burst of requests whose work can wait: background work yields more for the next `ms` (see above). */
export function yieldForBurst(ms: number): void {
  burstUntil = Math.max(burstUntil, performance.now() + ms);
}

/** Whether a burst asked background work to yield more, now. */
export function inBurst(): boolean {
  return performance.now() < burstUntil;
}

/** Whether the caller runs as background work. */
export function isBackground(): boolean {
  return background.getStore() !== undefined;
}

/** When requests and background work both wait for PGlite's session: requests served in a row before a job. */
export const FOREGROUND_TURNS = 8;
/**
 * A background holder that has waited this long for PGlite's session takes turns with the waiting requests
 * (measured, bench:engine on PGlite: with requests always first, a burst's runs waited 2–4 s behind its writes).
 */
export const BACKGROUND_PATIENCE_MS = 50;
/** Turns in a row an impatient background line takes while requests wait (it outpaces a burst's writes). */
export const BACKGROUND_TURNS = 2;

interface Waiter {
  ok: () => void;
  /** When it began to wait (the `now` of PriorityTurns). */
  since: number;
}

interface BackgroundWaiter extends Waiter {
  /** When its work began (runInBackground): the waiting background holders go in that order. */
  begunAt: number;
}

/**
 * Puts `waiter` in `line` in order of its work's beginning, after those begun at the same moment: a job that comes
 * back for its next transaction goes before the jobs begun after it. The line is a worker's jobs in flight: short.
 */
function joinInWorkOrder<W extends { begunAt: number }>(line: W[], waiter: W): void {
  let at = line.length;
  while (at > 0 && (line[at - 1]?.begunAt ?? -Infinity) > waiter.begunAt) at--;
  line.splice(at, 0, waiter);
}

/**
 * Hands one resource (PGlite's single session) to one holder at a time: waiting requests first, but a background
 * holder that has waited BACKGROUND_PATIENCE_MS, or behind FOREGROUND_TURNS requests in a row, takes the next turn
 * unless the last one was background's (never two in a row while a request waits). Among background holders, the
 * work begun first goes first (a job's transactions one after the other, not all jobs' in turn).
 */
export class PriorityTurns {
  private held = false;
  private readonly foreground: Waiter[] = [];
  private readonly background: BackgroundWaiter[] = [];
  /** Foreground turns given since the last background one. */
  private streak = 0; // > 0: foreground turns in a row; < 0: background turns in a row

  /** `now`: a monotonic clock in ms (wall-clock cadence, like the workers' polls); tests pass their own. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Resolves when the caller holds the resource; call `release()` once done. */
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      this.count(isBackground());
      return Promise.resolve();
    }
    const since = this.now();
    const work = background.getStore();
    return new Promise((ok) => {
      if (work) joinInWorkOrder(this.background, { ok, since, begunAt: work.begunAt });
      else this.foreground.push({ ok, since });
    });
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
    const patient = () => !inBurst() && this.now() - this.longestWait() >= BACKGROUND_PATIENCE_MS;
    const backgroundTurn =
      this.background.length > 0 &&
      (this.foreground.length === 0 ||
        (this.streak > 0 && (this.streak >= FOREGROUND_TURNS || patient())) ||
        (this.streak < 0 && -this.streak < BACKGROUND_TURNS && patient()));
    const next = backgroundTurn ? this.background.shift() : this.foreground.shift();
    if (!next) {
      this.held = false;
      return;
    }
    this.count(backgroundTurn);
    next.ok();
  }

  /** When the background holder waiting longest began to wait (the line's head is the oldest work, not it). */
  private longestWait(): number {
    return this.background.reduce((since, waiter) => Math.min(since, waiter.since), Infinity);
  }

  /** Waiting holders, for tests and metrics. */
  get waiting(): { foreground: number; background: number } {
    return { foreground: this.foreground.length, background: this.background.length };
  }

  private count(backgroundTurn: boolean): void {
    if (backgroundTurn) this.streak = this.streak < 0 ? this.streak - 1 : -1;
    else this.streak = this.streak > 0 ? this.streak + 1 : 1;
  }
}

/**
 * Lets background work take at most `limit` of something at once (PostgreSQL pool connections), one during a
 * burst (`yieldForBurst`); foreground callers are never held. Waiting background work is served in the order it
 * began, so a worker's jobs in flight finish one after the other rather than all late together.
 */
export class BackgroundShare {
  private inUse = 0;
  private readonly waiting: { ok: () => void; begunAt: number }[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('the background share must be ≥ 1');
  }

  private get room(): number {
    return (inBurst() ? 1 : this.limit) - this.inUse;
  }

  /** Resolves with the release function (a no-op for foreground callers). */
  async take(): Promise<() => void> {
    const work = background.getStore();
    if (!work) return () => {};
    if (this.room > 0 && this.waiting.length === 0) this.inUse++;
    // Counted in use by whoever hands it over; the work begun first is served first (see PriorityTurns).
    else await new Promise<void>((ok) => joinInWorkOrder(this.waiting, { ok, begunAt: work.begunAt }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      // As many as the share has room for now: more once a burst is over, none while it holds fewer.
      while (this.room > 0) {
        const next = this.waiting.shift();
        if (!next) break;
        this.inUse++;
        next.ok();
      }
    };
  }
}
