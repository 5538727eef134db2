// Examples of the webhooks area: endpoints, deliveries, the test route, their errors, and one body per event
// type of the `webhooks` section. Drawn from the seeded world: the contacts, connections, tags and fields in
// the events are the world's (through the contacts builder's helpers), and message, run and event ids are the
// world's reserved ids.
import { createHmac } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import type { AreaBuilder, ExampleSet, World } from './world.js';
import { at } from './world.js';
import { connectionOf, contactOf, fieldValue, tagSummary } from './contacts.js';
import { messagingFixtures, type Message } from './messaging.js';

type EventType =
  | 'message.received'
  | 'comment.received'
  | 'live_comment.received'
  | 'message.sent'
  | 'message.updated'
  | 'message.deleted'
  | 'message.failed'
  | 'contact.created'
  | 'contact.tagged'
  | 'contact.untagged'
  | 'contact.custom_fields_updated'
  | 'workflow_run.ended'
  | 'link.clicked'
  | 'connection.connected'
  | 'connection.disconnected'
  | 'webhook.test';

/** Minutes after attempt 1 at which attempts 1 to 10 go out (1 min, 5 min, 30 min, 2 h, 5 h, then 10 h each). */
export const ATTEMPT_OFFSETS_MIN = [0, 1, 6, 36, 156, 456, 1056, 1656, 2256, 2856] as const;

// The worked example of spec/webhooks/parameters/ServiceSignature.yaml signs the WebhookTestEvent example with
// the secret of WebhookCreated: these values are fixed here (not drawn) so that example stays true. The build
// fails if the signature below no longer matches them.
const TEST_EVENT_ID = '01b78d2b-6fe1-4bc8-8a92-d07a6f69e916';
const CRM_SECRET = 'whsec_KeDSJIiwaOQfesecYYJpC4oBrumhZOgm';
const WORKED_T = 1795183201;
const WORKED_V1 = '9203673dd3d50b7706e6f69ce4cf32140f16df879710bfc272b032f1ad975c0c';

function pick<T>(list: readonly T[], i: number): T {
  const v = list[i];
  if (v === undefined) throw new Error(`world list has no item ${i}`);
  return v;
}

const build: AreaBuilder = (w: World, f: Faker) => {
  const set: ExampleSet = {};
  const add = (name: string, summary: string, value: unknown, description?: string) => {
    if (set[name]) throw new Error(`duplicate example ${name}`);
    set[name] = description ? { summary, description, value } : { summary, value };
  };
  const err = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });
  const secret = () => `whsec_${f.string.alphanumeric(32)}`;
  const domain = `${w.account.alias}.com`;
  const webhookId = (i: number) => pick(w.ids.webhooks, i);
  const eventId = (i: number) => pick(w.ids.events, i);
  const deliveryId = (i: number) => pick(w.ids.deliveries, i);

  // ---------------------------------------------------------------- endpoints
  const crmTypes = [
    'comment.received',
    'contact.created',
    'contact.custom_fields_updated',
    'contact.tagged',
    'contact.untagged',
    'message.received',
    'message.sent',
  ];
  const crmCreatedAt = at(-60 * 24 * 30, 418);
  const crm = {
    id: webhookId(0),
    url: `https://crm.${domain}/webhooks/engagement`,
    description: 'CRM sync (production)',
    event_types: crmTypes,
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    // every attempt since the one 25 minutes ago failed (see the pending delivery)
    failing_since: at(-25, 830),
    previous_secret_expires_at: null,
    created_at: crmCreatedAt,
    updated_at: at(-60 * 24 * 6, 87),
  };
  const analyticsCreatedAt = at(-60 * 24 * 10, 905);
  const rotatedAt = at(-60 * 3, 226);
  const analytics = {
    id: webhookId(1),
    url: `https://analytics.${domain}/hooks/automations`,
    description: null,
    event_types: ['link.clicked', 'workflow_run.ended'],
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    previous_secret_expires_at: at(-60 * 3 + 60 * 24, 226),
    created_at: analyticsCreatedAt,
    updated_at: rotatedAt,
  };
  const staging = {
    id: webhookId(2),
    url: `https://staging.${domain}/hooks/engagement`,
    description: 'Staging: connection alerts',
    event_types: ['connection.connected', 'connection.disconnected', 'message.failed'],
    status: 'disabled',
    disabled_reason: 'failing',
    disabled_at: at(-60 * 24 * 2, 530),
    failing_since: at(-60 * 24 * 5, 530),
    previous_secret_expires_at: null,
    created_at: at(-60 * 24 * 60, 12),
    updated_at: at(-60 * 24 * 2, 530),
  };

  add('WebhookList', 'Three endpoints, newest first, in one page', {
    data: [analytics, crm, staging],
    next_cursor: null,
  });
  add(
    'WebhookListLimitRefused',
    '`limit` sent to the endpoint list',
    {
      type: 'error',
      message: 'The request does not follow the API format.',
      context: { details: [{ location: 'query', path: 'limit', message: 'unknown query parameter: limit' }] },
    },
    'The endpoint list is one page and takes no `limit` or `cursor`.',
  );

  add(
    'CreateWebhookRequest',
    'Messages and contacts for a CRM',
    {
      url: crm.url,
      description: crm.description,
      event_types: [
        'message.received',
        'message.sent',
        'comment.received',
        'contact.created',
        'contact.tagged',
        'contact.untagged',
        'contact.custom_fields_updated',
        'message.received',
      ],
    },
    'Repeats are stored once and the list is stored in alphabetical order (see the response).',
  );
  add('CreateWebhookRequestAutomations', 'Automation events, no description', {
    url: analytics.url,
    event_types: ['workflow_run.ended', 'link.clicked'],
  });
  const crmSecret = CRM_SECRET;
  add('WebhookCreated', 'Registered, with its secret', {
    ...crm,
    failing_since: null,
    updated_at: crmCreatedAt,
    secret: crmSecret,
  });
  add(
    'WebhookEndpoint',
    'An enabled endpoint whose attempts fail',
    crm,
    'Every attempt has failed since `failing_since` (the receiver answers 503). If that lasts 3 days the service disables the endpoint.',
  );
  add(
    'WebhookEndpointDisabledFailing',
    'Disabled by the service after 3 days of failures',
    staging,
    'Every attempt failed from `failing_since` on; after 3 days the service disabled the endpoint and e-mailed the account owner. `PATCH` `status` `enabled` once the receiver is fixed.',
  );

  const crmPlus = [...crmTypes, 'message.deleted', 'message.updated'].sort();
  add('UpdateWebhookEventTypes', 'Replace the event types (whole list)', {
    event_types: [...crmTypes, 'message.updated', 'message.deleted'],
  });
  add('UpdateWebhookUrl', 'Move to a new URL', { url: `https://crm.${domain}/webhooks/engagement/v2` });
  add('UpdateWebhookDisable', 'Disable', { status: 'disabled' });
  add('UpdateWebhookEnable', 'Enable again', { status: 'enabled' });
  add('WebhookUpdated', 'Event types replaced', { ...crm, event_types: crmPlus, updated_at: at(0, 311) });
  add('WebhookDisabled', 'Disabled on request', {
    ...crm,
    status: 'disabled',
    disabled_reason: 'requested',
    disabled_at: at(0, 311),
    updated_at: at(0, 311),
  });
  add(
    'WebhookSecretRotated',
    'New secret; the previous one signs 24 more hours',
    { ...analytics, secret: secret() },
    'Until `previous_secret_expires_at` every delivery carries two `v1` signatures, one per secret.',
  );

  add('WebhookTestDelivered', 'Endpoint answered 200', {
    delivered: true,
    response_status: 200,
    error: null,
    duration_ms: 184,
  });
  add(
    'WebhookTestHttpStatus',
    'Endpoint answered a redirect (not followed)',
    { delivered: false, response_status: 301, error: 'http_status', duration_ms: 97 },
    'Redirects are not followed: register the final URL.',
  );
  add('WebhookTestTimeout', 'No answer in 10 seconds', {
    delivered: false,
    response_status: null,
    error: 'timeout',
    duration_ms: 10000,
  });

  // ---------------------------------------------------------------- errors
  add(
    'WebhookEventScopeMissing',
    'Key lacks the read scope of an event type',
    err('insufficient_scope', 'Subscribing to contact.created needs the scope contacts:read, which this key lacks.', {
      required_scope: 'contacts:read',
    }),
  );
  add(
    'WebhookResendScopeMissing',
    "Key lacks the read scope of the delivery's event type",
    err(
      'insufficient_scope',
      'Resending a message.sent delivery needs the scope conversations:read, which this key lacks.',
      {
        required_scope: 'conversations:read',
      },
    ),
  );
  add(
    'WebhookWriteScopeMissing',
    'Key lacks webhooks:write',
    err('insufficient_scope', 'This key lacks the scope webhooks:write.', { required_scope: 'webhooks:write' }),
  );
  add(
    'WebhookReplayDeleted',
    'Endpoint of this Idempotency-Key deleted since',
    err('not_found', 'The endpoint created with this Idempotency-Key has been deleted.'),
  );
  add('WebhookUrlInvalid', 'Not a URL', err('invalid_webhook_url', 'This is not a URL.', { reason: 'invalid' }));
  add(
    'WebhookUrlCredentials',
    'User and password in the URL',
    err('invalid_webhook_url', 'Webhook URLs cannot carry a user or password.', { reason: 'credentials' }),
  );
  add(
    'WebhookUrlPort',
    'Port other than 443',
    err('invalid_webhook_url', 'Webhook URLs cannot use a port other than 443.', { reason: 'port' }),
  );
  add(
    'WebhookUrlUnreachable',
    'Domain points to a private network',
    err('invalid_webhook_url', 'The domain does not point to a public address.', { reason: 'unreachable' }),
  );
  add('WebhookDeleted', 'Endpoint deleted', { id: webhookId(2), deleted: true });
  add(
    'WebhookWriteRateLimited',
    'Write calls used up',
    err('rate_limited', 'Too many write calls this minute.', {
      kind: 'write',
      limit: 60,
      retry_after: 23,
    }),
  );
  add(
    'WebhookSendRateLimited',
    'Send calls used up',
    err('rate_limited', 'Too many send calls this minute.', {
      kind: 'send',
      limit: 20,
      retry_after: 41,
    }),
  );
  add(
    'WebhookSubscriptionUnavailable',
    'Webhooks cannot be subscribed now',
    err('service_unavailable', 'Webhooks cannot be subscribed right now. Nothing changed; retry.'),
  );
  add(
    'WebhookSenderUnavailable',
    'Webhook service did not answer',
    err('service_unavailable', 'The webhook service did not answer. Nothing was sent; retry.'),
  );
  add(
    'WebhookDeliveryExpired',
    'Delivery older than 7 days',
    err('not_found', 'No such delivery. Deliveries are kept 7 days.'),
  );

  // ---------------------------------------------------------------- events
  // The messages are the messaging area's (same ids, same texts); an inbound message is carried as it was
  // when the event happened (not read yet).
  const fx = messagingFixtures(w);
  const { anaIg, brunoIg, anaWa } = fx;
  const envelope = (i: number, type: EventType, createdAt: string, data: unknown) => ({
    id: eventId(i),
    type,
    api_version: 'v1',
    created_at: createdAt,
    data,
  });
  const unread = (m: Message): Message => ({ ...m, read_at: null });
  const { anaInstagram: ana, bruno, carla } = w.contacts;
  const ig = w.connections.instagram;
  const commentFlow = { id: pick(w.ids.workflows, 0), title: 'Preço nos comentários' };
  const welcomeFlow = { id: pick(w.ids.workflows, 1), title: 'Boas-vindas' };
  const shopUrl = 'https://loja.example.com/tenis/runner';

  // message.received
  add(
    'MessageReceivedEvent',
    'A direct message on instagram',
    envelope(0, 'message.received', anaIg.dm.created_at, unread(anaIg.dm)),
  );
  add(
    'MessageReceivedButtonTapEvent',
    'A tap on a reply button sent through the API',
    envelope(1, 'message.received', anaIg.tap.created_at, anaIg.tap),
    'The tap arrives as a contact message whose `text` is the button title, with `button.source` `api` and `reply_to_message_id` the message that carried the button. It starts or resumes no automation.',
  );
  add(
    'MessageReceivedStoryMentionEvent',
    'The contact mentioned the account in a story',
    envelope(2, 'message.received', anaIg.storyMention.created_at, unread(anaIg.storyMention)),
    'Story replies and mentions have no event type of their own: `data.type` is `story_message` or `story_mention`. The media can answer 404 for a few seconds after the event while it is stored.',
  );

  // comment.received, live_comment.received
  add(
    'CommentReceivedEvent',
    'A comment on a post',
    envelope(3, 'comment.received', brunoIg.comment.created_at, unread(brunoIg.comment)),
  );
  add(
    'LiveCommentReceivedEvent',
    'A comment on a live',
    envelope(4, 'live_comment.received', brunoIg.live.created_at, brunoIg.live),
  );

  // message.sent
  add(
    'MessageSentEvent',
    'Your integration sent a message',
    envelope(5, 'message.sent', anaIg.sentText.created_at, anaIg.sentText),
    'Your own sends arrive too: recognize them by the message id the send returned.',
  );
  add(
    'MessageSentCommentReplyEvent',
    'An automation replied publicly to a comment',
    envelope(6, 'message.sent', brunoIg.publicReply.created_at, brunoIg.publicReply),
    'Public replies (`comment_reply`) and direct replies to comments (`comment_dm_reply`) are `message.sent` too.',
  );
  const typedInApp: Message = {
    ...anaWa.sentText,
    id: f.string.uuid(),
    sender: { type: 'unattributed', user_id: null, name: null, workflow_id: null, api_key_id: null },
    text: 'Seu pedido saiu para entrega hoje! 🚚',
    created_at: at(-90, 412),
  };
  add(
    'MessageSentUnattributedEvent',
    'Typed in the native app',
    envelope(7, 'message.sent', typedInApp.created_at, typedInApp),
    'The account sent it with no record of how (`unattributed`). Recognize your own sends by the message id the send returned, not by `sender.type`.',
  );

  // message.updated, message.deleted, message.failed
  const reaction = anaIg.greeting.reactions[0];
  add(
    'MessageUpdatedEvent',
    'The contact reacted to a message',
    envelope(8, 'message.updated', reaction ? reaction.created_at : anaIg.greeting.created_at, anaIg.greeting),
    '`data` is the message as it was at that change (instagram only).',
  );
  add(
    'MessageDeletedEvent',
    'The contact deleted a message',
    envelope(9, 'message.deleted', at(-345, 270), anaIg.removed),
    'A removed message has `is_removed` true, `text` null and no attachments.',
  );
  add(
    'MessageFailedEvent',
    'whatsapp reported a message as not delivered',
    envelope(10, 'message.failed', anaWa.failed.failure?.failed_at ?? anaWa.failed.created_at, anaWa.failed),
  );

  // contact events: each contact ends in the state the contacts examples show
  add(
    'ContactCreatedEvent',
    'A whatsapp contact created with a tag and a value',
    envelope(11, 'contact.created', carla.created_at, {
      ...contactOf(w, 'carla'),
      last_interaction_at: carla.created_at,
      updated_at: carla.created_at,
    }),
    'A contact created with tags or values yields this one event carrying them, not also tagged or updated events.',
  );
  const anaWaTaggedAt = at(-60 * 24 * 19, 77);
  add(
    'ContactTaggedEvent',
    'A tag put on a contact',
    envelope(12, 'contact.tagged', anaWaTaggedAt, {
      contact: {
        ...contactOf(w, 'anaWhatsapp', { values: {} }),
        last_interaction_at: at(-60 * 24 * 19 - 2),
        updated_at: at(-60 * 24 * 19 - 2),
      },
      tags: [tagSummary(w, 'vip')],
    }),
  );
  add(
    'ContactUntaggedEvent',
    'A tag removed from a contact',
    envelope(13, 'contact.untagged', at(-6, 561), {
      contact: contactOf(w, 'anaWhatsapp'),
      tags: [tagSummary(w, 'newsletter')],
    }),
    'Removing a tag removes it from every contact of the same person; each contact that had it emits its own event.',
  );
  const fieldsUpdatedAt = at(-25, 808);
  add(
    'ContactCustomFieldsUpdatedEvent',
    'One value written, one cleared',
    envelope(14, 'contact.custom_fields_updated', fieldsUpdatedAt, {
      contact: contactOf(w, 'anaInstagram'),
      custom_fields: [fieldValue(w, 'city', null), fieldValue(w, 'plan', 'pro')],
    }),
    '`value` is null for a cleared field; a dropdown value is the option `value`, also when it was written with its label.',
  );

  // automation events
  const step = (
    node: string | null,
    type: string,
    start: string,
    end: string,
    output: number | null,
    message: string | null = null,
  ) => ({
    node_id: node,
    type,
    status: 'completed',
    output,
    message_id: message,
    error: null,
    started_at: start,
    ended_at: end,
  });
  const greetingAt = anaIg.greeting.created_at;
  add(
    'WorkflowRunEndedEvent',
    'A run completed',
    envelope(15, 'workflow_run.ended', at(-2 * 24 * 60, 1), {
      id: pick(w.ids.runs, 0),
      workflow_id: welcomeFlow.id,
      version_id: pick(w.ids.versions, 1),
      contact_id: ana.id,
      channel: { type: 'instagram', connection_id: ig.id },
      source: 'trigger',
      status: 'completed',
      created_at: at(-2 * 24 * 60 - 0.05, 640),
      updated_at: at(-2 * 24 * 60, 1),
      ended_at: at(-2 * 24 * 60, 1),
      steps: [
        step('root', 'root', at(-2 * 24 * 60 - 0.04, 12), at(-2 * 24 * 60 - 0.04, 15), 0),
        step('boas_vindas', 'message', at(-2 * 24 * 60 - 0.04, 20), greetingAt, 0, anaIg.greeting.id),
      ],
      steps_truncated: false,
    }),
    '`data` is the run as `GET /v1/workflows/{workflowId}/runs/{runId}` returns it, with its steps.',
  );
  const privateReplyId = f.string.uuid();
  const clickedAt = at(-170, 180);
  add(
    'WorkflowRunEndedStoppedEvent',
    'A run stopped after a link click (window closed)',
    envelope(16, 'workflow_run.ended', at(-170, 260), {
      id: pick(w.ids.runs, 1),
      workflow_id: commentFlow.id,
      version_id: pick(w.ids.versions, 0),
      contact_id: bruno.id,
      channel: { type: 'instagram', connection_id: ig.id },
      source: 'trigger',
      status: 'stopped',
      created_at: at(-180.5, 540),
      updated_at: at(-170, 260),
      ended_at: at(-170, 260),
      steps: [
        step('root', 'root', at(-180.5, 600), at(-180.5, 602), 0),
        step('responder_preco', 'buttons', at(-180.5, 610), at(-170, 200), 0, privateReplyId),
        step(null, 'public_reply', at(-180, 40), brunoIg.publicReply.created_at, null, brunoIg.publicReply.id),
        {
          node_id: 'detalhes_produto',
          type: 'message',
          status: 'failed',
          output: null,
          message_id: null,
          error: { code: 'messaging_window_closed', message: 'The contact has not written in the last 24 hours.' },
          started_at: at(-170, 210),
          ended_at: at(-170, 258),
        },
      ],
      steps_truncated: false,
    }),
    'Started by a comment: the private reply carried a link button. On instagram a link click follows the button output but does not open the 24-hour window, so the next message could not go out and the run stopped.',
  );
  add(
    'LinkClickedEvent',
    'A contact opened a link button',
    envelope(17, 'link.clicked', clickedAt, {
      workflow_id: commentFlow.id,
      run_id: pick(w.ids.runs, 1),
      contact_id: bruno.id,
      node_id: 'responder_preco',
      button_id: 'ver_na_loja',
      url: shopUrl,
      clicked_at: clickedAt,
    }),
  );
  add(
    'LinkClickedUnknownEvent',
    'A click by a contact the account no longer has',
    envelope(18, 'link.clicked', at(-60 * 9, 14), {
      workflow_id: commentFlow.id,
      run_id: null,
      contact_id: null,
      node_id: null,
      button_id: null,
      url: shopUrl,
      clicked_at: at(-60 * 9, 14),
    }),
    'Each field is null when unknown; `contact_id` is null for a contact the account no longer has.',
  );

  // connection events
  add(
    'ConnectionConnectedEvent',
    'A whatsapp number finished its setup',
    envelope(19, 'connection.connected', at(-60 * 24 * 380 + 9, 222), connectionOf(w.connections.whatsapp)),
    'The number was added 9 minutes earlier (`data.created_at`); the event goes out when its setup finishes.',
  );
  const disconnectId = f.string.uuid();
  add(
    'ConnectionDisconnectedEvent',
    'The channel withdrew access to a number',
    {
      id: disconnectId,
      type: 'connection.disconnected',
      api_version: 'v1',
      created_at: at(-60 * 24 * 3, 640),
      data: connectionOf(w.connections.whatsappOld),
    },
    '`disconnect_reason` `authorization_lost`: reconnect in the console.',
  );
  // webhook.test
  const testEvent = {
    id: TEST_EVENT_ID,
    type: 'webhook.test',
    api_version: 'v1',
    created_at: at(0, 0),
    data: { webhook_id: crm.id },
  };
  const v1 = createHmac('sha256', crmSecret)
    .update(`${WORKED_T}.${JSON.stringify(testEvent)}`)
    .digest('hex');
  if (v1 !== WORKED_V1) throw new Error(`the worked signature example is stale: v1 is now ${v1}`);
  add('WebhookTestEvent', 'The test event', testEvent);

  // ---------------------------------------------------------------- deliveries (endpoint `crm`)
  // The CRM endpoint has answered 503 since the contact.custom_fields_updated event 25 minutes ago (its
  // `failing_since`): that delivery is pending, on its 4th attempt at the scheduled time.
  const attemptAt = (createdMin: number, n: number, micros = 0) =>
    at(createdMin + pick(ATTEMPT_OFFSETS_MIN, n - 1), micros);
  const receivedAt = anaIg.dm.created_at;
  const dSucceeded = {
    id: deliveryId(0),
    webhook_id: crm.id,
    event: { id: eventId(0), type: 'message.received', created_at: receivedAt },
    status: 'succeeded',
    attempts: 1,
    next_attempt_at: null,
    last_attempt_at: at(-40, 950),
    last_response_status: 200,
    last_error: null,
    delivered_at: at(-40, 950),
    created_at: at(-40, 930),
  };
  const dPending = {
    id: deliveryId(1),
    webhook_id: crm.id,
    event: { id: eventId(14), type: 'contact.custom_fields_updated', created_at: fieldsUpdatedAt },
    status: 'pending',
    attempts: 3,
    next_attempt_at: attemptAt(-25, 4, 830),
    last_attempt_at: attemptAt(-25, 3, 830),
    last_response_status: 503,
    last_error: 'http_status',
    delivered_at: null,
    created_at: at(-25, 820),
  };
  const failedCreated = -60 * 24 * 3;
  const dFailed = {
    id: deliveryId(2),
    webhook_id: crm.id,
    event: { id: f.string.uuid(), type: 'message.sent', created_at: at(failedCreated, 40) },
    status: 'failed',
    attempts: 10,
    next_attempt_at: null,
    last_attempt_at: attemptAt(failedCreated, 10, 70),
    last_response_status: null,
    last_error: 'timeout',
    delivered_at: null,
    created_at: at(failedCreated, 52),
  };
  const dRecovered = {
    id: deliveryId(3),
    webhook_id: crm.id,
    event: { id: eventId(11), type: 'contact.created', created_at: carla.created_at },
    status: 'succeeded',
    attempts: 2,
    next_attempt_at: null,
    last_attempt_at: attemptAt(-60 * 24 * 2, 2, 31),
    last_response_status: 204,
    last_error: null,
    delivered_at: attemptAt(-60 * 24 * 2, 2, 31),
    created_at: at(-60 * 24 * 2, 3),
  };
  const nextCursor = `${Buffer.from(
    JSON.stringify({ l: 'webhook_deliveries', w: crm.id, c: dFailed.created_at, i: dFailed.id }),
  ).toString('base64url')}.${f.string.alphanumeric(22)}`;
  add(
    'WebhookDeliveryList',
    'First page (`limit=4`), newest first',
    { data: [dPending, dSucceeded, dRecovered, dFailed], next_cursor: nextCursor },
    'Pass `next_cursor` as `cursor` (with the same filters) for the next page.',
  );
  add('WebhookDeliveryListFailed', 'status=failed', { data: [dFailed], next_cursor: null });
  add(
    'WebhookDeliveryRetried',
    'A failed delivery back in the queue',
    { ...dFailed, status: 'pending', next_attempt_at: at(0, 512) },
    'It had used all 10 attempts: the resend is its only attempt (`attempts` becomes 11) and it fails again if that attempt fails.',
  );
  add(
    'WebhookDeliveryAlreadyPending',
    'A pending delivery, answered as it is',
    dPending,
    'Nothing changed: the next attempt follows the schedule.',
  );

  return set;
};

export default build;
