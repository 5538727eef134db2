// The delivery log of an endpoint and the resend (Part C, Delivery; decisions "Deliveries list" and "Test and
// resend"): deliveries are kept 7 days, so the list shows only those and an older one answers 404.
//
// A resend puts a failed or succeeded delivery back to pending, due at once, with its attempts, last_error and
// delivered_at kept, and enqueues a `webhook.deliver` job in the same transaction: the attempt numbers itself
// attempts + 1 and continues the schedule from there (server/domain/webhooks/delivery.ts). A pending delivery
// is answered as it is.
import type { Kysely } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import {
  findDelivery,
  findEndpoint,
  listDeliveries,
  requeueDelivery,
  type DeliveryFilters,
  type WebhookDeliveryRow,
} from '../../store/webhook-endpoints.js';
import { findDelivery as findDeliveryById } from '../../store/webhook-deliveries.js';
import { RETENTION_MS, scheduleAttempt } from './delivery.js';
import { requireApiEnabledAccount, requireReadScopes, type WebhookCaller } from './endpoints.js';

/** How long deliveries are kept (and listed, and resendable): 7 days, as the retention prune. */
export const DELIVERY_RETENTION_MS = RETENTION_MS;

export type DeliveryView = components['schemas']['WebhookDelivery'];

export type { DeliveryFilters };

export function deliveryView(row: WebhookDeliveryRow): DeliveryView {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: { id: row.event_id, type: row.event_type, created_at: row.event_created_at },
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_attempt_at: row.last_attempt_at,
    last_response_status: row.last_response_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
  };
}

/**
 * The delivery as the admin event stream pushes it when it changes (the list's form), or undefined when it is
 * gone or not the account's.
 */
export async function deliveryOfAccount(
  db: Kysely<DB>,
  accountId: string,
  deliveryId: string,
): Promise<DeliveryView | undefined> {
  const row = await findDeliveryById(db, deliveryId);
  return row && row.account_id === accountId ? deliveryView(row) : undefined;
}

const endpointNotFound = () => notFound('No such webhook endpoint.');
const deliveryNotFound = () => notFound('No such delivery (deliveries are kept 7 days).');
/** The oldest creation moment still kept at `now` (exclusive). */
const keptSince = (now: Date) => new Date(now.getTime() - DELIVERY_RETENTION_MS).toISOString();

/** GET /v1/webhooks/{id}/deliveries: 404 for an endpoint that is not the account's (or deleted). */
export async function listWebhookDeliveries(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  webhookId: string,
  filters: DeliveryFilters,
  page: PageRequest,
): Promise<Page<WebhookDeliveryRow>> {
  const codec = await cursorCodec(db, clock);
  if (!(await findEndpoint(db, accountId, webhookId))) throw endpointNotFound();
  return listDeliveries(db, codec, accountId, webhookId, filters, keptSince(clock.now()), page);
}

/**
 * POST …/deliveries/{id}/retry. Order of the answers: 404 (endpoint, delivery, older than 7 days), 403
 * api_disabled, 403 insufficient_scope (the read scope of the delivery's event type), 409 webhook_disabled,
 * then the pending delivery as it is or the delivery back in the queue.
 */
export async function retryWebhookDelivery(
  db: Kysely<DB>,
  clock: Clock,
  caller: WebhookCaller,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow> {
  return db.transaction().execute(async (tx) => {
    // Shared lock: a concurrent disable (which takes the row for update and fails pending deliveries) waits
    // for this resend, or this resend sees the endpoint disabled.
    const endpoint = await findEndpoint(tx, caller.accountId, webhookId, { forShare: true });
    if (!endpoint) throw endpointNotFound();
    const delivery = await findDelivery(tx, caller.accountId, webhookId, deliveryId, { forUpdate: true });
    const now = clock.now();
    if (!delivery || Date.parse(delivery.created_at) <= now.getTime() - DELIVERY_RETENTION_MS) throw deliveryNotFound();
    await requireApiEnabledAccount(tx, caller.accountId);
    requireReadScopes(caller, [delivery.event_type]);
    if (endpoint.status !== 'enabled')
      throw new ApiError(409, 'webhook_disabled', 'The endpoint is disabled: enable it first.');
    if (delivery.status === 'pending') return delivery;
    const requeued = await requeueDelivery(tx, caller.accountId, deliveryId, now.toISOString());
    if (!requeued) return delivery;
    await scheduleAttempt(tx, requeued, now, now);
    return requeued;
  });
}
