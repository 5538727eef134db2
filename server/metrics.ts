// The metrics a process keeps for itself, which any room may count (they hold no account data): the default
// process metrics and what the webhook delivery engine decided. The HTTP metrics are each app's and the jobs'
// gauges are read at scrape time (http/observability.ts); in a cluster (WEB_CONCURRENCY > 1) the primary sums
// every server process's registries (http/cluster-metrics.ts).
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

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
