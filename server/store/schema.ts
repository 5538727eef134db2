// Table types for Kysely. Every table of account data carries account_id, and every repository function
// takes the account as its first argument: isolation by construction.
import type { ColumnType, Generated } from 'kysely';
import type { components as adminComponents } from '../../generated/admin-api.js';
import type { components } from '../../generated/api.js';

// Columns the API shows as they are hold the spec's values (CHECK-ed or written only by the domain rules):
// typed from the generated schemas, so a view of a row is the API shape without a cast.
type Schemas = components['schemas'];
/** The vendor console's schemas (generated/admin-api.ts). */
type AdminSchemas = adminComponents['schemas'];

/** A timestamptz column: read as an ISO string with microseconds, written as a string or Date. */
export type Timestamp = ColumnType<string, string | Date, string | Date>;
export type Json = ColumnType<unknown, string, string>;

export interface AccountsTable {
  id: string;
  name: string;
  alias: string;
  time_zone: string;
  suspended: boolean;
  api_enabled: boolean;
  /** The text the plan appends to API sends; null when the plan has no platform signature. */
  platform_signature: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** First characters of the key, shown to recognise it; the key itself is never stored. */
  hint: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  scopes: Schemas['Scope'][];
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  operation_id: string;
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: Json | null;
  response_headers: Json | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  locked_until: Timestamp;
}

export interface JobsTable {
  id: Generated<string>;
  kind: string;
  account_id: string | null;
  payload: Json;
  run_at: Timestamp;
  locked_until: Timestamp | null;
  locked_by: string | null;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: Timestamp;
  /** Set when the job gave up (no retry left); such a job is never claimed again. */
  failed_at: Timestamp | null;
  /** The resource the job waits for (e.g. a webhook endpoint's slot); not claimed until woken. */
  waiting_for: string | null;
  /** When a wait nobody ended ends anyway (set with `waiting_for`). */
  wait_until: Timestamp | null;
}

/** A running job worker (server/jobs/liveness.ts): its heartbeat on the database's clock. */
export interface JobWorkersTable {
  id: string;
  host: string;
  pid: number;
  started_at: Generated<Timestamp>;
  heartbeat_at: Generated<Timestamp>;
}

export interface RateCountersTable {
  bucket: string;
  window_start: Timestamp;
  count: number;
}

export interface AuditLogTable {
  id: Generated<string>;
  account_id: string;
  actor_type: 'api_key' | 'user' | 'admin';
  actor_id: string | null;
  action: AdminSchemas['AdminAuditLogEntry']['action'];
  target_type: AdminSchemas['AdminAuditLogEntry']['resource_type'];
  target_id: string;
  details: Json | null;
  created_at: Timestamp;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: Timestamp;
}

export interface ConnectionsTable {
  id: string;
  account_id: string;
  channel: 'instagram' | 'whatsapp';
  name: string;
  /** The instagram username (lowercase, no `@`); null on other channels. */
  username: string | null;
  /** The whatsapp number in E.164 form; null on other channels. */
  phone: string | null;
  status: 'connected' | 'disconnected';
  disconnect_reason: Schemas['Connection']['disconnect_reason'];
  /** Who carries the connection's messages: the sandbox (the default) or a real channel's API. */
  provider: ColumnType<ChannelProviderName, ChannelProviderName | undefined, ChannelProviderName>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ChannelProviderName = 'sandbox' | 'whatsapp_cloud' | 'instagram_graph';

/** A connection served by a real channel: its number's ids on Meta and its sealed token (never in the clear). */
export interface ConnectionProvidersTable {
  connection_id: string;
  account_id: string;
  provider: 'whatsapp_cloud' | 'instagram_graph';
  /** whatsapp_cloud: the number's id on Meta; null on instagram_graph. */
  phone_number_id: string | null;
  /** whatsapp_cloud: its WhatsApp Business Account; null on instagram_graph. */
  waba_id: string | null;
  /** instagram_graph: which login the token came from (`instagram`: graph.instagram.com; `facebook`: a Page's). */
  login: ColumnType<'instagram' | 'facebook' | null, 'instagram' | 'facebook' | null | undefined>;
  /** instagram_graph: the professional account's Instagram id (the webhook's `entry.id` / `recipient.id`). */
  ig_user_id: ColumnType<string | null, string | null | undefined>;
  /** instagram_graph with Facebook Login: the Page the account is linked to (sends go to it). */
  page_id: ColumnType<string | null, string | null | undefined>;
  /** instagram_graph: the username the token read (lowercase, no `@`). */
  username: ColumnType<string | null, string | null | undefined>;
  /** AES-256-GCM under CHANNEL_CREDENTIALS_KEY, with its key id (domain/channels/credentials.ts). */
  sealed_token: string;
  token_last4: string;
  verified_name: string | null;
  templates_synced_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CustomFieldOptionRow {
  value: string;
  label: string;
}

export interface CustomFieldsTable {
  id: string;
  account_id: string;
  /** The key, derived from the label at creation and never changed. */
  name: string;
  label: string;
  type: 'number' | 'text' | 'dropdown';
  /** The options of a dropdown, in console order (jsonb); null on other types. */
  options: ColumnType<CustomFieldOptionRow[] | null, string | null, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every custom-field key an account ever used, so a key is never given to a second field. */
export interface CustomFieldKeysTable {
  account_id: string;
  name: string;
  created_at: Timestamp;
}

export interface TemplatesTable {
  id: string;
  account_id: string;
  connection_id: string;
  name: string;
  language: string;
  body: string;
  variable_count: number;
  status: 'approved' | 'pending' | 'rejected' | 'paused' | 'disabled';
  unsupported_features: AdminSchemas['TemplateFeature'][];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UploadsTable {
  id: string;
  account_id: string;
  name: string;
  content_type: string;
  size: number;
  created_at: Timestamp;
}

/** An account variable (`{account.<name>}`); `value` null: known without value. */
export interface AccountVariablesTable {
  account_id: string;
  name: string;
  value: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An account secret (`{secret.<name>}`): `value` is write-only, never in an answer, a log or the audit log. */
export interface AccountSecretsTable {
  id: string;
  account_id: string;
  name: string;
  value: string;
  /** The one host name the secret may be sent to. */
  domain: string;
  created_at: Timestamp;
}

export interface SpreadsheetAccountsTable {
  id: string;
  account_id: string;
  name: string;
  status: 'connected' | 'disconnected';
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A tab of a sandbox spreadsheet: row 1 holds the column titles; every cell is text (never a formula). */
export interface SandboxSpreadsheetTab {
  title: string;
  rows: string[][];
}

export interface SandboxSpreadsheetsTable {
  id: string;
  account_id: string;
  spreadsheet_account_id: string;
  name: string;
  tabs: ColumnType<SandboxSpreadsheetTab[], string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TagsTable {
  id: string;
  account_id: string;
  name: string;
  /** The name with letter case folded (domain/tags `tagNameKey`): unique among the account's active tags. */
  name_key: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when deleted: the tag answers 404 and its name is free again. */
  deleted_at: Timestamp | null;
}

export interface ContactsTable {
  id: string;
  account_id: string;
  /** Shared by the person's contacts on other channels. */
  person_id: string;
  channel: 'instagram' | 'whatsapp';
  connection_id: string;
  name: string;
  /** E.164, as the channel identifies the number (a Brazilian mobile may lack its ninth digit). */
  phone: string | null;
  /** The phone as the service compares it: a Brazilian mobile always with its ninth digit. */
  phone_key: string | null;
  instagram_id: string | null;
  instagram_username: string | null;
  last_interaction_at: Timestamp;
  created_at: Timestamp;
  /** The last activity (a message or a console edit); API changes never move it. */
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  /** The account blocked the contact from automations: API sends to it are refused (contact_blocked). */
  blocked_from_automations: ColumnType<boolean, boolean | undefined, boolean>;
  /** The contact's automations are paused until then (a pause-automations block). */
  automations_paused_until: ColumnType<string | null, string | Date | null | undefined, string | Date | null>;
}

export interface ContactTagsTable {
  account_id: string;
  contact_id: string;
  tag_id: string;
  tagged_at: Timestamp;
}

/** A custom-field value: a JSON number or string (a dropdown's option `value`). */
export type FieldValue = number | string;

export interface ContactFieldValuesTable {
  account_id: string;
  contact_id: string;
  field_id: string;
  value: ColumnType<FieldValue, string, string>;
  updated_at: Timestamp;
}

export interface ContactHistoryTable {
  id: Generated<string>;
  account_id: string;
  contact_id: string;
  kind: AdminSchemas['AdminContactHistoryEntry']['kind'];
  actor_type: AdminSchemas['AdminContactHistoryEntry']['actor']['type'];
  actor_id: string | null;
  actor_name: string | null;
  details: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export interface EventsTable {
  id: string;
  sequence: Generated<string>;
  account_id: string;
  type: Schemas['WebhookEventType'];
  resource_type: string;
  resource_id: string;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface ConversationsTable {
  id: string;
  account_id: string;
  contact_id: string;
  connection_id: string;
  channel: 'instagram' | 'whatsapp';
  /** False while the contact only commented: the list leaves the conversation out. */
  in_inbox: boolean;
  last_message_at: Timestamp | null;
  /** The contact's last direct message: the 24-hour reply window runs from it. */
  last_inbound_at: Timestamp | null;
  marked_unread: ColumnType<boolean, boolean | undefined, boolean>;
  /** instagram: since when another app owns the thread (Meta's `standby`); null: ours. */
  owned_elsewhere_since: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

type JsonColumn<T> = ColumnType<T, string, string>;

/** A card image as messages.attachments holds it: the API's without its `url` (the service base may change). */
export type StoredCardImage = Omit<Schemas['MessageCardImage'], 'url'>;
/** A card as messages.attachments holds it: its image without the `url`. */
export type StoredCard = Omit<Schemas['MessageCard'], 'image'> & { image: StoredCardImage | null };
/** An attachment as messages.attachments holds it: the API's read-back shape without the `url` fields. */
export type StoredAttachment = Omit<Schemas['MediaAttachment'], 'url'> | { type: 'cards'; cards: StoredCard[] };

export interface MessagesTable {
  id: string;
  account_id: string;
  conversation_id: string;
  contact_id: string;
  connection_id: string;
  channel: 'instagram' | 'whatsapp';
  type: Schemas['Message']['type'];
  direction: 'inbound' | 'outbound';
  sender_type: Schemas['MessageSender']['type'];
  sender_user_id: string | null;
  sender_name: string | null;
  sender_workflow_id: string | null;
  sender_api_key_id: string | null;
  text: string | null;
  attachments: JsonColumn<StoredAttachment[]>;
  template: JsonColumn<Schemas['MessageTemplate']> | null;
  reply_to_message_id: string | null;
  button: JsonColumn<Schemas['MessageButton']> | null;
  post: JsonColumn<Schemas['MessagePost']> | null;
  status: Schemas['Message']['status'];
  failure: JsonColumn<Schemas['MessageFailure']> | null;
  is_unsupported: ColumnType<boolean, boolean | undefined, boolean>;
  is_removed: ColumnType<boolean, boolean | undefined, boolean>;
  is_edited: ColumnType<boolean, boolean | undefined, boolean>;
  reactions: JsonColumn<Schemas['MessageReaction'][]>;
  read_at: Timestamp | null;
  provider_message_id: string | null;
  /** The highest status the channel reported for a sent message (sent 1, delivered 2, read 3, failed 4). */
  provider_status_rank: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
}

export interface MediaTable {
  id: string;
  account_id: string;
  /** `console`: a console upload an automation sent (same id); `link`: a `media_url` an automation sent. */
  origin: 'upload' | 'received' | 'console' | 'link';
  content_type: string | null;
  filename: string | null;
  size: ColumnType<string | null, number | null, number | null>;
  /** Uploads: the end of the 5-minute upload window. */
  upload_expires_at: Timestamp | null;
  /** Uploads: when the bytes arrived (null: nothing uploaded). */
  uploaded_at: Timestamp | null;
  /** Received media: when it is stored and downloadable (404 before). */
  available_at: Timestamp | null;
  /** Received media: the end of retention (410 media_expired after). Null for uploads, kept with the account. */
  expires_at: Timestamp | null;
  /** `link`: the address the content route redirects to. */
  source_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** Uploads: the format the first bytes show (file-type's extension), '' for none known; null: not checked. */
  detected_format: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface SandboxArrangementsTable {
  id: Generated<string>;
  account_id: string;
  connection_id: string;
  outcome: JsonColumn<unknown>;
  created_at: Timestamp;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  /** Without repeats, in alphabetical order. */
  event_types: Schemas['WebhookEventType'][];
  status: 'enabled' | 'disabled';
  disabled_reason: 'requested' | 'failing' | null;
  disabled_at: Timestamp | null;
  failing_since: Timestamp | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  webhook_id: string;
  event_id: string;
  event_type: Schemas['WebhookEventType'];
  event_created_at: Timestamp;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_response_status: number | null;
  last_error: Schemas['WebhookDelivery']['last_error'];
  delivered_at: Timestamp | null;
  /** The lease of an attempt under way (at most 5 per endpoint). */
  in_flight_until: Timestamp | null;
  created_at: Timestamp;
}

export interface AccountNotificationsTable {
  id: string;
  account_id: string;
  kind: AdminSchemas['AdminNotification']['kind'];
  subject_type: AdminSchemas['AdminNotification']['subject']['type'];
  subject_id: string;
  details: JsonColumn<AdminSchemas['AdminNotification']['details']>;
  created_at: Timestamp;
}

export interface WorkflowFoldersTable {
  id: string;
  account_id: string;
  type: Generated<string>;
  name: string;
  parent_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RepliesListsTable {
  id: string;
  account_id: string;
  name: string;
  /** The name with letter case folded (as tag names): unique in the account. */
  name_key: string;
  replies: ColumnType<string[], string, string>;
  reply_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WorkflowsTable {
  id: string;
  account_id: string;
  title: string;
  description: string | null;
  channel_type: Schemas['ChannelType'];
  /** Null on instagram: the connected instagram account. */
  connection_id: string | null;
  trigger: ColumnType<Schemas['WorkflowTrigger'], string, string>;
  graph: ColumnType<Schemas['WorkflowGraph'], string, string>;
  folder_id: string | null;
  revision: Generated<number>;
  saved_by_editor: Generated<boolean>;
  definition_digest: string;
  status: 'draft' | 'published';
  published_version_id: string | null;
  published_at: Timestamp | null;
  /** definition_digest of the live version. */
  published_digest: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface WorkflowVersionsTable {
  id: string;
  account_id: string;
  workflow_id: string;
  number: number;
  revision: number;
  title: string;
  description: string | null;
  channel_type: Schemas['ChannelType'];
  connection_id: string | null;
  trigger: ColumnType<Schemas['WorkflowTrigger'], string, string>;
  graph: ColumnType<Schemas['WorkflowGraph'], string, string>;
  definition_digest: string;
  published_at: Timestamp;
}

export interface WorkflowReferencesTable {
  account_id: string;
  workflow_id: string;
  holder: 'draft' | 'live';
  kind: 'tag' | 'replies_list';
  name: string;
}

export interface WorkflowRunsTable {
  id: string;
  account_id: string;
  workflow_id: string;
  version_id: string;
  contact_id: string;
  channel: Schemas['ChannelType'];
  connection_id: string;
  source: 'trigger' | 'api' | 'console' | 'workflow';
  status: Schemas['WorkflowRunStatus'];
  created_at: Timestamp;
  updated_at: Timestamp;
  ended_at: Timestamp | null;
  /** The block the run stands on (waits at, or runs next). */
  node_id: string | null;
  waiting_for: 'answer' | 'tap' | 'timer' | 'child' | 'call' | 'send' | null;
  wait_until: Timestamp | null;
  wait_message_id: string | null;
  /** The step the run waits at (its tap, answer or timer closes it). */
  wait_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** Buttons still waiting for a tap while their after-send branch runs or waits: their step, block, message. */
  tap_step: ColumnType<number | null, number | null | undefined, number | null>;
  tap_node_id: ColumnType<string | null, string | null | undefined, string | null>;
  tap_message_id: ColumnType<string | null, string | null | undefined, string | null>;
  tap_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** Runs of each block so far (the loop guard). */
  visits: ColumnType<Record<string, number>, string | undefined, string>;
  /** The run's own variables: answers and the fields it wrote. */
  variables: ColumnType<Record<string, string | null>, string | undefined, string>;
  trigger_context: ColumnType<RunTriggerContext, string | undefined, string>;
  parent_run_id: string | null;
  step_count: Generated<number>;
}

/** How a run started: what the message variables and comment-started rules read. */
export interface RunTriggerContext {
  /** The text of the message or comment that started it (message.trigger). */
  text?: string | null;
  interaction_type?: 'dm' | 'dm_sent' | 'comment' | 'story' | 'live' | 'mention' | null;
  message_id?: string | null;
  post_id?: string | null;
  post_url?: string | null;
  /** A comment-started run: its first message goes as a private reply; then 'sent' until the contact answers. */
  private_reply?: 'pending' | 'sent' | 'done';
}

export interface WorkflowRandomizerCountsTable {
  workflow_id: string;
  node_id: string;
  counts: ColumnType<number[], string, string>;
}

export interface WorkflowRunStepsTable {
  id: string;
  account_id: string;
  run_id: string;
  seq: number;
  node_id: string | null;
  type: string;
  status: Schemas['WorkflowRunStep']['status'];
  output: number | null;
  message_id: string | null;
  error: ColumnType<Schemas['WorkflowRunStep']['error'], string | null, string | null>;
  started_at: Timestamp;
  ended_at: Timestamp | null;
  /** An invoke step's request and answer as the step shows them (issue 22). */
  call: ColumnType<WorkflowRunStepCall | null, string | null | undefined, string | null>;
}

export type WorkflowRunStepCall = NonNullable<Schemas['WorkflowRunStep']['call']>;

/** A piece of an invoke request's header value or body: text as rendered, or a secret named, resolved at call time. */
export type InvokeSegment = string | { secret: string };

/** An invoke request as the block rendered it: variables substituted, secrets by name only (never their values). */
export interface InvokeRequest {
  node_id: string;
  method: string;
  url: string;
  headers: Array<{ name: string; value: InvokeSegment[] }>;
  body: InvokeSegment[] | null;
  /** The body is JSON (no Content-Type header, or a JSON one): a secret's value enters it JSON-escaped. */
  json: boolean;
  fields: Array<{ path: string; name: string }>;
}

/** One invoke step's call (issue 22): its request, its attempts so far and, once done, its outcome. */
export interface InvokeCallsTable {
  id: string;
  account_id: string;
  run_id: string;
  step: number;
  request: ColumnType<InvokeRequest, string, string>;
  status: 'pending' | 'done' | 'cancelled';
  attempts: ColumnType<number, number | undefined, number>;
  output: number | null;
  response_status: number | null;
  error: ColumnType<{ code: string; message: string } | null, string | null, string | null>;
  /** The values the answer gives each field (key → value), the copy's input; never the whole body. */
  field_values: ColumnType<Record<string, string> | null, string | null, string | null>;
  excerpt: string | null;
  duration_ms: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A link button an automation sent to a contact (issue 22): its token, and where and by which run it went last. */
export interface TrackedLinksTable {
  id: string;
  token: string;
  account_id: string;
  workflow_id: string;
  contact_id: string;
  channel: 'instagram' | 'whatsapp';
  node_id: string;
  /** The button's place in its block (`b<i>`, or `c<card>b<i>`): one row per button, whatever its `id`. */
  button_key: string;
  button_id: string | null;
  /** The output an open follows (instagram); null on whatsapp. */
  output: number | null;
  url: string;
  run_id: string;
  message_id: string | null;
  last_sent_at: Timestamp;
  created_at: Timestamp;
}

/** A whatsapp handoff button an instagram automation sent (issue 22): its reference code and what it continues. */
export interface WhatsappHandoffsTable {
  id: string;
  /** The reference code, upper case without its `#`. */
  code: string;
  account_id: string;
  workflow_id: string;
  run_id: string;
  /** The instagram contact the button went to. */
  contact_id: string;
  /** The whatsapp connection the chat opens with. */
  connection_id: string;
  node_id: string;
  /** The button's place in its block (`b<i>`, or `c<card>b<i>`). */
  button_key: string;
  /** The output the code's message follows. */
  output: number;
  message_id: string | null;
  created_at: Timestamp;
  used_at: Timestamp | null;
  /** The whatsapp contact that sent the code, and the run that went on there. */
  used_by_contact_id: string | null;
  continued_run_id: string | null;
}

export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  job_workers: JobWorkersTable;
  rate_counters: RateCountersTable;
  audit_log: AuditLogTable;
  service_secrets: ServiceSecretsTable;
  connections: ConnectionsTable;
  connection_providers: ConnectionProvidersTable;
  custom_fields: CustomFieldsTable;
  custom_field_keys: CustomFieldKeysTable;
  tags: TagsTable;
  templates: TemplatesTable;
  uploads: UploadsTable;
  account_variables: AccountVariablesTable;
  account_secrets: AccountSecretsTable;
  spreadsheet_accounts: SpreadsheetAccountsTable;
  sandbox_spreadsheets: SandboxSpreadsheetsTable;
  contacts: ContactsTable;
  contact_tags: ContactTagsTable;
  contact_field_values: ContactFieldValuesTable;
  contact_history: ContactHistoryTable;
  events: EventsTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  media: MediaTable;
  sandbox_arrangements: SandboxArrangementsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  account_notifications: AccountNotificationsTable;
  workflow_folders: WorkflowFoldersTable;
  replies_lists: RepliesListsTable;
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
  workflow_references: WorkflowReferencesTable;
  workflow_runs: WorkflowRunsTable;
  workflow_run_steps: WorkflowRunStepsTable;
  workflow_randomizer_counts: WorkflowRandomizerCountsTable;
  tracked_links: TrackedLinksTable;
  whatsapp_handoffs: WhatsappHandoffsTable;
  invoke_calls: InvokeCallsTable;
}
