// One example per error schema of spec/components/schemas/errors (same name), plus the gateway answers.
// Route-specific variants live with their area's examples.
import type { AreaBuilder, ExampleSet } from './world.js';
import { at } from './world.js';

const build: AreaBuilder = (w) => {
  const e = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });
  const set: ExampleSet = {
    ValidationError: {
      summary: 'Unknown body field',
      value: {
        type: 'error',
        message: 'The request does not follow the API format.',
        context: {
          details: [{ location: 'body', path: '/nickname', message: 'unknown field: nickname' }],
        },
      },
    },
    ValidationErrorLimit: {
      summary: 'limit out of range',
      value: {
        type: 'error',
        message: 'The request does not follow the API format.',
        context: {
          details: [{ location: 'query', path: 'limit', message: 'must be <= 100' }],
        },
      },
    },
    GatewayUnauthorized: {
      summary: 'Key missing, unknown, revoked or expired',
      value: { message: 'Invalid or missing API key.' },
    },
    GatewayForbidden: {
      summary: 'Account suspended or without API access',
      value: { message: 'This account has no access to the API.' },
    },
    InternalError: {
      summary: 'Unexpected fault',
      value: e('internal_error', 'Something went wrong on our side. Retry with the same Idempotency-Key.', {
        request_id: 'req_7Hq2LcV9sXbN4mPa',
      }),
    },
    InvalidCursorError: {
      summary: 'Cursor from another list',
      value: e('invalid_cursor', 'The cursor was not issued by this list.'),
    },
    InsufficientScopeError: {
      summary: 'Key lacks the scope',
      value: e('insufficient_scope', 'This key lacks the scope contacts:write.', { required_scope: 'contacts:write' }),
    },
    ApiDisabledError: {
      summary: 'API off for the account',
      value: e('api_disabled', 'The API is switched off for this account.'),
    },
    NotFoundError: { summary: 'Not found', value: e('not_found', 'No such resource.') },
    RateLimitedError: {
      summary: 'Read calls used up',
      value: e('rate_limited', 'Too many read calls this minute.', { kind: 'read', limit: 120, retry_after: 18 }),
    },
    IdempotencyKeyReusedError: {
      summary: 'Key used with another request',
      value: e('idempotency_key_reused', 'This Idempotency-Key was used with another request.'),
    },
    IdempotencyInProgressError: {
      summary: 'First request still running',
      value: e('idempotency_in_progress', 'The first request with this Idempotency-Key is still running.'),
    },
    OutcomeUnknownError: {
      summary: 'Outcome unknown',
      value: e('outcome_unknown', 'Whether the operation happened cannot be known. Check, then retry with a new key.'),
    },
    OutcomeUnknownReplayed: {
      summary: 'First request with this key stopped before answering',
      value: e(
        'outcome_unknown',
        'The first request with this Idempotency-Key stopped before answering. Check, then retry with a new key.',
      ),
    },
    SendOutcomeUnknownError: {
      summary: 'Channel did not confirm the send',
      value: e(
        'outcome_unknown',
        'The channel did not confirm the message. Check the conversation before sending again.',
        {
          provider_accepted: false,
        },
      ),
    },
    ServiceUnavailableError: {
      summary: 'Try again',
      value: e('service_unavailable', 'The service could not guarantee the request. Nothing ran; retry.'),
    },
    PayloadTooLargeError: {
      summary: 'Body over 1 MB',
      value: e('payload_too_large', 'The request body is larger than 1 MB.', { max_size: 1_048_576 }),
    },
    PreconditionRequiredError: {
      summary: 'If-Match missing',
      value: e('precondition_required', 'Send the If-Match header with the revision you read.'),
    },
    VersionConflictError: {
      summary: 'Automation changed since it was read',
      value: e('version_conflict', 'The automation changed since revision 3.', { current_revision: 4 }),
    },
    InvalidPhoneError: {
      summary: 'Impossible phone',
      value: e('invalid_phone', 'No contact can have this phone number.'),
    },
    InvalidNameError: { summary: 'Blank name', value: e('invalid_name', 'The name cannot be blank.') },
    InvalidConnectionError: {
      summary: 'Not a connected whatsapp number',
      value: e('invalid_connection', 'connection_id is not a connected whatsapp number of the account.'),
    },
    ConsentRequiredError: {
      summary: 'No consent',
      value: e('consent_required', 'Creating a contact needs consent: true.'),
    },
    TagNotFoundError: {
      summary: 'Unknown tag ids',
      value: e('tag_not_found', 'Some tags are not in the account.', {
        tag_ids: ['6f1c2b9e-0d4a-4f3b-8e7c-5a9d1b2c3e4f'],
      }),
    },
    CustomFieldNotFoundError: {
      summary: 'Unknown field ids',
      value: e('custom_field_not_found', 'Some custom fields are not in the account.', {
        field_ids: ['9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d'],
      }),
    },
    InvalidCustomFieldValueError: {
      summary: 'Refused values',
      value: e('invalid_custom_field_value', 'Some values were refused; none was written.', {
        errors: [
          { field_id: w.fields.orders.id, reason: 'expected_number' },
          { field_id: w.fields.plan.id, reason: 'invalid_option' },
        ],
      }),
    },
    TagAlreadyExistsError: {
      summary: 'Name taken',
      value: e('tag_already_exists', `A tag named "${w.tag.vip.name}" already exists.`, { tag_id: w.tag.vip.id }),
    },
    TagInUseError: {
      summary: 'Automations name the tag',
      value: e('tag_in_use', 'Automations name this tag.', {
        workflow_ids: [w.ids.workflows[0], w.ids.workflows[1]],
        workflow_count: 2,
      }),
    },
    MediaExpiredError: {
      summary: 'Media no longer stored',
      value: e('media_expired', 'This media is no longer stored.'),
    },
    InvalidMessageError: {
      summary: 'Duplicate reply-button id',
      value: e('invalid_message', 'Reply button ids must be unique in a message.', {
        reason: 'duplicate_button_id',
        field: 'buttons[1].id',
      }),
    },
    ContentNotSupportedError: {
      summary: 'Template on instagram',
      value: e('content_not_supported', 'instagram has no templates.', { channel: 'instagram', field: 'template' }),
    },
    TextTooLongError: {
      summary: 'Text above the channel limit',
      value: e('text_too_long', 'instagram delivers at most 1000 characters here.', {
        channel: 'instagram',
        field: 'text',
        max_length: 1000,
      }),
    },
    MediaNotFoundError: {
      summary: 'Unknown media',
      value: e('media_not_found', 'This media was not created by the account.', { media_id: w.ids.media[3] }),
    },
    MediaNotUploadedError: {
      summary: 'Nothing uploaded',
      value: e('media_not_uploaded', 'Nothing was uploaded for this media.', { media_id: w.ids.media[2] }),
    },
    MediaNotSupportedError: {
      summary: 'Image too large for whatsapp',
      value: e('media_not_supported', 'whatsapp accepts images up to 5 MB.', {
        channel: 'whatsapp',
        field: 'attachments[0]',
        media_id: w.ids.media[1],
        reason: 'too_large',
        content_type: 'image/jpeg',
        size: 7340032,
        max_size: 5242880,
      }),
    },
    TemplateNotFoundError: {
      summary: 'No such template',
      value: e('template_not_found', 'No template with this name and language.', {
        name: 'order_update',
        language: 'pt_BR',
      }),
    },
    TemplateNotApprovedError: {
      summary: 'Template pending',
      value: e('template_not_approved', 'This template is not approved.', { status: 'pending' }),
    },
    TemplateNotSupportedError: {
      summary: 'Header with media',
      value: e('template_not_supported', 'This template needs a header media the API does not send.', {
        reason: 'header_media',
      }),
    },
    TemplateVariablesMismatchError: {
      summary: 'Missing body variable',
      value: e('template_variables_mismatch', 'The template body has 2 placeholders; 1 value was sent.', {
        expected: 2,
        received: 1,
      }),
    },
    ChannelDisconnectedError: {
      summary: 'Connection must be reconnected',
      value: e('channel_disconnected', 'The instagram connection is disconnected.', {
        channel: 'instagram',
        reason: 'authorization_lost',
      }),
    },
    MessagingWindowClosedError: {
      summary: 'Window closed on instagram',
      value: e('messaging_window_closed', 'The contact last wrote more than 24 hours ago.', {
        channel: 'instagram',
        last_inbound_at: at(-60 * 30),
      }),
    },
    TemplateRequiredError: {
      summary: 'Window closed on whatsapp',
      value: e('template_required', 'The contact last wrote more than 24 hours ago; only a template reaches them.', {
        channel: 'whatsapp',
        last_inbound_at: at(-60 * 26),
      }),
    },
    ContactBlockedError: {
      summary: 'Contact blocked',
      value: e('contact_blocked', 'The account blocked this contact.'),
    },
    ConversationNotOwnedError: {
      summary: 'Another app controls the conversation',
      value: e('conversation_not_owned', 'Another app controls this conversation for now.'),
    },
    RecipientUnavailableError: {
      summary: 'Recipient gone',
      value: e('recipient_unavailable', 'The contact no longer exists on the channel.'),
    },
    ProviderRejectedError: {
      summary: 'Channel refused',
      value: e('provider_rejected', 'The channel refused the message.', {
        channel: 'whatsapp',
        provider_message: 'Message failed to send because of an unknown error.',
      }),
    },
    ProviderThrottledError: {
      summary: 'Channel holding sends',
      value: e('provider_throttled', 'The channel is holding the account sends.', { channel: 'instagram' }),
    },
    ProviderUnavailableError: {
      summary: 'instagram failed without sending',
      value: e('provider_unavailable', 'instagram failed without sending. Retry.', { channel: 'instagram' }),
    },
    InvalidGraphError: {
      summary: 'Missing block',
      value: e('invalid_graph', 'The graph does not follow the contract.', {
        errors: [
          {
            code: 'node_not_found',
            message: 'next names a block that does not exist: pedir_email',
            node_id: 'root',
            path: 'nodes.root.data.next',
          },
        ],
      }),
    },
    InvalidChannelError: {
      summary: 'Connection of another type',
      value: e('invalid_channel', 'The connection is not a whatsapp number.', { reason: 'type_mismatch' }),
    },
    InvalidTriggerError: {
      summary: 'next_post with posts',
      value: e('invalid_trigger', 'next_post cannot combine with feed posts.', { reason: 'next_post_with_posts' }),
    },
    WorkflowPublishedError: {
      summary: 'Unpublish first',
      value: e('workflow_published', 'A published automation cannot change channel. Unpublish first.'),
    },
    FolderNotFoundError: {
      summary: 'Unknown folder',
      value: e('folder_not_found', 'No workflow folder with this id.', { field: 'folder_id' }),
    },
    WorkflowInvalidError: {
      summary: 'Publish checks failed',
      value: e('workflow_invalid', 'The automation has validation errors.', {
        errors: [
          {
            code: 'tag_not_found',
            message: 'The account has no tag named "Clientes".',
            node_id: 'marcar_cliente',
            path: 'nodes.marcar_cliente.data.tags[0]',
          },
        ],
      }),
    },
    WorkflowNotPublishableError: {
      summary: 'Engine refused',
      value: e('workflow_not_publishable', 'The engine refused the automation.', {
        details: 'Block pedir_email: compiled step exceeds the engine limit.',
      }),
    },
    WorkflowChangedError: {
      summary: 'Draft kept changing',
      value: e('workflow_changed', 'The draft changed during publication. Validate and publish with If-Match.'),
    },
    WorkflowNotPublishedError: {
      summary: 'Not published',
      value: e('workflow_not_published', 'The automation is not published.'),
    },
    RunChannelDisconnectedError: {
      summary: 'Channel disconnected',
      value: e('channel_disconnected', 'The automation channel is disconnected.', {
        connection_id: w.connections.whatsappOld.id,
      }),
    },
    ContactNotOnChannelError: {
      summary: 'Contact never came through the channel',
      value: e('contact_not_on_channel', 'The contact never came through this channel.', {
        connection_id: w.connections.whatsapp.id,
      }),
    },
    RunMessagingWindowClosedError: {
      summary: 'Window closed',
      value: e('messaging_window_closed', 'The automation sends messages and the window is closed.', {
        last_inbound_at: at(-60 * 48),
      }),
    },
    ContactAutomationsPausedError: {
      summary: 'Automations paused',
      value: e('contact_automations_paused', 'Automations are paused for this contact.'),
    },
    IntegrationDisconnectedError: {
      summary: 'Spreadsheet account disconnected',
      value: e('integration_disconnected', 'The spreadsheet integration is not connected.', {
        integration_type: 'sheets',
      }),
    },
    RunInProgressError: {
      summary: 'Contact mid-run',
      value: e('run_in_progress', 'The contact is in the middle of a run of this automation.'),
    },
    RunLimitReachedError: {
      summary: 'Hourly limit',
      value: e('run_limit_reached', 'The hourly run limit for this contact is reached.'),
    },
    InvalidParentError: {
      summary: 'Folder into its subfolder',
      value: e('invalid_parent', 'A folder cannot go inside itself or a subfolder.'),
    },
    RepliesListAlreadyExistsError: {
      summary: 'Name taken',
      value: e('replies_list_already_exists', 'A reply list with this name exists.', {
        replies_list_id: w.ids.repliesLists[0],
      }),
    },
    RepliesListInUseError: {
      summary: 'List in use',
      value: e('replies_list_in_use', 'Automations use this list.', {
        workflow_ids: [w.ids.workflows[0]],
        workflow_count: 1,
      }),
    },
    InvalidReplyError: { summary: 'Blank reply', value: e('invalid_reply', 'Replies cannot be blank.', { index: 2 }) },
    InvalidWebhookUrlError: {
      summary: 'Not https',
      value: e('invalid_webhook_url', 'Webhook URLs must use https.', { reason: 'https_required' }),
    },
    WebhookLimitReachedError: {
      summary: 'Ten endpoints already',
      value: e('webhook_limit_reached', 'The account already has 10 webhook endpoints.', { limit: 10 }),
    },
    WebhookDisabledError: {
      summary: 'Endpoint disabled',
      value: e('webhook_disabled', 'Enable the endpoint before resending.'),
    },
  };
  return set;
};
export default build;
