// The nine /v1/webhooks routes; the rules live in domain/webhooks.
import {
  deliveryView,
  listWebhookDeliveries,
  retryWebhookDelivery,
  type DeliveryFilters,
} from '../../domain/webhooks/deliveries-log.js';
import {
  createWebhook,
  deleteWebhook,
  endpointView,
  getWebhook,
  listWebhooks,
  replayCreatedWebhook,
  rotateWebhookSecret,
  updateWebhook,
  withSecret,
  type WebhookCaller,
  type WebhookDeps,
} from '../../domain/webhooks/endpoints.js';
import { sendTestEvent } from '../../domain/webhooks/test-event.js';
import type { AppContext, Caller, Handlers, Replayers } from '../context.js';
import { pageRequest, stringParam } from '../page.js';

const deps = (app: AppContext): WebhookDeps => ({
  db: app.database.db,
  clock: app.clock,
  targets: app.webhookTargets,
});

const keyOf = (caller: Caller): WebhookCaller => ({
  accountId: caller.account.id,
  key: caller.key,
  scopes: caller.key.scopes,
});

export const webhookHandlers: Handlers = {
  listWebhooks: async ({ app, caller }) => {
    const now = app.clock.now();
    const rows = await listWebhooks(app.database.db, caller.account.id);
    return { status: 200, body: { data: rows.map((row) => endpointView(row, now)), next_cursor: null } };
  },
  createWebhook: async ({ app, caller, body }) => {
    const row = await createWebhook(deps(app), keyOf(caller), {
      url: body.url,
      event_types: body.event_types,
      ...(body.description !== undefined ? { description: body.description } : {}),
    });
    return { status: 201, body: withSecret(row, app.clock.now()) };
  },
  getWebhook: async ({ app, caller, params }) => ({
    status: 200,
    body: endpointView(await getWebhook(app.database.db, caller.account.id, params.webhookId), app.clock.now()),
  }),
  updateWebhook: async ({ app, caller, params, body }) => {
    const row = await updateWebhook(deps(app), keyOf(caller), params.webhookId, {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.event_types !== undefined ? { event_types: body.event_types } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
    });
    return { status: 200, body: endpointView(row, app.clock.now()) };
  },
  deleteWebhook: async ({ app, caller, params }) => ({
    status: 200,
    body: await deleteWebhook(deps(app), keyOf(caller), params.webhookId),
  }),
  rotateWebhookSecret: async ({ app, caller, params }) => {
    const row = await rotateWebhookSecret(deps(app), keyOf(caller), params.webhookId);
    return { status: 200, body: withSecret(row, app.clock.now()) };
  },
  testWebhook: async ({ app, caller, params }) => ({
    status: 200,
    body: await sendTestEvent({ ...deps(app), logger: app.logger }, caller.account.id, params.webhookId),
  }),
  listWebhookDeliveries: async ({ app, caller, params, query }) => {
    const filters: DeliveryFilters = {
      status: stringParam(query.status),
      eventType: stringParam(query.event_type),
      eventId: stringParam(query.event_id),
    };
    const page = await listWebhookDeliveries(
      app.database.db,
      app.clock,
      caller.account.id,
      params.webhookId,
      filters,
      pageRequest(query),
    );
    return { status: 200, body: { data: page.data.map(deliveryView), next_cursor: page.next_cursor } };
  },
  retryWebhookDelivery: async ({ app, caller, params }) => ({
    status: 202,
    body: deliveryView(
      await retryWebhookDelivery(app.database.db, app.clock, keyOf(caller), params.webhookId, params.deliveryId),
    ),
  }),
};

export const webhookReplayers: Replayers = {
  // A repeated register answers the endpoint as it is now with its current secret (404 once deleted).
  createWebhook: async (answer, { app, caller }) => {
    const firstId = answer.body.id;
    return { ...answer, body: await replayCreatedWebhook(app.database.db, app.clock, caller.account.id, firstId) };
  },
};
