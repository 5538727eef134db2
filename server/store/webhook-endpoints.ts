// SQL of the /v1/webhooks routes: endpoints (soft-deleted: `deleted_at` set, every read filters it) and the part
// of their deliveries the routes touch (the log, a resend, failing or dropping pending ones). Every query
// filters by account. The attempts themselves (claims, leases, outcomes) live in ./webhook-deliveries.ts.
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { AccountRow } from './accounts.js';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import { notifyDeliveryChanged } from './webhook-deliveries.js';
import type { DB, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookEndpointChanges = Omit<
  Updateable<WebhookEndpointsTable>,
  'id' | 'account_id' | 'created_at' | 'deleted_at' | 'secret' | 'previous_secret'
>;

/**
 * The account row, locked until the transaction ends: registrations of one account queue behind each other,
 * so counting its endpoints and inserting one cannot interleave (at most 10, also under concurrency).
 */
export async function lockAccount(tx: Kysely<DB>, accountId: string): Promise<AccountRow | undefined> {
  return tx.selectFrom('accounts').selectAll().where('id', '=', accountId).forUpdate().executeTakeFirst();
}

/** The account's endpoints that exist (enabled and disabled; deleted ones do not count). */
export async function countEndpoints(db: Kysely<DB>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Inserts the endpoint and answers it as stored (timestamps with microseconds). */
export async function insertEndpoint(db: Kysely<DB>, row: WebhookEndpointRow): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The endpoint, or undefined (no such endpoint, another account's, or deleted unless `withDeleted`). */
export async function findEndpoint(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  options: { forUpdate?: boolean; forShare?: boolean; withDeleted?: boolean } = {},
): Promise<WebhookEndpointRow | undefined> {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId);
  if (!options.withDeleted) q = q.where('deleted_at', 'is', null);
  if (options.forUpdate) q = q.forUpdate();
  else if (options.forShare) q = q.forShare();
  return q.executeTakeFirst();
}

/** GET /v1/webhooks: every endpoint of the account, newest first (`created_at`, then id). */
export async function listEndpoints(db: Kysely<DB>, accountId: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function updateEndpoint(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  changes: WebhookEndpointChanges,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** A new secret; the one it replaces signs too until `previousExpiresAt`. Any older previous secret is dropped. */
export async function rotateEndpointSecret(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  secret: string,
  previousExpiresAt: string,
  now: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      previous_secret: sql<string>`secret`,
      previous_secret_expires_at: previousExpiresAt,
      secret,
      updated_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Marks the endpoint deleted; false when it did not exist (any more). */
export async function markEndpointDeleted(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: now, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes every delivery of the endpoint (its log goes with it); their jobs find nothing and stop. */
export async function deleteDeliveriesOfEndpoint(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Fails every pending delivery of the endpoint with `lastError` (`endpoint_disabled` when it is disabled):
 * they stay in the log and can be resent once it is enabled. Their jobs find them no longer pending and stop.
 */
export async function failPendingDeliveries(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  lastError: NonNullable<WebhookDeliveryRow['last_error']>,
): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: lastError, next_attempt_at: null, in_flight_until: null })
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .returning(notifyDeliveryChanged())
    .execute();
  return result.length;
}

export interface DeliveryFilters {
  status?: 'pending' | 'succeeded' | 'failed' | undefined;
  eventType?: WebhookDeliveryRow['event_type'] | undefined;
  eventId?: string | undefined;
}

/**
 * GET /v1/webhooks/{id}/deliveries: the endpoint's deliveries created after `since` (the 7 days kept), newest
 * first (`created_at`, then id), filtered; cursors bound to the endpoint and the filters.
 */
export async function listDeliveries(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  webhookId: string,
  filters: DeliveryFilters,
  since: string,
  page: PageRequest,
): Promise<Page<WebhookDeliveryRow>> {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .where('created_at', '>', since);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.eventType !== undefined) q = q.where('event_type', '=', filters.eventType);
  if (filters.eventId !== undefined) q = q.where('event_id', '=', filters.eventId);
  return paginate(
    q,
    {
      codec,
      list: 'webhook_deliveries',
      accountId,
      parent: webhookId,
      filters: { status: filters.status, event_type: filters.eventType, event_id: filters.eventId },
      order: 'desc',
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

/** The endpoint's delivery, or undefined (another endpoint's, another account's, or gone). */
export async function findDelivery(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  deliveryId: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookDeliveryRow | undefined> {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', deliveryId);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * A resend: a failed or succeeded delivery back to pending, due at `now`, attempts, last_error and
 * delivered_at kept. Undefined when it was not failed or succeeded (already pending).
 */
export async function requeueDelivery(
  db: Kysely<DB>,
  accountId: string,
  deliveryId: string,
  now: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', deliveryId)
    .where('status', 'in', ['failed', 'succeeded'])
    .returningAll()
    .returning(notifyDeliveryChanged())
    .executeTakeFirst();
}

/**
 * The endpoints of the account (not deleted) whose URL ends with `path`: those targeting the console's built-in
 * receiver `path`, whatever host the page registered it with. Another account's endpoint aimed at the same path
 * is never among them (issue 33).
 */
export async function endpointsTargetingPath(
  db: Kysely<DB>,
  accountId: string,
  path: string,
): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`right(url, ${path.length}) = ${path}`)
    .execute();
}
