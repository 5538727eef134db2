// Automations as data (Part B): create, read, list, update with revisions, the console editor's save, delete to
// the trash, and the two validate routes. Publishing is ./publishing.ts; the checks are ./validation.ts; the
// sequence every change of a stored automation follows (lock, revision, write, references, audit) is ./mutation.ts.
//
// Revisions: `revision` counts changes to the draft (API updates, editor saves, folder moves). An API update
// needs `If-Match` with the current revision (428 without, 412 when stale), checked under the row's lock, so
// two concurrent updates with the same revision cannot both pass. The editor saves without a revision; an API
// change based on the revision before that save is refused (412) rather than overwriting it.
import { createHash, randomUUID } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import type { Kysely } from 'kysely';
import type { components as adminComponents } from '../../../generated/admin-api.js';
import type { components } from '../../../generated/api.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { cursorCodec } from '../../store/cursor.js';
import { STOP_RUNS_JOB } from '../../job-kinds.js';
import { enqueue } from '../../store/jobs.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import { isForeignKeyViolation } from '../../store/folders.js';
import { findRepliesList } from '../../store/replies-lists.js';
import { selectConnectedInstagram } from '../../store/workflow-lookups.js';
import {
  findActiveWorkflow,
  findActiveWorkflowAccount,
  insertWorkflow,
  selectWorkflowsPage,
  updateWorkflowRow,
  type WorkflowChanges,
  type WorkflowRow,
} from '../../store/workflows.js';
import { audit, type Actor } from '../accounts/actor.js';
import { requireWorkflowFolder, unknownFolder } from './folders.js';
import { positioned } from './graph.js';
import { graphIdPlaces } from './catalog.js';
import { canonicalizeAt } from '../../ids.js';
import { accountLookups } from './lookups.js';
import { requireIfMatch, requireRevision } from './if-match.js';
import { changeWorkflow, workflowNotFound } from './mutation.js';
import { recordReferences } from './references.js';
import { validateDefinition, writeProblem } from './validation.js';
import type { DefinitionToCheck, ValidationResult } from './validation-types.js';

type Schemas = components['schemas'];
/** The vendor console's schemas (generated/admin-api.ts). */
type AdminSchemas = adminComponents['schemas'];
export type WorkflowCreateBody = Schemas['WorkflowCreate'];
export type WorkflowUpdateBody = Schemas['WorkflowUpdate'];
type Trigger = Schemas['WorkflowTrigger'];
type Graph = Schemas['WorkflowGraph'];

/** A new automation's graph when none is sent: only the root block (Part B). */
const ROOT_ONLY: Schemas['WorkflowGraphInput'] = { nodes: { root: { type: 'root', data: { next: [null] } } } };

/** The trigger with every default filled in, as stored and returned. */
export function triggerWithDefaults(trigger: Schemas['WorkflowTriggerInput']): Trigger {
  return {
    events: trigger.events,
    match: trigger.match,
    keywords: trigger.keywords ?? [],
    posts: trigger.posts ?? null,
    next_post: trigger.next_post ?? false,
    replies_list_id: trigger.replies_list_id ?? null,
  };
}

/**
 * The graph as stored: every block with a position (computed when missing, kept when sent), and the ids its
 * blocks name (the catalog's `format: uuid` fields) in their canonical lower-case form, as every id that enters.
 */
export function graphToStore(graph: Schemas['WorkflowGraphInput'] | undefined): Graph {
  const source = graph ?? ROOT_ONLY;
  canonicalizeAt(source.nodes, graphIdPlaces);
  // Stored blocks all carry a position (the missing ones filled in), which makes them WorkflowNodes; everything
  // else in a block is kept as received (Part B rule 8).
  return { ...source, nodes: positioned(source.nodes) };
}

/** What runs, as a digest: title, description, channel, trigger, graph (not the folder). */
export function definitionDigest(row: {
  title: string;
  description: string | null;
  channel_type: string;
  connection_id: string | null;
  trigger: Trigger;
  graph: Graph;
}): string {
  const { title, description, channel_type, connection_id, trigger, graph } = row;
  return (
    createHash('sha256')
      // Keys sorted, so equal definitions give equal digests whatever the key order sent.
      .update(stableStringify({ title, description, channel_type, connection_id, trigger, graph }))
      .digest('hex')
  );
}

/** The definition of a stored draft, as validation reads it. */
export const draftToCheck = (row: WorkflowRow): DefinitionToCheck => ({
  channel: { type: row.channel_type, connection_id: row.connection_id },
  trigger: row.trigger,
  nodes: row.graph.nodes,
});

const description = (value: string | null | undefined): string | null => (value ? value : null);

/**
 * Inside the write's transaction: the reply list the trigger names is held (FOR SHARE), so a concurrent
 * deletion of the list either sees this save's references or waits for it. Checked before the transaction
 * too (validation); this closes the gap between the two.
 */
async function holdRepliesList(tx: Kysely<DB>, accountId: string, trigger: Trigger): Promise<void> {
  if (!trigger.replies_list_id) return;
  if (!(await findRepliesList(tx, accountId, trigger.replies_list_id, { forShare: true })))
    throw new ApiError(422, 'invalid_trigger', 'The trigger names a reply list the account does not have.', {
      reason: 'replies_list_not_found',
    });
}

/** A folder deleted between the check and the write: the foreign key refuses it, answered as the check would. */
async function folderGoneIsNotFound<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownFolder('folder_id');
    throw error;
  }
}

export async function createWorkflow(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  accountId: string,
  body: WorkflowCreateBody,
): Promise<WorkflowRow> {
  const trigger = triggerWithDefaults(body.trigger);
  const graph = graphToStore(body.graph);
  const channel = { type: body.channel.type, connection_id: body.channel.connection_id ?? null };
  const problem = await writeProblem({ channel, trigger, nodes: graph.nodes }, accountLookups(db, accountId), {
    workflowId: null,
  });
  if (problem) throw problem;
  if (body.folder_id) await requireWorkflowFolder(db, accountId, body.folder_id, 'folder_id');
  const now = clock.now().toISOString();
  const draft = {
    title: body.title,
    description: description(body.description),
    channel_type: channel.type,
    connection_id: channel.connection_id,
    trigger,
    graph,
  };
  return folderGoneIsNotFound(() =>
    db.transaction().execute(async (tx) => {
      await holdRepliesList(tx, accountId, trigger);
      const row = await insertWorkflow(tx, {
        id: randomUUID(),
        account_id: accountId,
        ...draft,
        folder_id: body.folder_id ?? null,
        definition_digest: definitionDigest(draft),
        status: 'draft',
        published_version_id: null,
        published_at: null,
        published_digest: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
      await recordReferences(tx, accountId, row.id, 'draft', row);
      await audit(tx, actor, { accountId, action: 'workflow.created', targetType: 'workflow', targetId: row.id }, now);
      return row;
    }),
  );
}

export async function getWorkflow(db: Kysely<DB>, accountId: string, workflowId: string): Promise<WorkflowRow> {
  const row = await findActiveWorkflow(db, accountId, workflowId);
  if (!row) throw workflowNotFound();
  return row;
}

export interface WorkflowListFilters {
  status?: WorkflowRow['status'] | undefined;
  channel?: WorkflowRow['channel_type'] | undefined;
  connectionId?: string | undefined;
  triggerEvent?: string | undefined;
  folderId?: string | undefined;
}

/** GET /v1/workflows: oldest first; a folder filter naming no workflow folder of the account is 422. */
export async function listWorkflows(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  filters: WorkflowListFilters,
  page: PageRequest,
): Promise<Page<WorkflowRow>> {
  if (filters.folderId !== undefined) await requireWorkflowFolder(db, accountId, filters.folderId, 'folder_id');
  const connectedInstagram =
    filters.connectionId !== undefined ? (await selectConnectedInstagram(db, accountId))?.id : undefined;
  return selectWorkflowsPage(
    db,
    await cursorCodec(db, clock),
    accountId,
    { ...filters, connectionIsConnectedInstagram: connectedInstagram === filters.connectionId },
    page,
  );
}

const sameChannel = (row: WorkflowRow, channel: Schemas['WorkflowChannelInput']) =>
  row.channel_type === channel.type && row.connection_id === (channel.connection_id ?? null);

/**
 * PATCH /v1/workflows/{id}: only the fields sent change (`graph` and `trigger` whole). Needs the current
 * revision; a published automation keeps its channel (409 workflow_published); the running copy is unchanged.
 */
export async function updateWorkflow(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  accountId: string,
  workflowId: string,
  body: WorkflowUpdateBody,
  expectedRevision: number | undefined,
): Promise<WorkflowRow> {
  const basedOn = requireIfMatch(expectedRevision);
  // Checks that read other rows run before the lock; the revision check under it makes them apply to exactly
  // the draft they were made against.
  const before = await getWorkflow(db, accountId, workflowId);
  requireRevision(before, basedOn);
  const changes = await draftChanges(db, accountId, before, body);
  return folderGoneIsNotFound(() =>
    changeWorkflow(db, clock, actor, {
      accountId,
      workflowId,
      basedOn,
      action: 'workflow.updated',
      write: async (tx, _row, now) => {
        if (changes.trigger) await holdRepliesList(tx, accountId, changes.trigger);
        // A graph sent through the API is checked whole (extras refused): it is no longer the editor's.
        const editor = body.graph !== undefined ? { saved_by_editor: false } : {};
        const saved = await updateWorkflowRow(tx, accountId, workflowId, { ...changes, ...editor }, now, {
          bumpRevision: true,
        });
        const definitionSent = body.graph !== undefined || body.trigger !== undefined;
        return { saved, references: definitionSent ? { holder: 'draft', definition: saved } : 'kept' };
      },
    }),
  );
}

/** The row changes a PATCH body makes to `row`, checked as create checks them. */
async function draftChanges(
  db: Kysely<DB>,
  accountId: string,
  row: WorkflowRow,
  body: WorkflowUpdateBody,
): Promise<WorkflowChanges> {
  if (body.channel !== undefined && row.status === 'published' && !sameChannel(row, body.channel))
    throw new ApiError(409, 'workflow_published', 'A published automation cannot change channel: unpublish it first.');
  const draft = {
    title: body.title ?? row.title,
    description: body.description !== undefined ? description(body.description) : row.description,
    channel_type: body.channel?.type ?? row.channel_type,
    connection_id: body.channel ? (body.channel.connection_id ?? null) : row.connection_id,
    trigger: body.trigger ? triggerWithDefaults(body.trigger) : row.trigger,
    graph: body.graph ? graphToStore(body.graph) : row.graph,
  };
  if (body.channel !== undefined || body.trigger !== undefined || body.graph !== undefined) {
    const problem = await writeProblem(
      {
        channel: { type: draft.channel_type, connection_id: draft.connection_id },
        trigger: draft.trigger,
        nodes: draft.graph.nodes,
      },
      accountLookups(db, accountId),
      { workflowId: row.id },
    );
    if (problem) throw problem;
  }
  if (body.folder_id) await requireWorkflowFolder(db, accountId, body.folder_id, 'folder_id');
  return {
    ...draft,
    ...(body.folder_id !== undefined ? { folder_id: body.folder_id } : {}),
    definition_digest: definitionDigest(draft),
  };
}

/**
 * The console editor's save (admin API, which names the automation by id alone): no revision, no checks
 * beyond the format, so it may overwrite an API change; extra `next` entries are kept.
 */
export async function saveDraftFromEditor(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  workflowId: string,
  body: AdminSchemas['AdminWorkflowDraftSave'],
): Promise<WorkflowRow> {
  const accountId = await findActiveWorkflowAccount(db, workflowId);
  if (!accountId) throw workflowNotFound();
  return changeWorkflow(db, clock, actor, {
    accountId,
    workflowId,
    basedOn: undefined,
    action: 'workflow.updated',
    write: async (tx, row, now) => {
      const draft = {
        title: body.title ?? row.title,
        description: body.description !== undefined ? description(body.description) : row.description,
        channel_type: row.channel_type,
        connection_id: row.connection_id,
        trigger: body.trigger ? triggerWithDefaults(body.trigger) : row.trigger,
        graph: body.graph ? graphToStore(body.graph) : row.graph,
      };
      const saved = await updateWorkflowRow(
        tx,
        accountId,
        workflowId,
        { ...draft, definition_digest: definitionDigest(draft), saved_by_editor: true },
        now,
        { bumpRevision: true },
      );
      return { saved, references: { holder: 'draft', definition: saved } };
    },
  });
}

/**
 * DELETE /v1/workflows/{id}: to the trash (it answers 404 from then on), unpublished if published, which needs
 * `workflows:publish` too. `If-Match` is optional.
 */
export async function deleteWorkflow(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  accountId: string,
  workflowId: string,
  options: { expectedRevision: number | undefined; mayUnpublish: boolean },
): Promise<void> {
  await changeWorkflow(db, clock, actor, {
    accountId,
    workflowId,
    basedOn: options.expectedRevision,
    action: 'workflow.deleted',
    write: async (tx, row, now) => {
      if (row.status === 'published' && !options.mayUnpublish)
        throw new ApiError(
          403,
          'insufficient_scope',
          'Deleting a published automation needs the scope workflows:publish.',
          {
            required_scope: 'workflows:publish',
          },
        );
      await updateWorkflowRow(
        tx,
        accountId,
        workflowId,
        { deleted_at: now, status: 'draft', published_version_id: null, published_at: null, published_digest: null },
        now,
        { bumpRevision: false },
      );
      return { saved: undefined, references: 'dropped' };
    },
    then: async (tx) => {
      // Its runs in progress stop; the engine does it (this domain never imports the engine).
      await enqueue(tx, clock, { kind: STOP_RUNS_JOB, accountId, payload: { workflow_id: workflowId } });
    },
  });
}

/** POST /v1/workflows/validate: a definition that is not saved. */
export async function validateUnsaved(
  db: Kysely<DB>,
  accountId: string,
  body: Schemas['WorkflowValidateRequest'],
): Promise<ValidationResult> {
  const graph = graphToStore(body.graph);
  return validateDefinition(
    { channel: body.channel, trigger: triggerWithDefaults(body.trigger), nodes: graph.nodes },
    accountLookups(db, accountId),
    { route: 'unsaved' },
  );
}

/** POST /v1/workflows/{id}/validate: the saved draft, with the revision checked. */
export async function validateSaved(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
): Promise<ValidationResult & { revision: number }> {
  const row = await getWorkflow(db, accountId, workflowId);
  const result = await validateDefinition(draftToCheck(row), accountLookups(db, accountId), {
    route: 'saved',
    workflowId: row.id,
    savedByEditor: row.saved_by_editor,
  });
  return { ...result, revision: row.revision };
}
