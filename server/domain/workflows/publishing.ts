// Publish, unpublish and versions (Part B). Each publish stores the draft as a new version and puts it live;
// runs in progress keep the version they started with. Publishing with `If-Match` puts live exactly the
// validated revision; without it, the current draft, retried while it keeps changing under the publish.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import {
  findVersionById,
  insertWorkflowVersion,
  nextVersionNumber,
  selectWorkflowVersionsPage,
  updateWorkflowRow,
  type WorkflowRow,
  type WorkflowVersionRow,
} from '../../store/workflows.js';
import { isRecord } from '../../guards.js';
import type { Actor } from '../accounts/actor.js';
import { outputCount } from '../../blocks/index.js';
import { accountLookups } from './lookups.js';
import { requireRevision } from './if-match.js';
import { changeWorkflow } from './mutation.js';
import { validateDefinition } from './validation.js';
import { draftToCheck, getWorkflow } from './workflows.js';

/** Publishing without If-Match validates and stores the draft; this many tries while it keeps changing. */
const PUBLISH_ATTEMPTS = 3;

/**
 * What the engine refuses to run although validation only warns: blocks with more `next` entries than
 * outputs (a draft saved by the console editor). Part B: 422 workflow_not_publishable, reason in `details`.
 */
export function engineRefusals(nodes: Record<string, unknown>): string[] {
  const refusals: string[] = [];
  for (const [id, node] of Object.entries(nodes)) {
    const outputs = outputCount(node);
    const next = isRecord(node) && isRecord(node.data) ? node.data.next : undefined;
    if (outputs !== null && Array.isArray(next) && next.length > outputs)
      refusals.push(`Block ${id} has ${next.length} next entries for ${outputs} outputs.`);
  }
  return refusals;
}

/** POST …/publish: the draft (at `expectedRevision` when given) becomes a new live version. */
export async function publishWorkflow(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  accountId: string,
  workflowId: string,
  expectedRevision: number | undefined,
): Promise<WorkflowRow> {
  for (let attempt = 1; ; attempt += 1) {
    const draft = await getWorkflow(db, accountId, workflowId);
    requireRevision(draft, expectedRevision);
    const result = await validateDefinition(draftToCheck(draft), accountLookups(db, accountId), {
      route: 'saved',
      workflowId,
      savedByEditor: draft.saved_by_editor,
    });
    if (result.errors.length > 0)
      throw new ApiError(
        422,
        'workflow_invalid',
        'Validation refused the automation: fix the errors and publish again.',
        {
          errors: result.errors,
        },
      );
    const refusals = engineRefusals(draft.graph.nodes);
    if (refusals.length > 0)
      throw new ApiError(422, 'workflow_not_publishable', 'The automation engine refused the compiled automation.', {
        details: refusals.join(' '),
      });
    const published = await changeWorkflow(db, clock, actor, {
      accountId,
      workflowId,
      basedOn: expectedRevision,
      action: 'workflow.published',
      write: async (tx, row, now) => {
        // Validated a revision that is no longer the draft: publish nothing that was not checked.
        if (row.revision !== draft.revision) return { unchanged: undefined };
        const version = await insertWorkflowVersion(tx, {
          id: randomUUID(),
          account_id: accountId,
          workflow_id: workflowId,
          number: await nextVersionNumber(tx, accountId, workflowId),
          revision: row.revision,
          title: row.title,
          description: row.description,
          channel_type: row.channel_type,
          connection_id: row.connection_id,
          trigger: row.trigger,
          graph: row.graph,
          definition_digest: row.definition_digest,
          published_at: now,
        });
        const saved = await updateWorkflowRow(
          tx,
          accountId,
          workflowId,
          {
            status: 'published',
            published_version_id: version.id,
            published_at: version.published_at,
            published_digest: version.definition_digest,
          },
          now,
          { bumpRevision: false },
        );
        return { saved, references: { holder: 'live', definition: version } };
      },
    });
    if (published) return published;
    if (attempt >= PUBLISH_ATTEMPTS)
      throw new ApiError(409, 'workflow_changed', 'The draft kept changing during the publication: publish again.');
  }
}

/** POST …/unpublish: nothing starts it any more; the draft stays. Unpublishing a draft changes nothing. */
export async function unpublishWorkflow(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  accountId: string,
  workflowId: string,
  expectedRevision: number | undefined,
): Promise<WorkflowRow> {
  return changeWorkflow<WorkflowRow, WorkflowRow>(db, clock, actor, {
    accountId,
    workflowId,
    basedOn: expectedRevision,
    action: 'workflow.unpublished',
    write: async (tx, row, now) => {
      if (row.status !== 'published') return { unchanged: row };
      const saved = await updateWorkflowRow(
        tx,
        accountId,
        workflowId,
        { status: 'draft', published_version_id: null, published_at: null, published_digest: null },
        now,
        { bumpRevision: false },
      );
      return { saved, references: { holder: 'live', definition: null } };
    },
  });
}

/** GET …/versions: newest first; 404 for an automation that is not the account's or is in the trash. */
export async function listWorkflowVersions(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  workflowId: string,
  page: PageRequest,
): Promise<Page<WorkflowVersionRow>> {
  await getWorkflow(db, accountId, workflowId);
  return selectWorkflowVersionsPage(db, await cursorCodec(db, clock), accountId, workflowId, page);
}

export async function getWorkflowVersion(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  versionId: string,
): Promise<WorkflowVersionRow> {
  await getWorkflow(db, accountId, workflowId);
  const version = await findVersionById(db, accountId, versionId, workflowId);
  if (!version) throw notFound('No such version.');
  return version;
}
