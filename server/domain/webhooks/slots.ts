// The in-flight slots of a webhook endpoint, as the jobs of its deliveries see them: a job that finds every slot
// taken waits on the endpoint's slot key (server/store/jobs.ts, parkJob) and is woken by the attempt that frees
// one. Whatever ends the endpoint's pending deliveries wakes all its waiters, which then find nothing to do.
import type { Kysely, Transaction } from 'kysely';
import { forgetEveryWorker } from '../../store/job-workers.js';
import { releaseEveryClaim, wakeJobs } from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';
import { clearInFlightSlot, clearInFlightSlots } from '../../store/webhook-deliveries.js';
import { deleteDeliveriesOfEndpoint, failPendingDeliveries } from '../../store/webhook-endpoints.js';

/** The key the jobs of an endpoint's deliveries wait on when its in-flight slots are all taken. */
export function slotKey(webhookId: string): string {
  return `webhook.slot:${webhookId}`;
}

/**
 * Fails the endpoint's pending deliveries (disabled, by the account or for failing) and wakes the jobs waiting
 * for its slots, which then find their delivery no longer pending and end. Returns how many were failed.
 */
export async function dropPendingDeliveries(
  trx: Transaction<DB>,
  accountId: string,
  webhookId: string,
  lastError: 'endpoint_disabled',
): Promise<number> {
  const dropped = await failPendingDeliveries(trx, accountId, webhookId, lastError);
  await wakeJobs(trx, slotKey(webhookId), null);
  return dropped;
}

/** Deletes the endpoint's deliveries (the endpoint is deleted) and wakes the jobs waiting for its slots. */
export async function deleteEndpointDeliveries(
  trx: Transaction<DB>,
  accountId: string,
  webhookId: string,
): Promise<number> {
  const deleted = await deleteDeliveriesOfEndpoint(trx, accountId, webhookId);
  await wakeJobs(trx, slotKey(webhookId), null);
  return deleted;
}

/**
 * The attempt of `deliveryId` was cut short (its worker is gone, server/jobs/liveness.ts): its in-flight slot is
 * free now rather than when its lease runs out, and one job waiting for the endpoint's slots wakes.
 */
export async function releaseAbandonedSlot(trx: Transaction<DB>, deliveryId: string): Promise<void> {
  const webhookId = await clearInFlightSlot(trx, deliveryId);
  if (webhookId) await wakeJobs(trx, slotKey(webhookId), 1);
}

/**
 * An embedded server starting (it owns its data directory): the jobs and webhook slots the previous process
 * held when it died are freed at once instead of when their leases run out (5 minutes for a job, 40 s for a
 * slot). The attempts cut short go out again (at least once). Returns what was freed.
 */
export async function recoverFromDeadProcess(
  db: Kysely<DB>,
): Promise<{ jobs: number; workers: number; slots: number }> {
  return db.transaction().execute(async (trx) => ({
    jobs: await releaseEveryClaim(trx),
    workers: await forgetEveryWorker(trx),
    slots: await clearInFlightSlots(trx),
  }));
}
