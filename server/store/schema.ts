// Table types for Kysely. Every table of account data carries account_id, and every repository function
// takes the account as its first argument: isolation by construction.
import type { ColumnType, Generated } from 'kysely';

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
  scopes: string[];
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
  action: string;
  target_type: string;
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
  disconnect_reason: string | null;
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
  unsupported_features: string[];
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

export interface TagsTable {
  id: string;
  account_id: string;
  name: string;
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
  kind: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  details: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export interface EventsTable {
  id: string;
  sequence: Generated<string>;
  account_id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  rate_counters: RateCountersTable;
  audit_log: AuditLogTable;
  service_secrets: ServiceSecretsTable;
  connections: ConnectionsTable;
  custom_fields: CustomFieldsTable;
  custom_field_keys: CustomFieldKeysTable;
  tags: TagsTable;
  templates: TemplatesTable;
  uploads: UploadsTable;
  contacts: ContactsTable;
  contact_tags: ContactTagsTable;
  contact_field_values: ContactFieldValuesTable;
  contact_history: ContactHistoryTable;
  events: EventsTable;
}
