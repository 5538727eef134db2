// Examples of the webhooks area: endpoints, deliveries, the test route, their errors, and one body per event
// type of the `webhooks` section. Drawn from the seeded world: the contacts, connections, tags and fields in
// the events are the world's (through the contacts builder's helpers), and message, run and event ids are the
// world's reserved ids.
import type { Faker } from '@faker-js/faker';
import type { AreaBuilder, ExampleSet, World } from './world.js';
import { at } from './world.js';
import { connectionOf, contactOf, fieldValue, tagSummary } from './contacts.js';

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
  const messageId = (i: number) => pick(w.ids.messages, i);
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
    failing_since: null,
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

  add('CreateWebhookRequest', 'Messages and contacts for a CRM', {
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
  }, 'Repeats are stored once and the list is stored in alphabetical order (see the response).');
  add('CreateWebhookRequestAutomations', 'Automation events, no description', {
    url: analytics.url,
    event_types: ['workflow_run.ended', 'link.clicked'],
  });
  const crmSecret = secret();
  add('WebhookCreated', 'Registered, with its secret', {
    ...crm,
    updated_at: crmCreatedAt,
    secret: crmSecret,
  });
  add('WebhookEndpoint', 'An enabled endpoint', crm);
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
  add('WebhookEventScopeMissing', 'Key lacks the read scope of an event type', err(
    'insufficient_scope',
    'Subscribing to contact.created needs the scope contacts:read, which this key lacks.',
    { required_scope: 'contacts:read' },
  ));
  add('WebhookWriteScopeMissing', 'Key lacks webhooks:write', err(
    'insufficient_scope',
    'This key lacks the scope webhooks:write.',
    { required_scope: 'webhooks:write' },
  ));
  add('WebhookReplayDeleted', 'Endpoint of this Idempotency-Key deleted since', err(
    'not_found',
    'The endpoint created with this Idempotency-Key has been deleted.',
  ));
  add('WebhookUrlInvalid', 'Not a URL', err('invalid_webhook_url', 'This is not a URL.', { reason: 'invalid' }));
  add('WebhookUrlCredentials', 'User and password in the URL', err(
    'invalid_webhook_url',
    'Webhook URLs cannot carry a user or password.',
    { reason: 'credentials' },
  ));
  add('WebhookUrlPort', 'Port other than 443', err(
    'invalid_webhook_url',
    'Webhook URLs cannot use a port other than 443.',
    { reason: 'port' },
  ));
  add('WebhookUrlUnreachable', 'Domain points to a private network', err(
    'invalid_webhook_url',
    'The domain does not point to a public address.',
    { reason: 'unreachable' },
  ));
  add('WebhookWriteRateLimited', 'Write calls used up', err('rate_limited', 'Too many write calls this minute.', {
    kind: 'write',
    limit: 60,
    retry_after: 23,
  }));
  add('WebhookSendRateLimited', 'Send calls used up', err('rate_limited', 'Too many send calls this minute.', {
    kind: 'send',
    limit: 20,
    retry_after: 41,
  }));
  add('WebhookSubscriptionUnavailable', 'Webhooks cannot be subscribed now', err(
    'service_unavailable',
    'Webhooks cannot be subscribed right now. Nothing changed; retry.',
  ));
  add('WebhookSenderUnavailable', 'Webhook service did not answer', err(
    'service_unavailable',
    'The webhook service did not answer. Nothing was sent; retry.',
  ));
  add('WebhookDeliveryExpired', 'Delivery older than 7 days', err(
    'not_found',
    'No such delivery. Deliveries are kept 7 days.',
  ));

  // ---------------------------------------------------------------- events
  const envelope = (i: number, type: EventType, createdAt: string, data: unknown) => ({
    id: eventId(i),
    type,
    api_version: 'v1',
    created_at: createdAt,
    data,
  });
  const { anaInstagram: ana, anaWhatsapp: anaWa, bruno, carla } = w.contacts;
  const ig = w.connections.instagram;
  const wa = w.connections.whatsapp;
  const contactSender = (name: string) => ({ type: 'contact', user_id: null, name, workflow_id: null, api_key_id: null });
  const message = (o: {
    id: string;
    contact: World['contacts'][keyof World['contacts']];
    type?: string;
    direction?: 'inbound' | 'outbound';
    sender?: unknown;
    text: string | null;
    createdAt: string;
    [k: string]: unknown;
  }) => {
    const { id, contact, type, direction, sender, text, createdAt, ...rest } = o;
    const dir = direction ?? 'inbound';
    return {
      id,
      conversation_id: contact.conversation_id,
      contact_id: contact.id,
      channel: { type: contact.channel, connection_id: contact.connection_id },
      type: type ?? 'message',
      direction: dir,
      sender: sender ?? contactSender(contact.name),
      text,
      attachments: [],
      template: null,
      reply_to_message_id: null,
      button: null,
      post: null,
      status: dir === 'inbound' ? 'received' : 'sent',
      failure: null,
      is_unsupported: false,
      is_removed: false,
      is_edited: false,
      reactions: [],
      read_at: null,
      created_at: createdAt,
      ...rest,
    };
  };
  const welcomeFlow = { id: pick(w.ids.workflows, 0), title: 'Black Friday: welcome and offer' };
  const workflowSender = { type: 'workflow', user_id: null, name: welcomeFlow.title, workflow_id: welcomeFlow.id, api_key_id: null };
  const post = pick(w.ids.posts, 0);
  const live = pick(w.ids.posts, 1);

  // message.received
  const receivedAt = at(-5, 602);
  const received = message({
    id: messageId(0),
    contact: ana,
    text: 'Hi! Do you still have the running shoes in size 39?',
    createdAt: receivedAt,
  });
  add('MessageReceivedEvent', 'A direct message on instagram', envelope(0, 'message.received', at(-5, 917), received));
  add(
    'MessageReceivedButtonTapEvent',
    'A tap on a reply button sent through the API (whatsapp)',
    envelope(1, 'message.received', at(-11, 340), message({
      id: messageId(1),
      contact: anaWa,
      text: 'Track my order',
      reply_to_message_id: messageId(2),
      button: { id: 'track_order', title: 'Track my order', source: 'api' },
      createdAt: at(-11, 122),
    })),
    'The tap arrives as a contact message whose `text` is the button title; it starts or resumes no automation.',
  );
  const storyMedia = f.string.uuid();
  add(
    'MessageReceivedStoryMentionEvent',
    'The contact mentioned the account in a story',
    envelope(2, 'message.received', at(-47, 805), message({
      id: messageId(3),
      contact: bruno,
      type: 'story_mention',
      text: null,
      attachments: [
        {
          type: 'image',
          media_id: storyMedia,
          url: `https://api.engagement.example/v1/media/${storyMedia}/content`,
          content_type: null,
          size: null,
          filename: null,
          expires_at: at(-47 + 60 * 24 * 90, 511),
        },
      ],
      post: { id: f.string.numeric({ length: 17, allowLeadingZeros: false }), type: 'story', url: null },
      createdAt: at(-47, 511),
    })),
    'Story replies and mentions have no event type of their own. Media can answer 404 for a few seconds after the event while it is stored.',
  );

  // comment.received, live_comment.received
  add('CommentReceivedEvent', 'A comment on a post', envelope(3, 'comment.received', at(-32, 418), message({
    id: messageId(4),
    contact: bruno,
    type: 'comment',
    text: 'PROMO',
    post: { id: post, type: 'feed', url: `https://www.instagram.com/p/${f.string.alphanumeric(11)}/` },
    createdAt: at(-32, 100),
  })));
  add('LiveCommentReceivedEvent', 'A comment on a live', envelope(4, 'live_comment.received', at(-90, 733), message({
    id: messageId(5),
    contact: bruno,
    type: 'live_comment',
    text: 'How much is the blue one?',
    post: { id: live, type: 'live', url: null },
    createdAt: at(-90, 520),
  })));

  // message.sent
  const sentAt = at(-4, 250);
  add('MessageSentEvent', 'An automation answered on instagram', envelope(5, 'message.sent', at(-4, 496), message({
    id: messageId(6),
    contact: ana,
    direction: 'outbound',
    sender: workflowSender,
    text: 'Yes! Size 39 is in stock. Want the link to the Black Friday offer?',
    createdAt: sentAt,
  })));
  add(
    'MessageSentCommentReplyEvent',
    'A public reply under a comment',
    envelope(6, 'message.sent', at(-31, 902), message({
      id: messageId(7),
      contact: bruno,
      type: 'comment_reply',
      direction: 'outbound',
      sender: workflowSender,
      text: 'Check your DMs! 📩',
      reply_to_message_id: messageId(4),
      post: { id: post, type: 'feed', url: null },
      createdAt: at(-31, 640),
    })),
    'Public replies (`comment_reply`) and direct replies to comments (`comment_dm_reply`) are `message.sent` too.',
  );
  add(
    'MessageSentUnattributedEvent',
    'Typed in the native app',
    envelope(7, 'message.sent', at(-2, 77), message({
      id: messageId(8),
      contact: anaWa,
      direction: 'outbound',
      sender: { type: 'unattributed', user_id: null, name: null, workflow_id: null, api_key_id: null },
      text: 'Your order left the warehouse today.',
      createdAt: at(-2, 15),
    })),
    'Recognize your own sends by the message id the send returned, not by `sender.type`.',
  );

  // message.updated, message.deleted, message.failed
  add(
    'MessageUpdatedEvent',
    'The account reacted to a message',
    envelope(8, 'message.updated', at(-3, 664), {
      ...received,
      reactions: [{ emoji: '❤️', by: 'account', created_at: at(-3, 590) }],
    }),
    '`data` is the message as it was at that change (instagram only).',
  );
  add(
    'MessageDeletedEvent',
    'The contact deleted a message',
    envelope(9, 'message.deleted', at(-1, 48), { ...received, text: null, is_removed: true }),
    'A removed message has `is_removed` true and `text` null. A message deleted before its other events were delivered also arrives this way in them.',
  );
  const failedAt = at(-60 * 5, 904);
  add('MessageFailedEvent', 'whatsapp reported a template as not delivered', envelope(10, 'message.failed', failedAt, message({
    id: messageId(9),
    contact: carla,
    direction: 'outbound',
    sender: { type: 'api', user_id: null, name: w.apiKey.name, workflow_id: null, api_key_id: w.apiKey.id },
    text: `Hi ${carla.name.split(' ')[0]}, your order #48213 has shipped. Track it in the app.`,
    template: { name: 'order_shipped', language: 'pt_BR' },
    status: 'failed',
    failure: { failed_at: failedAt, provider_code: '131026', provider_message: 'Message undeliverable' },
    createdAt: at(-60 * 5 - 2, 377),
  })));
  // contact events
  const carlaCreated = contactOf(w, 'carla');
  add(
    'ContactCreatedEvent',
    'A whatsapp contact created with a tag and a value',
    envelope(11, 'contact.created', carla.created_at, {
      ...carlaCreated,
      last_interaction_at: carla.created_at,
      updated_at: carla.created_at,
    }),
    'A contact created with tags or values yields this one event carrying them, not also tagged or updated events.',
  );
  const taggedAt = at(-20, 143);
  add('ContactTaggedEvent', 'A tag put on a contact', envelope(12, 'contact.tagged', taggedAt, {
    contact: contactOf(w, 'anaWhatsapp', { tags: ['vip', 'blackFriday'] }),
    tags: [tagSummary(w, 'blackFriday')],
  }));
  add(
    'ContactUntaggedEvent',
    'A tag removed from a contact',
    envelope(13, 'contact.untagged', at(-60 * 2, 561), {
      contact: contactOf(w, 'bruno', { tags: [] }),
      tags: [tagSummary(w, 'lead')],
    }),
    'Removing a tag removes it from every contact of the same person; each contact that had it emits its own event.',
  );
  add(
    'ContactCustomFieldsUpdatedEvent',
    'One value written, one cleared',
    envelope(14, 'contact.custom_fields_updated', at(-25, 808), {
      contact: contactOf(w, 'anaInstagram', { values: { plan: 'pro', city: 'Campinas' } }),
      custom_fields: [fieldValue(w, 'city', 'Campinas'), fieldValue(w, 'email', null)],
    }),
    '`value` is null for a cleared field.',
  );

  // automation events
  const run = pick(w.ids.runs, 0);
  const runStart = at(-32, 250);
  const step = (node: string | null, type: string, start: number, end: number, output: number | null, msg: string | null = null) => ({
    node_id: node,
    type,
    status: 'completed',
    output,
    message_id: msg,
    error: null,
    started_at: at(start, 300),
    ended_at: at(end, 650),
  });
  add(
    'WorkflowRunEndedEvent',
    'A comment-started run completed',
    envelope(15, 'workflow_run.ended', at(-31, 912), {
      id: run,
      workflow_id: welcomeFlow.id,
      version_id: pick(w.ids.versions, 0),
      contact_id: bruno.id,
      channel: { type: 'instagram', connection_id: ig.id },
      source: 'trigger',
      status: 'completed',
      created_at: runStart,
      updated_at: at(-31, 911),
      ended_at: at(-31, 911),
      steps: [
        step('root', 'root', -32, -32, 0),
        step('boas_vindas', 'message', -32, -32, 0, messageId(10)),
        step('marcar_lead', 'tags', -32, -32, 0),
        step(null, 'public_reply', -31, -31, null, messageId(7)),
      ],
      steps_truncated: false,
    }),
    '`data` is the run as `GET /v1/workflows/{workflowId}/runs/{runId}` returns it, with its steps.',
  );
  add(
    'WorkflowRunEndedStoppedEvent',
    'A run stopped because the 24-hour window was closed',
    envelope(16, 'workflow_run.ended', at(-60 * 6, 402), {
      id: pick(w.ids.runs, 1),
      workflow_id: welcomeFlow.id,
      version_id: pick(w.ids.versions, 0),
      contact_id: ana.id,
      channel: { type: 'instagram', connection_id: ig.id },
      source: 'trigger',
      status: 'stopped',
      created_at: at(-60 * 30, 18),
      updated_at: at(-60 * 6, 401),
      ended_at: at(-60 * 6, 401),
      steps: [
        step('oferta_black_friday', 'buttons', -60 * 30, -60 * 6, 0, messageId(11)),
        {
          node_id: 'detalhes_oferta',
          type: 'message',
          status: 'failed',
          output: null,
          message_id: null,
          error: { code: 'messaging_window_closed', message: 'The 24-hour window is closed.' },
          started_at: at(-60 * 6, 390),
          ended_at: at(-60 * 6, 399),
        },
      ],
      steps_truncated: true,
    }),
    'A link click on instagram does not open the 24-hour window: the message after it could not go out. `steps_truncated` is true: older steps were left out.',
  );
  add('LinkClickedEvent', 'A contact opened a link button', envelope(17, 'link.clicked', at(-60 * 6, 380), {
    workflow_id: welcomeFlow.id,
    run_id: pick(w.ids.runs, 1),
    contact_id: ana.id,
    node_id: 'oferta_black_friday',
    button_id: 'ver_ofertas',
    url: `https://www.${domain}/black-friday?utm_source=instagram`,
    clicked_at: at(-60 * 6, 380),
  }));
  add(
    'LinkClickedUnknownEvent',
    'A click on an old link of a contact since deleted',
    envelope(18, 'link.clicked', at(-60 * 9, 14), {
      workflow_id: pick(w.ids.workflows, 1),
      run_id: null,
      contact_id: null,
      node_id: null,
      button_id: null,
      url: `https://www.${domain}/catalog`,
      clicked_at: at(-60 * 9, 14),
    }),
    'Each field is null when unknown; `contact_id` is null for a contact the account no longer has.',
  );

  // connection events
  add(
    'ConnectionConnectedEvent',
    'A whatsapp number finished its setup',
    envelope(19, 'connection.connected', at(-60 * 24, 222), connectionOf(w.connections.whatsapp)),
  );
  const disconnectId = f.string.uuid();
  add(
    'ConnectionDisconnectedEvent',
    'The channel withdrew access to a number',
    { id: disconnectId, type: 'connection.disconnected', api_version: 'v1', created_at: at(-60 * 24 * 3, 640), data: connectionOf(w.connections.whatsappOld) },
    '`disconnect_reason` `authorization_lost`: reconnect in the console.',
  );
  // webhook.test
  const testEvent = {
    id: f.string.uuid(),
    type: 'webhook.test',
    api_version: 'v1',
    created_at: at(0, 0),
    data: { webhook_id: crm.id },
  };
  add('WebhookTestEvent', 'The test event', testEvent);

  // ---------------------------------------------------------------- deliveries (endpoint `crm`)
  const attemptAt = (createdMin: number, n: number) => at(createdMin + pick(ATTEMPT_OFFSETS_MIN, n - 1), 0);
  const dSucceeded = {
    id: deliveryId(0),
    webhook_id: crm.id,
    event: { id: eventId(0), type: 'message.received', created_at: at(-5, 917) },
    status: 'succeeded',
    attempts: 1,
    next_attempt_at: null,
    last_attempt_at: at(-5, 940),
    last_response_status: 200,
    last_error: null,
    delivered_at: at(-5, 940),
    created_at: at(-5, 920),
  };
  const taggedCreated = -20;
  const dPending = {
    id: deliveryId(1),
    webhook_id: crm.id,
    event: { id: eventId(12), type: 'contact.tagged', created_at: taggedAt },
    status: 'pending',
    attempts: 3,
    next_attempt_at: attemptAt(taggedCreated, 4),
    last_attempt_at: attemptAt(taggedCreated, 3),
    last_response_status: 503,
    last_error: 'http_status',
    delivered_at: null,
    created_at: at(taggedCreated, 150),
  };
  const failedCreated = -60 * 24 * 3;
  const dFailed = {
    id: deliveryId(2),
    webhook_id: crm.id,
    event: { id: f.string.uuid(), type: 'message.sent', created_at: at(failedCreated, 40) },
    status: 'failed',
    attempts: 10,
    next_attempt_at: null,
    last_attempt_at: attemptAt(failedCreated, 10),
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
    last_attempt_at: at(-60 * 24 * 2 + 1, 0),
    last_response_status: 204,
    last_error: null,
    delivered_at: at(-60 * 24 * 2 + 1, 0),
    created_at: at(-60 * 24 * 2, 3),
  };
  add('WebhookDeliveryList', 'Recent deliveries, newest first', {
    data: [dSucceeded, dPending, dRecovered, dFailed],
    next_cursor: `wdl_${f.string.alphanumeric(40)}`,
  });
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
