// Examples of the admin API (the vendor console): accounts, keys, connections, custom fields, whatsapp
// templates and uploads. Drawn from the seeded world, so the account, its connections, fields and uploads are
// the ones the public examples show.
import { sandboxSpreadsheetExamples } from './spreadsheets.js';
import type { AreaBuilder, ExampleSet, WorldConnection } from './world.js';
import { connectionOf, contactOf, contactState } from './contacts.js';
import { at } from './world.js';

const build: AreaBuilder = (w, f) => {
  const err = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });
  const { account: acc, connections: conn, fields } = w;

  // ---------------------------------------------------------------- accounts
  const accountCreatedAt = at(-60 * 24 * 420, 17);
  const account = {
    id: acc.id,
    name: acc.name,
    alias: acc.alias,
    time_zone: 'America/Sao_Paulo',
    suspended: false,
    api_enabled: true,
    created_at: accountCreatedAt,
    updated_at: accountCreatedAt,
  };
  const suspended = { ...account, suspended: true, updated_at: at(-3, 512) };

  // ---------------------------------------------------------------- keys
  const hint = (secret: string) => secret.slice(0, 8);
  const newSecret = `epk_${f.string.alphanumeric(46)}`;
  const keyCreatedAt = at(-1, 233);
  const newKey = {
    id: f.string.uuid(),
    account_id: acc.id,
    name: 'Data warehouse export',
    hint: hint(newSecret),
    scopes: ['contacts:read', 'conversations:read'],
    status: 'active',
    created_at: keyCreatedAt,
    expires_at: at(-1 + 60 * 24 * 90, 233),
    revoked_at: null,
  };
  const worldKey = {
    id: w.apiKey.id,
    account_id: acc.id,
    name: w.apiKey.name,
    hint: `epk_${f.string.alphanumeric(4)}`,
    scopes: ['contacts:read', 'contacts:write', 'conversations:read', 'messages:send'],
    status: 'active',
    created_at: w.apiKey.created_at,
    expires_at: w.apiKey.expires_at,
    revoked_at: null,
  };
  const oldKey = {
    id: f.string.uuid(),
    account_id: acc.id,
    name: 'CRM sync (old)',
    hint: `epk_${f.string.alphanumeric(4)}`,
    scopes: ['contacts:read', 'contacts:write'],
    status: 'revoked',
    created_at: at(-60 * 24 * 200, 881),
    expires_at: at(-60 * 24 * 20, 881),
    revoked_at: at(-60 * 24 * 29, 4),
  };
  const revoked = { ...worldKey, status: 'revoked', revoked_at: at(0, 61) };

  // ---------------------------------------------------------------- connections
  const newNumber: WorldConnection = {
    id: f.string.uuid(),
    channel: 'whatsapp',
    name: `${w.company} Vendas`,
    phone: `+55119${f.string.numeric({ length: 8, allowLeadingZeros: false })}`,
    status: 'connected',
    disconnect_reason: null,
    created_at: at(-2, 740),
  };
  // Fixed rather than drawn, so that the seeded draws of every other example stay as they were.
  const cloudToken = 'EAAGm0PX4ZCpsBAKZCZBj7Q1ZA0oZBvE9r8hqYZC5GqkF3ZCzK7ZBs1xL9dZB2wEaZC6Tn4x9Qz';
  const cloudNumber = {
    connection_id: conn.whatsapp.id,
    provider: 'whatsapp_cloud',
    phone_number_id: '106540352242922',
    waba_id: '102290129340398',
    token_last4: cloudToken.slice(-4),
    verified_name: acc.name,
    templates_synced: 3,
    templates_synced_at: at(-2, 45),
    connection: connectionOf(conn.whatsapp),
  };
  // Fixed too: the Instagram account of the world's instagram connection (Instagram Login), and a Page's.
  const igToken = 'IGAAQwJ5ZCz4ZBNZAE9XbXlEZA1pQk5aZAGhOTW2NlX3ZCQkF4Z0xmV1k';
  const pageToken = 'EAAGm0PX4ZCpsBAO7nYZCkZAZBq2ZCVZAz5ZBZCl9mPQkZAZBE8rTZC2n4bQm7';
  const igAccount = {
    connection_id: conn.instagram.id,
    provider: 'instagram_graph',
    login: 'instagram',
    ig_user_id: '17841405309211844',
    page_id: null,
    username: conn.instagram.username,
    token_last4: igToken.slice(-4),
    connection: connectionOf(conn.instagram),
  };
  const disconnected = connectionOf({
    ...conn.instagram,
    status: 'disconnected',
    disconnect_reason: 'authorization_lost',
  });

  // ---------------------------------------------------------------- custom fields
  const birthday = {
    id: f.string.uuid(),
    name: 'data-de-nascimento',
    label: 'Data de nascimento',
    type: 'text',
    options: null,
  };
  const plan = fields.plan;
  const emailAgain = { id: f.string.uuid(), name: 'email-2', label: 'E-mail', type: 'text', options: null };

  // ---------------------------------------------------------------- templates
  const templateCreatedAt = at(-60 * 24 * 30, 350);
  const template = {
    id: f.string.uuid(),
    connection_id: conn.whatsapp.id,
    name: 'order_shipped',
    language: 'pt_BR',
    body: 'Olá {{1}}! Seu pedido #{{2}} foi enviado e chega em até 3 dias úteis. Qualquer dúvida, é só responder esta mensagem.',
    variable_count: 2,
    status: 'approved',
    unsupported_features: [],
    created_at: templateCreatedAt,
    updated_at: templateCreatedAt,
  };
  const pendingPromo = {
    id: f.string.uuid(),
    connection_id: conn.whatsapp.id,
    name: 'black_friday_offer',
    language: 'pt_BR',
    body: 'Oi {{nome}}, a Black Friday começou: {{1}} de desconto em toda a loja!',
    variable_count: 1,
    status: 'pending',
    unsupported_features: ['header_media', 'named_variables'],
    created_at: at(-4, 101),
    updated_at: at(-4, 101),
  };

  // ---------------------------------------------------------------- uploads
  const upload = {
    id: w.ids.uploads[0]!,
    name: 'tenis-corrida-x.jpg',
    content_type: 'image/jpeg',
    size: 384_211,
    created_at: at(-60 * 24 * 12, 640),
  };

  const set: ExampleSet = {
    AdminUnauthorized: {
      summary: 'Admin token missing or wrong',
      value: { message: 'Missing or invalid admin token.' },
    },

    // ------------------------------------------------ POST /admin/v1/accounts, GET and PATCH /{accountId}
    AdminCreateAccount: {
      summary: 'New account',
      value: { name: acc.name, alias: acc.alias, time_zone: 'America/Sao_Paulo' },
    },
    AdminAccountCreated: {
      summary: 'Account created',
      description: 'It starts with API access, not suspended. Create its first key next.',
      value: account,
    },
    AdminAccount: { summary: 'An account', value: account },
    AdminAliasTaken: {
      summary: 'Alias taken',
      value: err('alias_taken', 'Another account has this alias.', { account_id: acc.id }),
    },
    AdminInvalidTimeZone: {
      summary: 'Unknown time zone',
      value: err('invalid_time_zone', 'America/Sao_Paolo is not an IANA time zone.'),
    },
    AdminSuspendAccount: { summary: 'Suspend the account', value: { suspended: true } },
    AdminDisableApi: { summary: 'Withdraw API access', value: { api_enabled: false } },
    AdminAccountSuspended: {
      summary: 'Account suspended',
      description: 'Its keys get the gateway 403 within 1 minute.',
      value: suspended,
    },

    // ------------------------------------------------ keys
    AdminCreateApiKey: {
      summary: 'Read-only key for 90 days',
      value: { name: newKey.name, scopes: newKey.scopes, validity_days: 90 },
    },
    AdminApiKeyCreated: {
      summary: 'Key created',
      description: 'The whole key is in `secret`, shown this once.',
      value: { secret: newSecret, api_key: newKey },
    },
    AdminKeyLimitReached: {
      summary: '25 active keys already',
      value: err('key_limit_reached', 'An account holds at most 25 active keys.', { limit: 25 }),
    },
    AdminApiKeyList: {
      summary: 'Every key of the account',
      description: 'Oldest first, revoked and expired keys included.',
      value: { data: [oldKey, worldKey, newKey], next_cursor: null },
    },
    AdminApiKeyRevoked: {
      summary: 'Key revoked',
      description: 'Calls with it get 401 within 1 minute.',
      value: revoked,
    },

    // ------------------------------------------------ connections
    AdminCreateWhatsappConnection: {
      summary: 'A whatsapp number',
      value: { channel: 'whatsapp', name: newNumber.name, phone: newNumber.phone },
    },
    AdminCreateInstagramConnection: {
      summary: 'An instagram account',
      value: { channel: 'instagram', name: conn.instagram.name, username: `@${conn.instagram.username}` },
    },
    AdminConnectionCreated: {
      summary: 'Connection created',
      description: 'As `GET /v1/connections` lists it.',
      value: connectionOf(newNumber),
    },
    AdminConnectionAlreadyExists: {
      summary: 'Number already connected',
      value: err('connection_already_exists', 'The account already has this whatsapp number.', {
        connection_id: conn.whatsapp.id,
      }),
    },
    AdminInvalidIdentity: {
      summary: 'Phone on an instagram connection',
      value: err('invalid_identity', 'An instagram connection takes a username, not a phone.'),
    },
    AdminInvalidDisconnectReason: {
      summary: 'Disconnected without a reason',
      value: err('invalid_disconnect_reason', 'A disconnected connection needs a disconnect_reason.'),
    },
    AdminDisconnectConnection: {
      summary: 'The channel withdrew access',
      value: { status: 'disconnected', disconnect_reason: 'authorization_lost' },
    },
    AdminReconnectConnection: { summary: 'Reconnected', value: { status: 'connected' } },
    AdminConnectionDisconnected: { summary: 'Connection disconnected', value: disconnected },

    // ------------------------------------------------ whatsapp cloud numbers
    AdminSetUpWhatsAppCloudNumber: {
      summary: 'A number from the Meta app',
      value: { phone_number_id: cloudNumber.phone_number_id, waba_id: cloudNumber.waba_id, access_token: cloudToken },
    },
    AdminWhatsAppCloudNumber: { summary: 'Number attached', value: cloudNumber },
    AdminNotWhatsAppCloud: {
      summary: 'Served by the sandbox',
      value: err('not_whatsapp_cloud', 'The connection has no WhatsApp Cloud API number attached.'),
    },
    AdminPhoneNumberInUse: {
      summary: 'Number used by another connection',
      value: err('phone_number_in_use', 'Another connection already uses this phone_number_id.', {
        connection_id: conn.whatsappOld.id,
      }),
    },
    AdminInvalidCredentials: {
      summary: 'Token refused',
      value: err('invalid_credentials', 'The Graph API refused the access token.', {
        provider_message: 'Error validating access token: Session has expired.',
      }),
    },
    AdminIdentityMismatch: {
      summary: 'Another number',
      value: err('identity_mismatch', "The phone_number_id belongs to another number than the connection's phone.", {
        display_phone_number: '+1 555-010-0199',
      }),
    },
    AdminGraphUnavailable: {
      summary: 'Graph API down',
      value: err('provider_unavailable', 'The Graph API did not answer; retry.', {
        provider_message: 'The Graph API answered 503.',
      }),
    },

    // ------------------------------------------------ instagram accounts
    AdminSetUpInstagramLogin: {
      summary: 'Instagram Login',
      value: { login: 'instagram', ig_user_id: igAccount.ig_user_id, access_token: igToken },
    },
    AdminSetUpInstagramFacebookLogin: {
      summary: 'Facebook Login (a Page token)',
      value: { login: 'facebook', page_id: '104921335632818', access_token: pageToken },
    },
    AdminInstagramAccount: { summary: 'Account attached', value: igAccount },
    AdminNotInstagramGraph: {
      summary: 'Served by the sandbox',
      value: err('not_instagram_graph', 'The connection has no Instagram account attached.'),
    },
    AdminInstagramAccountInUse: {
      summary: 'Account used by another connection',
      value: err('instagram_account_in_use', 'Another connection already uses this Instagram account.', {
        connection_id: '7c1e2a4b-93d5-4f0e-8a61-2b9c5d7e3f10',
      }),
    },
    AdminInstagramInvalidCredentials: {
      summary: 'Token refused',
      value: err('invalid_credentials', 'The Graph API refused the access token for this account.', {
        provider_message: 'Invalid OAuth access token - Cannot parse access token',
      }),
    },
    AdminInstagramIdentityMismatch: {
      summary: 'Another account',
      value: err('identity_mismatch', "The token reads another Instagram account than the connection's.", {
        ig_user_id: '17841400008460056',
        username: 'loja.aurora.outlet',
      }),
    },
    AdminNoInstagramAccount: {
      summary: 'Page without an Instagram account',
      value: err('no_instagram_account', 'The Facebook Page has no Instagram professional account linked.', {
        page_id: '104921335632818',
      }),
    },

    // ------------------------------------------------ custom fields
    AdminCreateTextField: {
      summary: 'A text field',
      description: 'Its key is derived from the label: `data-de-nascimento`.',
      value: { label: birthday.label, type: 'text' },
    },
    AdminCreateDropdownField: {
      summary: 'A dropdown field',
      value: { label: plan.label, type: 'dropdown', options: plan.options },
    },
    AdminCustomFieldCreated: { summary: 'Field created', value: birthday },
    AdminDropdownFieldCreated: {
      summary: 'Dropdown field created',
      value: { id: plan.id, name: plan.name, label: plan.label, type: plan.type, options: plan.options },
    },
    AdminCustomFieldKeySuffixed: {
      summary: 'Key already used once',
      description: 'The account has (or once had) a field keyed `email`, so this one gets `email-2`.',
      value: emailAgain,
    },
    AdminInvalidLabel: {
      summary: 'No letter or digit in the label',
      value: err('invalid_label', 'The label has no letter or digit to derive the key from.'),
    },
    AdminInvalidOptions: {
      summary: 'Two options with one value',
      value: err('invalid_options', 'Two options have the value pro.', { reason: 'duplicate_value' }),
    },
    AdminCustomFieldDeleted: { summary: 'Field deleted', value: { id: fields.city.id, deleted: true } },

    // ------------------------------------------------ templates
    AdminCreateTemplate: {
      summary: 'An approved template',
      value: {
        connection_id: template.connection_id,
        name: template.name,
        language: template.language,
        body: template.body,
        status: 'approved',
      },
    },
    AdminCreateUnsupportedTemplate: {
      summary: 'A template the API cannot send',
      description: 'A header image and a named placeholder: sends answer `template_not_supported`.',
      value: {
        connection_id: pendingPromo.connection_id,
        name: pendingPromo.name,
        language: pendingPromo.language,
        body: pendingPromo.body,
        status: 'pending',
        unsupported_features: ['header_media'],
      },
    },
    AdminTemplateCreated: { summary: 'Template added', value: template },
    AdminUnsupportedTemplateCreated: {
      summary: 'Unsupported template added',
      description: '`named_variables` was added from the body.',
      value: pendingPromo,
    },
    AdminTemplateAlreadyExists: {
      summary: 'Same name and language',
      value: err('template_already_exists', 'The number already has order_shipped in pt_BR.', {
        template_id: template.id,
      }),
    },
    AdminInvalidTemplateBody: {
      summary: 'Placeholders with a gap',
      value: err('invalid_template_body', 'Placeholders must be numbered {{1}}, {{2}}… without gaps.'),
    },
    AdminTemplateNotWhatsapp: {
      summary: 'Not a connected whatsapp number',
      value: err('invalid_connection', 'connection_id is not a connected whatsapp number of the account.'),
    },
    AdminApproveTemplate: { summary: 'Approved by the channel', value: { status: 'approved' } },
    AdminTemplateApproved: {
      summary: 'Template approved',
      value: { ...pendingPromo, status: 'approved', updated_at: at(60 * 5, 12) },
    },

    // ------------------------------------------------ uploads
    AdminCreateUpload: {
      summary: 'An image for a cards block',
      value: { name: upload.name, content_type: upload.content_type, size: upload.size },
    },
    AdminUploadCreated: { summary: 'Upload recorded', value: upload },

    // ------------------------------------------------ contacts
    AdminEditContact: { summary: 'A new name', value: { name: 'Bruno Carvalho Lima' } },
    AdminContactEdited: {
      summary: 'Edited: updated_at moved',
      value: { ...contactOf(w, 'bruno', { name: 'Bruno Carvalho Lima' }), updated_at: at(2, 401) },
    },
    AdminContactDeleted: { summary: 'Contact deleted', value: { id: w.contacts.carla.id, deleted: true } },
    AdminContactHistory: {
      summary: 'Imported by a key, tagged, a value set, then edited in the console',
      value: {
        data: [
          {
            kind: 'contact.imported',
            actor: { type: 'api_key', id: w.apiKey.id, name: w.apiKey.name },
            details: { consent: true, connection_id: w.contacts.anaWhatsapp.connection_id },
            created_at: w.contacts.anaWhatsapp.created_at,
          },
          {
            kind: 'tag.added',
            actor: { type: 'api_key', id: w.apiKey.id, name: w.apiKey.name },
            details: { tag_id: w.tag.vip.id, tag_name: w.tag.vip.name },
            created_at: at(-60 * 24 * 19, 77),
          },
          {
            kind: 'custom_field.set',
            actor: { type: 'api_key', id: w.apiKey.id, name: w.apiKey.name },
            details: {
              field_id: w.fields.city.id,
              name: w.fields.city.name,
              value: contactState(w).anaWhatsapp.values.city,
            },
            created_at: at(-60 * 24 * 19, 80),
          },
          {
            kind: 'contact.edited',
            actor: { type: 'console', id: null, name: 'Console' },
            details: { name: w.contacts.anaWhatsapp.name },
            created_at: at(-60 * 24 * 3, 12),
          },
        ],
        next_cursor: null,
      },
    },

    // ------------------------------------------------ notifications
    // The staging endpoint of the webhook examples: failing for 3 days, disabled 2 days ago.
    AdminNotificationList: {
      summary: 'A webhook endpoint disabled for failing',
      description: 'Left when the service disabled the endpoint; the same notice went to the log.',
      value: {
        data: [
          {
            id: f.string.uuid(),
            kind: 'webhook_disabled',
            subject: { type: 'webhook', id: w.ids.webhooks[2] },
            details: {
              reason: 'failing',
              url: `https://staging.${acc.alias}.com/hooks/engagement`,
              failing_since: at(-60 * 24 * 5, 530),
              last_error: 'http_status',
              last_response_status: 502,
              dropped_deliveries: 3,
            },
            created_at: at(-60 * 24 * 2, 530),
          },
        ],
        next_cursor: null,
      },
    },
    AdminNotificationListEmpty: {
      summary: 'Nothing to tell',
      value: { data: [], next_cursor: null },
    },

    // ------------------------------------------------ audit log
    // Newest first: the key the console just created, and the world key's changes to the CRM webhook endpoint
    // of the webhook examples (at its created_at and updated_at).
    AdminAuditLog: {
      summary: 'A key created in the console; a webhook endpoint registered and changed by a key',
      value: {
        data: [
          {
            actor_type: 'admin',
            api_key_id: null,
            action: 'api_key.created',
            resource_type: 'api_key',
            resource_id: newKey.id,
            created_at: newKey.created_at,
          },
          {
            actor_type: 'api_key',
            api_key_id: w.apiKey.id,
            action: 'webhook.updated',
            resource_type: 'webhook_endpoint',
            resource_id: w.ids.webhooks[0],
            created_at: at(-60 * 24 * 6, 87),
          },
          {
            actor_type: 'api_key',
            api_key_id: w.apiKey.id,
            action: 'webhook.created',
            resource_type: 'webhook_endpoint',
            resource_id: w.ids.webhooks[0],
            created_at: at(-60 * 24 * 30, 418),
          },
        ],
        next_cursor: null,
      },
    },
  };
  return { ...set, ...consoleForAutomations(f, err) };
};

/** Account variables, secrets and spreadsheet accounts (issue 22). Drawn last, so the others keep their values. */
function consoleForAutomations(
  f: Parameters<AreaBuilder>[1],
  err: (code: string, message: string, extra?: Record<string, unknown>) => unknown,
): ExampleSet {
  const secret = { id: f.string.uuid(), name: 'token', domain: 'api.example.com', created_at: at(-60, 318) };
  const sheets = {
    id: f.string.uuid(),
    name: 'Planilhas da loja',
    status: 'connected',
    created_at: at(-60 * 2, 77),
    updated_at: at(-60 * 2, 77),
  };
  return {
    AdminSetVariable: { summary: 'A plan name', value: { value: 'Premium' } },
    AdminSetVariableWithoutValue: { summary: 'Known without value (reads as null)', value: { value: null } },
    AdminVariableSet: { summary: 'The variable as set', value: { name: 'plano', value: 'Premium' } },
    AdminVariableList: {
      summary: 'Two variables, one without value',
      value: {
        data: [
          { name: 'cupom', value: null },
          { name: 'plano', value: 'Premium' },
        ],
        next_cursor: null,
      },
    },
    AdminCreateSecret: {
      summary: 'A token for the CRM',
      value: { name: 'token', value: `sk_live_${f.string.alphanumeric(24)}`, domain: 'api.example.com' },
    },
    AdminSecretCreated: { summary: 'Added, without its value', value: secret },
    AdminSecretList: { summary: 'One secret, never its value', value: { data: [secret], next_cursor: null } },
    AdminSecretAlreadyExists: {
      summary: 'The name is taken',
      value: err('secret_already_exists', 'The account already has a secret named token.', { secret_id: secret.id }),
    },
    AdminCreateSpreadsheetAccount: { summary: "The shop's spreadsheets", value: { name: sheets.name } },
    AdminSpreadsheetAccountCreated: { summary: 'Connected', value: sheets },
    AdminDisconnectSpreadsheetAccount: { summary: 'Disconnected', value: { status: 'disconnected' } },
    AdminSpreadsheetAccountDisconnected: {
      summary: 'Disconnected',
      value: { ...sheets, status: 'disconnected', updated_at: at(-5, 12) },
    },
    ...sandboxSpreadsheetExamples(f, sheets.id, err),
  };
}

export default build;
