// Every retry schedule of the service, in one place:
// - a failed job, by default: 30 s, 1 min, 2 min, … capped at 1 h; it gives up after 10 attempts;
// - a job that hit a database fault (a webhook attempt, an automation's message, stretch or stop): 1 s, 2 s,
//   4 s, … capped at 15 min, so a delivery or a run does not stay stuck through an outage; it gives up after
//   700 attempts (about a week), since a fault that outlives that is a bug, not an outage (issue 20);
// - a webhook delivery (Part C): 1 min, 5 min, 30 min, 2 h, 5 h, then 10 h; failed after the 10th attempt.
// Each gives up with `null`; the jobs worker then logs an error and keeps the failed job. Which job kind
// follows which schedule is JOB_RETRY_SCHEDULES.
import {
  ADVANCE_RUN_JOB,
  DELIVER_JOB,
  FAIL_LATER_JOB,
  INBOUND_MESSAGE_JOB,
  INVOKE_JOB,
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

/** When a failed job runs again (`job.attempts` counts the attempt that failed), or null: it gives up. */
export type RetrySchedule = (job: Attempted, error: unknown, now: Date) => Date | null;

/** The default schedule of a failed job. */
export function defaultJobRetryAt(job: Attempted, _error: unknown, now: Date): Date | null {
  if (job.attempts >= 10) return null;
  return new Date(now.getTime() + Math.min(30_000 * 2 ** (job.attempts - 1), HOUR));
}

export const DATABASE_FAULT_MAX_ATTEMPTS = 700;
const DATABASE_FAULT_MAX_DELAY_MS = 15 * MINUTE;

/** The schedule of a job that hit a database fault. */
export function databaseFaultRetryAt(job: Attempted, _error: unknown, now: Date): Date | null {
  if (job.attempts >= DATABASE_FAULT_MAX_ATTEMPTS) return null;
  return new Date(now.getTime() + Math.min(1000 * 2 ** Math.min(job.attempts, 20), DATABASE_FAULT_MAX_DELAY_MS));
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
  [FAIL_LATER_JOB]: defaultJobRetryAt,
  [PRUNE_JOB]: defaultJobRetryAt,
};

/** Part B, invoke: 3 attempts in all; a 429, a 5xx or a network error waits this long before the next one. */
export const INVOKE_MAX_ATTEMPTS = 3;
export const INVOKE_RETRY_DELAYS_MS: readonly number[] = [2_000, 8_000];

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

/** The wait before the attempt after failed attempt `n`, or null when the delivery fails (n ≥ 10). */
export function webhookRetryDelayMs(n: number): number | null {
  if (n >= WEBHOOK_MAX_ATTEMPTS) return null;
  return WEBHOOK_RETRY_DELAYS_MS[Math.min(Math.max(1, n), WEBHOOK_MAX_ATTEMPTS - 1) - 1] ?? null;
}
