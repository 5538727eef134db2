// A real channel's webhook, taken in: the payload whose signature the route checked is committed as it came, as
// one job, before Meta hears 200; the job (./webhook-apply.ts) decodes and applies it after the answer. So a
// crash between the answer and the work loses nothing (the job is in the database), and Meta, which disables a
// webhook that keeps failing or answering slowly, never waits on the decoding.
//
// Group commit: the payloads that arrive while earlier ones are being committed wait for those commits and then
// go in together, one statement that commits alone (one round trip, one WAL flush) for many 200s; each request
// is answered only once the statement holding its own payload committed. No timer: a payload arriving alone is committed at
// once; at most MAX_IN_FLIGHT transactions of at most MAX_BATCH payloads are open at a time. A batch the
// database refuses is committed again payload by payload, so one payload never fails the others.
//
// With a worker in this process (`JobsAtCommit`), as many jobs as it has free slots are added already claimed
// for it and run at once after the commit (no notification, no claim); the rest wait for the loops.
//
// A burst (BURST_RATE payloads a second or more) asks this process's background work to yield more while it
// lasts (store/priority.ts `yieldForBurst`): Meta needs each 200 at once, the applying can wait a few seconds.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { CHANNEL_WEBHOOK_JOB, type ChannelWebhookPayload } from '../../job-kinds.js';
import { enqueueBurst, type ClaimedJob, type JobsAtCommit, type NewJob } from '../../store/jobs.js';
import { yieldForBurst } from '../../store/priority.js';
import type { DB } from '../../store/schema.js';

/** Payloads in one statement at most (Meta's are a few kilobytes each). */
const MAX_BATCH = 100;
/** Intake statements under way at once. */
const MAX_IN_FLIGHT = 2;
/** Payloads a second from which the intake is a burst; counted over BURST_WINDOW_MS. */
const BURST_RATE = 300;
const BURST_WINDOW_MS = 100;
/** How long background work yields more after the last window at the burst's rate. */
const BURST_HOLD_MS = 500;

type WebhookJob = NewJob<typeof CHANNEL_WEBHOOK_JOB>;

interface Waiting {
  job: WebhookJob;
  committed: () => void;
  failed: (error: unknown) => void;
}

export class ChannelWebhookIntake {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Jobs claimed at insert for this process's worker and not yet handed to it: not counted in its room yet. */
  private reserved = 0;
  /** The current window of arrivals (performance.now()) and the payloads in it. */
  private windowStart = -Infinity;
  private inWindow = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly jobs?: JobsAtCommit,
  ) {}

  /** Resolves once the payload is committed as a CHANNEL_WEBHOOK_JOB. */
  accept(provider: ChannelWebhookPayload['provider'], body: string, baseUrl: string): Promise<void> {
    this.countArrival();
    const receivedAt = this.clock.now().toISOString();
    const job: WebhookJob = {
      kind: CHANNEL_WEBHOOK_JOB,
      accountId: null,
      payload: { provider, body, received_at: receivedAt, base_url: baseUrl },
    };
    return new Promise((committed, failed) => {
      this.waiting.push({ job, committed, failed });
      this.schedule();
    });
  }

  private countArrival(): void {
    const now = performance.now();
    if (now - this.windowStart >= BURST_WINDOW_MS) [this.windowStart, this.inWindow] = [now, 0];
    if (++this.inWindow === (BURST_RATE * BURST_WINDOW_MS) / 1000) yieldForBurst(BURST_HOLD_MS);
  }

  /** Commits what waits once the requests read in this turn of the event loop have joined it. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < MAX_IN_FLIGHT && this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        this.inFlight += 1;
        void this.commit(batch).finally(() => {
          this.inFlight -= 1;
          this.schedule();
        });
      }
    });
  }

  /** Never throws: each waiting request hears its own outcome. */
  private async commit(batch: readonly Waiting[]): Promise<void> {
    let claimed: ClaimedJob[];
    try {
      claimed = await this.insert(batch.map((w) => w.job));
    } catch (error) {
      const [only] = batch;
      if (batch.length === 1 && only) return only.failed(error);
      // One payload the database refuses must not fail the others: each alone.
      for (const w of batch) await this.commit([w]);
      return;
    }
    for (const w of batch) w.committed();
    this.jobs?.runSoon(claimed);
  }

  private async insert(jobs: readonly WebhookJob[]): Promise<ClaimedJob[]> {
    const room = Math.min(jobs.length, Math.max(0, (this.jobs?.room?.() ?? 0) - this.reserved));
    const claim = room > 0 ? this.jobs?.claimAtInsert(CHANNEL_WEBHOOK_JOB) : undefined;
    const mine = claim ? room : 0;
    this.reserved += mine;
    try {
      // The others notify the idle workers (of any process) at commit.
      const claimed = claim ? { jobs: jobs.slice(0, mine), claim } : undefined;
      return await enqueueBurst(this.db, this.clock.now(), claimed, jobs.slice(mine));
    } finally {
      this.reserved -= mine;
    }
  }
}
