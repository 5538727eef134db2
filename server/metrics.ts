// The metrics a process keeps for itself, which any room may count (they hold no account data): the default
// process metrics and what the webhook delivery engine decided. The HTTP metrics are each app's and the jobs'
// gauges are read at scrape time (http/observability.ts); in a cluster (WEB_CONCURRENCY > 1) the primary sums
// every server process's registries (http/cluster-metrics.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { requestContext } from './request-context.js';

/** What became of a webhook delivery's job, counted once its transaction committed. */
export type DeliveryOutcome =
  /** An attempt answered 2xx. */
  | 'succeeded'
  /** An attempt failed; the next one is scheduled (server/retries.ts). */
  | 'retrying'
  /** An attempt failed and was the last one (the 10th), or the delivery had failed meanwhile. */
  | 'failed'
  /** Failed without an attempt: its endpoint disabled or deleted, or its account without the API, at send time. */
  | 'dropped';

/** The counters of this process that are not an app's: the delivery outcomes. */
export const serviceRegistry = new Registry();

const deliveryOutcomes = new Counter({
  name: 'webhook_delivery_outcomes_total',
  help: 'Webhook delivery jobs by outcome: succeeded, retrying (an attempt failed, another is scheduled), failed (the last attempt failed), dropped (no attempt: the endpoint or the account was off).',
  labelNames: ['outcome'] as const,
  registers: [serviceRegistry],
});
// Every outcome is a series from the start (0 until it happens), so a rate over it never lacks a series.
for (const outcome of ['succeeded', 'retrying', 'failed', 'dropped'] as const) deliveryOutcomes.inc({ outcome }, 0);

/** Counts one delivery outcome (after the transaction that recorded it committed). */
export function countDeliveryOutcome(outcome: DeliveryOutcome): void {
  deliveryOutcomes.inc({ outcome });
}

/** The job kind the code of the moment runs for (the worker sets it around a job): what its statements count as. */
const jobOfTheMoment = new AsyncLocalStorage<string>();

const roundTrips = new Counter({
  name: 'db_round_trips_total',
  help: "Statements, begins, commits and rollbacks sent to the database, by the work they were for: job:<kind> (a job of that kind, its completion included), request (an API request) or other (start-up, the loops' claims and sweeps).",
  labelNames: ['work'] as const,
  registers: [serviceRegistry],
});

const jobsRun = new Counter({
  name: 'jobs_run_total',
  help: 'Jobs this process ran to an end (completed, parked or failed), by kind: with db_round_trips_total, the round trips a job of a kind costs.',
  labelNames: ['kind'] as const,
  registers: [serviceRegistry],
});

/** Runs a job's work with its statements counted as that job kind's, and counts the job once it ends. */
export async function countedAsJob<T>(kind: string, work: () => Promise<T>): Promise<T> {
  try {
    return await jobOfTheMoment.run(`job:${kind}`, work);
  } finally {
    jobsRun.inc({ kind });
  }
}

/** Counts one round trip to the database (store/deadline.ts, for every statement and transaction step). */
export function countRoundTrip(): void {
  roundTrips.inc({ work: jobOfTheMoment.getStore() ?? (requestContext.getStore() ? 'request' : 'other') });
}

// Process metrics (CPU, memory, event loop, GC) are per process: registered once, on first use (a process that
// never serves /metrics, the console CLI, starts no collector).
let processRegistry: Registry | undefined;

/** The default process metrics of this process. */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
