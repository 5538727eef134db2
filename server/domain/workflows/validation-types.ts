// The contract between staged validation (./validation.ts) and its callers: the validate routes, create and
// update (which map problems to 422 invalid_graph / invalid_channel / invalid_trigger) and publish
// (422 workflow_invalid). Validation reads the account only through `AccountLookups`, so it is tested with a
// fake and run against the database by ./lookups.ts.
import type { components } from '../../../generated/api.js';

type Schemas = components['schemas'];

export type ValidationIssue = Schemas['ValidationIssue'];
export type ValidationCode = ValidationIssue['code'];
export type ChannelType = Schemas['ChannelType'];
export type TriggerInput = Schemas['WorkflowTriggerInput'];

export interface ValidationResult {
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

/** The channel as sent: `connection_id` absent or null means none (required on whatsapp). */
export interface ChannelToCheck {
  type: ChannelType;
  connection_id?: string | null;
}

/** A definition to validate: the unsaved route's body, a create/update's result, or a saved draft. */
export interface DefinitionToCheck {
  channel: ChannelToCheck;
  trigger: TriggerInput;
  /** `graph.nodes` as sent or stored: anything (stage 1 checks it). */
  nodes: Record<string, unknown>;
}

/** Another automation of the account, as `start` blocks and keyword collisions need it. */
export interface OtherWorkflow {
  id: string;
  title: string;
  /** In the trash. */
  deleted: boolean;
  /** Published, with the channel of its live version. */
  live: { channel: ChannelToCheck; trigger: TriggerInput } | null;
}

/** What validation asks of the account, in batches (one query per kind, whatever the graph's size). */
export interface AccountLookups {
  /** Of `names`, those that are names of the account's tags, compared exactly (case and accents). */
  existingTagNames(names: readonly string[]): Promise<Set<string>>;
  /** Of `keys`, those that are keys of the account's custom fields. */
  existingCustomFieldKeys(keys: readonly string[]): Promise<Set<string>>;
  /** Of `ids`, those that are the account's console uploads. */
  existingUploadIds(ids: readonly string[]): Promise<Set<string>>;
  /** The account's connections among `ids`. */
  connections(ids: readonly string[]): Promise<Map<string, { channel: ChannelType; connected: boolean }>>;
  /** The account's connected instagram connection, if any (an instagram automation without connection_id runs there). */
  connectedInstagram(): Promise<string | null>;
  repliesListExists(id: string): Promise<boolean>;
  /** The account's automations among `ids`, trashed ones included (start blocks). */
  workflows(ids: readonly string[]): Promise<Map<string, OtherWorkflow>>;
  /** The account's published automations, live channel and trigger (keyword_collision), except `exceptId`. */
  publishedWorkflows(exceptId: string | null): Promise<OtherWorkflow[]>;
}

/**
 * Which route asks. `unsaved`: POST /v1/workflows/validate (a channel problem also hides publish rules).
 * `saved`: POST …/{id}/validate and publish (a draft saved by the console editor may carry extra `next`
 * entries: a warning then, not an error).
 */
export interface ValidationOptions {
  route: 'unsaved' | 'saved';
  /** The automation validated (saved route): left out of keyword collisions and self-`start` checks. */
  workflowId?: string | null;
  savedByEditor?: boolean;
}
