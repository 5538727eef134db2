// Webhook endpoints (Part C, Endpoint; decisions "Webhooks: webhooks and events"): register, read, change,
// delete and rotate the secret of an account's endpoints.
//
// - At most 10 per account, disabled ones included: the count runs under a lock of the account row, so
//   concurrent registrations cannot pass 10 together.
// - `event_types` are stored once each in alphabetical order; the key must hold the read scope of every type
//   (the `x-event-scope` of each event in the spec, generated into `events`) when data would start flowing:
//   on register, and on a change that sets `url` or `event_types` or enables the endpoint.
// - `403 api_disabled` where sending would start (register, and those same changes): the gateway's cache can
//   let a call through for up to a minute after the API is switched off; these refuse it then.
// - The URL rules (server/webhooks/targets.ts) are checked when a URL is set, outside the transaction (they
//   may ask DNS).
// - Register, change, delete and rotate enter the audit log with the key as actor; never the secret.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { components } from '../../../generated/api.js';
import { events as eventCatalog } from '../../../generated/operations.js';
import type { Clock } from '../../clock.js';
import { ApiError, noApiAccess, notFound } from '../../errors.js';
import { findAccount, type AccountRow } from '../../store/accounts.js';
import type { DB } from '../../store/schema.js';
import {
  countEndpoints,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  lockAccount,
  markEndpointDeleted,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpointChanges,
  type WebhookEndpointRow,
} from '../../store/webhook-endpoints.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import { checkWebhookUrl, type TargetPolicy } from '../../webhooks/targets.js';
import { audit, keyActor } from '../accounts/actor.js';
import { deleteEndpointDeliveries, dropPendingDeliveries } from './slots.js';

export const MAX_ENDPOINTS = 10;
/** How long the replaced secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

/** What the webhook rules need from the process. */
export interface WebhookDeps {
  db: Kysely<DB>;
  clock: Clock;
  /** The URL rules in force (development targets, resolver, extra CA). */
  targets: TargetPolicy;
}

/** The key making the call: its account, the key (the audit log's actor) and its scopes. */
export interface WebhookCaller {
  accountId: string;
  key: { id: string; name: string };
  scopes: readonly string[];
}

/** What the public routes show of an endpoint (never its secret). */
export type EndpointView = components['schemas']['WebhookEndpoint'];

type EventType = components['schemas']['WebhookEventType'];

export type EndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];

/** The previous secret while it still signs at `now`, else null. */
const signingPrevious = (
  row: Pick<WebhookEndpointRow, 'previous_secret' | 'previous_secret_expires_at'>,
  now: Date,
): string | null =>
  row.previous_secret !== null &&
  row.previous_secret_expires_at !== null &&
  Date.parse(row.previous_secret_expires_at) > now.getTime()
    ? row.previous_secret
    : null;

export function endpointView(row: WebhookEndpointRow, now: Date): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    failing_since: row.failing_since,
    // The overlap is over once it expires, whether or not a write has cleared the column.
    previous_secret_expires_at: signingPrevious(row, now) !== null ? row.previous_secret_expires_at : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const withSecret = (row: WebhookEndpointRow, now: Date): EndpointWithSecret => ({
  ...endpointView(row, now),
  secret: row.secret,
});

/** The secrets that sign at `now`: the current one, then the previous one during the 24 hours after a rotation. */
export function signingSecrets(
  row: Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const previous = signingPrevious(row, now);
  return previous !== null ? [row.secret, previous] : [row.secret];
}

const endpointNotFound = () => notFound('No such webhook endpoint.');

/** Repeats folded, in alphabetical order (by code unit: the same order on every machine). */
export function normaliseEventTypes<Type extends string>(types: readonly Type[]): Type[] {
  return [...new Set(types)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The catalogue of event types, looked up by any string (an unknown type finds nothing). */
const EVENT_SCOPES: Readonly<Record<string, { scope: string | null } | undefined>> = eventCatalog;

/** The read scope a key needs to receive events of `type` (the spec's `x-event-scope`). */
export function eventReadScope(type: string): string {
  const entry = EVENT_SCOPES[type];
  if (!entry?.scope) throw new Error(`no read scope is known for the event type ${type}`);
  return entry.scope;
}

/** 403 insufficient_scope naming the first read scope (in the order of the types) the key lacks. */
export function requireReadScopes(caller: WebhookCaller, types: readonly string[]): void {
  for (const type of types) {
    const scope = eventReadScope(type);
    if (!caller.scopes.includes(scope))
      throw new ApiError(403, 'insufficient_scope', `Receiving ${type} events needs the scope ${scope}.`, {
        required_scope: scope,
      });
  }
}

/**
 * The account may start sending: a suspended account gets the gateway's answer, one with the API switched off
 * `403 api_disabled` (both reach here only while the gateway's key cache is still warm).
 */
export function requireApiEnabled(account: AccountRow | undefined): void {
  if (!account || account.suspended) throw noApiAccess();
  if (!account.api_enabled) throw new ApiError(403, 'api_disabled', 'The API is switched off for this account.');
}

export async function requireApiEnabledAccount(db: Kysely<DB>, accountId: string): Promise<void> {
  requireApiEnabled(await findAccount(db, accountId));
}

/** 422 invalid_webhook_url with the reason, unless the service may send to `url`. */
export async function requireWebhookUrl(url: string, targets: TargetPolicy): Promise<void> {
  const reason = await checkWebhookUrl(url, targets);
  if (reason !== null)
    throw new ApiError(422, 'invalid_webhook_url', `The service does not send to this URL (${reason}).`, { reason });
}

/** A blank description (empty or only whitespace) is none. */
const descriptionOf = (description: string | null | undefined): string | null =>
  description === undefined || description === null || description.trim() === '' ? null : description;

export interface CreateWebhookInput {
  url: string;
  description?: string | null;
  event_types: readonly EventType[];
}

export async function createWebhook(
  deps: WebhookDeps,
  caller: WebhookCaller,
  input: CreateWebhookInput,
): Promise<WebhookEndpointRow> {
  const eventTypes = normaliseEventTypes(input.event_types);
  await requireApiEnabledAccount(deps.db, caller.accountId);
  requireReadScopes(caller, eventTypes);
  await requireWebhookUrl(input.url, deps.targets);
  return deps.db.transaction().execute(async (tx) => {
    requireApiEnabled(await lockAccount(tx, caller.accountId));
    if ((await countEndpoints(tx, caller.accountId)) >= MAX_ENDPOINTS)
      throw new ApiError(
        409,
        'webhook_limit_reached',
        `The account already has ${MAX_ENDPOINTS} webhook endpoints (disabled ones included).`,
        { limit: MAX_ENDPOINTS },
      );
    const now = deps.clock.now().toISOString();
    const row = await insertEndpoint(tx, {
      id: randomUUID(),
      account_id: caller.accountId,
      url: input.url,
      description: descriptionOf(input.description),
      event_types: eventTypes,
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      secret: newWebhookSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    });
    await audit(
      tx,
      keyActor(caller.key),
      {
        accountId: caller.accountId,
        action: 'webhook.created',
        targetType: 'webhook_endpoint',
        targetId: row.id,
        details: { url: row.url, description: row.description, event_types: row.event_types },
      },
      now,
    );
    return row;
  });
}

export async function getWebhook(db: Kysely<DB>, accountId: string, webhookId: string): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(db, accountId, webhookId);
  if (!row) throw endpointNotFound();
  return row;
}

export const listWebhooks = (db: Kysely<DB>, accountId: string) => listEndpoints(db, accountId);

/**
 * The answer to a register repeated with the same Idempotency-Key: the endpoint as it is now, with its current
 * secret; 404 when it was deleted since.
 */
export async function replayCreatedWebhook(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  webhookId: string,
): Promise<EndpointWithSecret> {
  return withSecret(await getWebhook(db, accountId, webhookId), clock.now());
}

export interface UpdateWebhookInput {
  url?: string;
  description?: string | null;
  event_types?: readonly EventType[];
  status?: 'enabled' | 'disabled';
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * PATCH: fields not sent stay. Sending what the endpoint already has changes nothing (no write, no audit
 * entry). Disabling fails the pending deliveries (`endpoint_disabled`) and keeps a `failing` reason;
 * enabling clears the reason, `disabled_at` and `failing_since`.
 */
export async function updateWebhook(
  deps: WebhookDeps,
  caller: WebhookCaller,
  webhookId: string,
  input: UpdateWebhookInput,
): Promise<WebhookEndpointRow> {
  const eventTypes = input.event_types === undefined ? undefined : normaliseEventTypes(input.event_types);
  // Data starts flowing (somewhere new, of new types, or again): the account must have the API and the key the
  // read scope of every type of the resulting list. Checked before and again under the lock.
  const startsFlowing = (row: WebhookEndpointRow) =>
    input.url !== undefined || eventTypes !== undefined || (input.status === 'enabled' && row.status === 'disabled');
  const check = (row: WebhookEndpointRow) => {
    if (startsFlowing(row)) requireReadScopes(caller, eventTypes ?? row.event_types);
  };

  const before = await getWebhook(deps.db, caller.accountId, webhookId);
  if (startsFlowing(before)) await requireApiEnabledAccount(deps.db, caller.accountId);
  check(before);
  if (input.url !== undefined && input.url !== before.url) await requireWebhookUrl(input.url, deps.targets);

  return deps.db.transaction().execute(async (tx) => {
    const row = await findEndpoint(tx, caller.accountId, webhookId, { forUpdate: true });
    if (!row) throw endpointNotFound();
    check(row);
    const changes: WebhookEndpointChanges = {};
    const details: Record<string, unknown> = {};
    if (input.url !== undefined && input.url !== row.url) {
      changes.url = details.url = input.url;
      details.previous_url = row.url;
    }
    if (input.description !== undefined) {
      const description = descriptionOf(input.description);
      if (description !== row.description) changes.description = details.description = description;
    }
    if (eventTypes !== undefined && !sameList(eventTypes, row.event_types))
      changes.event_types = details.event_types = eventTypes;
    const now = deps.clock.now().toISOString();
    let disabling = false;
    if (input.status === 'disabled' && row.status === 'enabled') {
      Object.assign(changes, { status: 'disabled', disabled_reason: 'requested', disabled_at: now });
      details.status = 'disabled';
      disabling = true;
    } else if (input.status === 'enabled' && row.status === 'disabled') {
      Object.assign(changes, { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
      details.status = 'enabled';
    }
    if (Object.keys(changes).length === 0) return row;

    const updated = await updateEndpoint(tx, caller.accountId, webhookId, { ...changes, updated_at: now });
    if (!updated) throw endpointNotFound();
    if (disabling) await dropPendingDeliveries(tx, caller.accountId, webhookId, 'endpoint_disabled');
    await audit(
      tx,
      keyActor(caller.key),
      {
        accountId: caller.accountId,
        action: 'webhook.updated',
        targetType: 'webhook_endpoint',
        targetId: webhookId,
        details,
      },
      now,
    );
    return updated;
  });
}

/** DELETE: the endpoint goes (a repeat is 404), with its deliveries; it no longer counts toward the 10. */
export async function deleteWebhook(deps: Pick<WebhookDeps, 'db' | 'clock'>, caller: WebhookCaller, webhookId: string) {
  await deps.db.transaction().execute(async (tx) => {
    const row = await findEndpoint(tx, caller.accountId, webhookId, { forUpdate: true });
    if (!row) throw endpointNotFound();
    const now = deps.clock.now().toISOString();
    if (!(await markEndpointDeleted(tx, caller.accountId, webhookId, now))) throw endpointNotFound();
    await deleteEndpointDeliveries(tx, caller.accountId, webhookId);
    await audit(
      tx,
      keyActor(caller.key),
      {
        accountId: caller.accountId,
        action: 'webhook.deleted',
        targetType: 'webhook_endpoint',
        targetId: webhookId,
        details: { url: row.url },
      },
      now,
    );
  });
  return { id: webhookId, deleted: true as const };
}

/**
 * A new secret. The replaced one signs for 24 hours from now; a previous secret still signing from an earlier
 * rotation stops at once (only two secrets ever sign).
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookDeps, 'db' | 'clock'>,
  caller: WebhookCaller,
  webhookId: string,
): Promise<WebhookEndpointRow> {
  return deps.db.transaction().execute(async (tx) => {
    if (!(await findEndpoint(tx, caller.accountId, webhookId, { forUpdate: true }))) throw endpointNotFound();
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString();
    const row = await rotateEndpointSecret(
      tx,
      caller.accountId,
      webhookId,
      newWebhookSecret(),
      expiresAt,
      now.toISOString(),
    );
    if (!row) throw endpointNotFound();
    await audit(
      tx,
      keyActor(caller.key),
      {
        accountId: caller.accountId,
        action: 'webhook.secret_rotated',
        targetType: 'webhook_endpoint',
        targetId: webhookId,
        details: { previous_secret_expires_at: row.previous_secret_expires_at },
      },
      now.toISOString(),
    );
    return row;
  });
}
