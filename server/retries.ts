// Every retry schedule of the service, in one place. Each draws its delay at random in a window (issue 33: jobs
// that failed together in an outage must not all retry at the same instants); the source is injected (the jobs
// worker's `random`, Math.random by default), so tests fix it and a source giving 1 walks each window's top:
// - a failed job, by default: full jitter, uniform in [0, cap] with cap 30 s, 1 min, 2 min, … capped at 1 h; it
//   gives up after 10 attempts;
// - a job that hit a database fault (a webhook attempt, an automation's message, stretch or stop): full jitter
//   with cap 1 s, 2 s, 4 s, … capped at 15 min, so a delivery or a run does not stay stuck through an outage; it
//   gives up after 1,400 attempts (about a week: the mean wait is half the cap), since a fault that outlives that
//   is a bug, not an outage (issue 20);
// - a webhook delivery (Part C's table: 1 min, 5 min, 30 min, 2 h, 5 h, then 10 h; failed after the 10th
//   attempt) and an invoke call's retries (2 s, then 8 s): each wait is uniform between the step before it and
//   its own, so a retry never comes later than the table says nor sooner than the step before
//   (docs/decisions.md, "Retries with jitter").
// Each gives up with `null`; the jobs worker then logs an error and keeps the failed job (deleted after
// FAILED_JOB_RETENTION_DAYS: jobs/retention.ts). Which job kind follows which schedule is JOB_RETRY_SCHEDULES.
import {
  ADVANCE_RUN_JOB,
  DELIVER_JOB,
  FAIL_LATER_JOB,
  CHANNEL_WEBHOOK_JOB,
  TEMPLATE_SYNC_JOB,
  INBOUND_MESSAGE_JOB,
  INVOKE_JOB,
  LATER_SEND_JOB,
  PUBLIC_REPLY_JOB,
  INSTAGRAM_ECHO_JOB,
  PRUNE_JOB,
  STOP_RUNS_JOB,
  type JobKind,
} from './job-kinds.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** What a schedule reads of a job: its attempts so far, the one that just failed included. */
export interface Attempted {
  attempts: number;
}

/**
 * A source of uniform numbers in [0, 1]: Math.random in the service; a fixed or seeded one in tests (1 draws
 * each window's top, 0 its bottom).
 */
export type Random = () => number;

/** A wait between `min` and `max` ms (both included), drawn from `random`; a draw outside [0, 1] is clamped. */
export function jitter(min: number, max: number, random: Random): number {
  const draw = random();
  const r = Number.isFinite(draw) ? Math.min(Math.max(draw, 0), 1) : 1;
  return Math.round(min + (max - min) * r);
}

/** Where a wait is drawn: between `min` and `max` ms. */
export interface Window {
  min: number;
  max: number;
}

/**
 * When a failed job runs again (`job.attempts` counts the attempt that failed), or null: it gives up. `random`
 * draws the wait within the schedule's window.
 */
export type RetrySchedule = (job: Attempted, error: unknown, now: Date, random: Random) => Date | null;

const after = (now: Date, window: Window | null, random: Random) =>
  window && new Date(now.getTime() + jitter(window.min, window.max, random));

export const DEFAULT_JOB_MAX_ATTEMPTS = 10;

/** The window of the default schedule after failed attempt `n` (full jitter), or null: it gives up. */
export function defaultJobRetryWindow(n: number): Window | null {
  if (n >= DEFAULT_JOB_MAX_ATTEMPTS) return null;
  return { min: 0, max: Math.min(30_000 * 2 ** (Math.max(n, 1) - 1), HOUR) };
}

/** The default schedule of a failed job. */
export function defaultJobRetryAt(job: Attempted, _error: unknown, now: Date, random: Random): Date | null {
  return after(now, defaultJobRetryWindow(job.attempts), random);
}

/** Twice the 700 attempts of the schedule without jitter: the mean wait is half the cap, the span still a week. */
export const DATABASE_FAULT_MAX_ATTEMPTS = 1400;
const DATABASE_FAULT_MAX_DELAY_MS = 15 * MINUTE;

/** The window of the database-fault schedule after failed attempt `n` (full jitter), or null: it gives up. */
export function databaseFaultRetryWindow(n: number): Window | null {
  if (n >= DATABASE_FAULT_MAX_ATTEMPTS) return null;
  return { min: 0, max: Math.min(1000 * 2 ** Math.min(Math.max(n, 0), 20), DATABASE_FAULT_MAX_DELAY_MS) };
}

/** The schedule of a job that hit a database fault. */
export function databaseFaultRetryAt(job: Attempted, _error: unknown, now: Date, random: Random): Date | null {
  return after(now, databaseFaultRetryWindow(job.attempts), random);
}

/** The schedule of each job kind (the jobs worker's registry reads it). */
export const JOB_RETRY_SCHEDULES: Readonly<Record<JobKind, RetrySchedule>> = {
  // A database fault, not the endpoint's: try again (the delivery must not stay stuck).
  [DELIVER_JOB]: databaseFaultRetryAt,
  // Automations: a contact's message, a run's stretch, a deleted automation's runs stopping.
  [INBOUND_MESSAGE_JOB]: databaseFaultRetryAt,
  [ADVANCE_RUN_JOB]: databaseFaultRetryAt,
  [STOP_RUNS_JOB]: databaseFaultRetryAt,
  // A database fault around an invoke call (the endpoint's answers are retried by the call itself, below).
  [INVOKE_JOB]: databaseFaultRetryAt,
  // An automation's send after its stretch: claimed again, it records the outcome as unknown (engine/later-send.ts).
  [LATER_SEND_JOB]: databaseFaultRetryAt,
  // The public reply under a comment after its stretch: claimed again, it records the outcome as unknown.
  [PUBLIC_REPLY_JOB]: databaseFaultRetryAt,
  [FAIL_LATER_JOB]: defaultJobRetryAt,
  [PRUNE_JOB]: defaultJobRetryAt,
  // A payload Meta was told it was received: a fault while applying it (database, media fetch) tries again.
  [CHANNEL_WEBHOOK_JOB]: databaseFaultRetryAt,
  [TEMPLATE_SYNC_JOB]: defaultJobRetryAt,
  [INSTAGRAM_ECHO_JOB]: databaseFaultRetryAt,
};

/**
 * Part B, invoke: 3 attempts in all; a 429, a 5xx or a network error waits at most this long before the next
 * one (the seeds state the count, not the waits: these are ours).
 */
export const INVOKE_MAX_ATTEMPTS = 3;
export const INVOKE_RETRY_DELAYS_MS: readonly number[] = [2_000, 8_000];

/** The window of the wait after failed invoke attempt `n` (1 or 2): from the step before it to its own. */
export function invokeRetryWindow(n: number): Window {
  return steppedWindow(INVOKE_RETRY_DELAYS_MS, Math.min(Math.max(1, n), INVOKE_RETRY_DELAYS_MS.length));
}

/** The wait after failed invoke attempt `n`, drawn in its window. */
export function invokeRetryDelayMs(n: number, random: Random): number {
  const window = invokeRetryWindow(n);
  return jitter(window.min, window.max, random);
}

/**
 * The window of step `n` (1-based) of a stated table of waits: from the step before it (0 before the first) to
 * its own. Never past what the table states, never sooner than the step before, so the waits never shrink.
 */
function steppedWindow(table: readonly number[], n: number): Window {
  const max = table[n - 1] ?? 0;
  return { min: Math.min(table[n - 2] ?? 0, max), max };
}

/** A webhook delivery fails after this many attempts. */
export const WEBHOOK_MAX_ATTEMPTS = 10;
/** The wait after failed attempt n (index n - 1), for n = 1..9. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/**
 * The window of the wait after failed attempt `n`, or null when the delivery fails (n ≥ 10): between the step
 * before it in Part C's table and its own (1 min: [0, 1 min]; 5 min: [1 min, 5 min]; … 10 h after attempt 6:
 * [5 h, 10 h]; attempts 8 to 10, whose step before is also 10 h: 10 h exactly).
 */
export function webhookRetryWindow(n: number): Window | null {
  if (n >= WEBHOOK_MAX_ATTEMPTS) return null;
  return steppedWindow(WEBHOOK_RETRY_DELAYS_MS, Math.min(Math.max(1, n), WEBHOOK_MAX_ATTEMPTS - 1));
}

/** The wait before the attempt after failed attempt `n`, drawn in its window, or null when the delivery fails. */
export function webhookRetryDelayMs(n: number, random: Random): number | null {
  const window = webhookRetryWindow(n);
  return window && jitter(window.min, window.max, random);
}
