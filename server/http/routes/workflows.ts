// The /v1/workflows routes (Part B, definition side and run reads); the rules live in domain/workflows.
// Every answer carrying one automation has `ETag: "<revision>"`.
import type { Request } from 'express';
import { keyActor } from '../../domain/accounts/actor.js';
import { catalogDocument, catalogVersion } from '../../domain/workflows/catalog.js';
import { startRunFromApi } from '../../engine/api-start.js';
import { getWorkflowRun, listWorkflowRuns } from '../../domain/workflows/runs.js';
import {
  getWorkflowVersion,
  listWorkflowVersions,
  publishWorkflow,
  unpublishWorkflow,
} from '../../domain/workflows/publishing.js';
import { etagOf, IF_MATCH_HEADER, revisionOfIfMatch } from '../../domain/workflows/if-match.js';
import {
  runSummaryView,
  runView,
  versionSummaryView,
  versionView,
  workflowSummaryView,
  workflowView,
} from '../../domain/workflows/views.js';
import {
  createWorkflow,
  deleteWorkflow,
  getWorkflow,
  listWorkflows,
  updateWorkflow,
  validateSaved,
  validateUnsaved,
} from '../../domain/workflows/workflows.js';
import type { Handlers } from '../context.js';
import { pageRequest, stringParam } from '../page.js';

/** The revision the request's `If-Match` names (domain/workflows/if-match.ts reads it). */
const ifMatch = (req: Request) => revisionOfIfMatch(req.get(IF_MATCH_HEADER));

export const workflowHandlers: Handlers = {
  getWorkflowGraphSchema: () =>
    Promise.resolve({ status: 200, body: { schema: catalogDocument, catalog_version: catalogVersion } }),
  listWorkflows: async ({ app, caller, query }) => {
    const page = await listWorkflows(
      app.database.db,
      app.clock,
      caller.account.id,
      {
        status: stringParam(query.status),
        channel: stringParam(query.channel),
        connectionId: stringParam(query.connection_id),
        triggerEvent: stringParam(query.trigger_event),
        folderId: stringParam(query.folder_id),
      },
      pageRequest(query),
    );
    return { status: 200, body: { data: page.data.map(workflowSummaryView), next_cursor: page.next_cursor } };
  },
  createWorkflow: async ({ app, caller, body }) => {
    const row = await createWorkflow(app.database.db, app.clock, keyActor(caller.key), caller.account.id, body);
    return { status: 201, body: workflowView(row), headers: etagOf(row) };
  },
  validateWorkflowDefinition: async ({ app, caller, body }) => {
    const result = await validateUnsaved(app.database.db, caller.account.id, body);
    return { status: 200, body: { valid: result.errors.length === 0, ...result } };
  },
  getWorkflow: async ({ app, caller, params }) => {
    const row = await getWorkflow(app.database.db, caller.account.id, params.workflowId);
    return { status: 200, body: workflowView(row), headers: etagOf(row) };
  },
  updateWorkflow: async ({ app, caller, params, body, req }) => {
    const row = await updateWorkflow(
      app.database.db,
      app.clock,
      keyActor(caller.key),
      caller.account.id,
      params.workflowId,
      body,
      ifMatch(req),
    );
    return { status: 200, body: workflowView(row), headers: etagOf(row) };
  },
  deleteWorkflow: async ({ app, caller, params, req }) => {
    await deleteWorkflow(app.database.db, app.clock, keyActor(caller.key), caller.account.id, params.workflowId, {
      expectedRevision: ifMatch(req),
      mayUnpublish: caller.key.scopes.includes('workflows:publish'),
    });
    return { status: 200, body: { id: params.workflowId, deleted: true } };
  },
  validateWorkflow: async ({ app, caller, params }) => {
    const result = await validateSaved(app.database.db, caller.account.id, params.workflowId);
    return { status: 200, body: { valid: result.errors.length === 0, ...result } };
  },
  publishWorkflow: async ({ app, caller, params, req }) => {
    const row = await publishWorkflow(
      app.database.db,
      app.clock,
      keyActor(caller.key),
      caller.account.id,
      params.workflowId,
      ifMatch(req),
    );
    return { status: 200, body: workflowView(row), headers: etagOf(row) };
  },
  unpublishWorkflow: async ({ app, caller, params, req }) => {
    const row = await unpublishWorkflow(
      app.database.db,
      app.clock,
      keyActor(caller.key),
      caller.account.id,
      params.workflowId,
      ifMatch(req),
    );
    return { status: 200, body: workflowView(row), headers: etagOf(row) };
  },
  listWorkflowVersions: async ({ app, caller, params, query }) => {
    const page = await listWorkflowVersions(
      app.database.db,
      app.clock,
      caller.account.id,
      params.workflowId,
      pageRequest(query),
    );
    return { status: 200, body: { data: page.data.map(versionSummaryView), next_cursor: page.next_cursor } };
  },
  getWorkflowVersion: async ({ app, caller, params }) => ({
    status: 200,
    body: versionView(
      await getWorkflowVersion(app.database.db, caller.account.id, params.workflowId, params.versionId),
    ),
  }),
  listWorkflowRuns: async ({ app, caller, params, query }) => {
    const page = await listWorkflowRuns(
      app.database.db,
      app.clock,
      caller.account.id,
      params.workflowId,
      {
        contactId: stringParam(query.contact_id),
        startedAfter: stringParam(query.started_after),
        startedBefore: stringParam(query.started_before),
      },
      pageRequest(query),
    );
    return { status: 200, body: { data: page.data.map(runSummaryView), next_cursor: page.next_cursor } };
  },
  startWorkflowRun: async ({ app, caller, params, body }) => {
    const run = await startRunFromApi(
      app.database.db,
      { clock: app.clock, runsPerContactPerHour: app.config.runsPerContactPerHour },
      caller.account.id,
      params.workflowId,
      body.contact_id,
    );
    return {
      status: 202,
      body: {
        id: run.id,
        workflow_id: run.workflow_id,
        contact_id: run.contact_id,
        status: 'queued',
        created_at: run.created_at,
      },
    };
  },
  getWorkflowRun: async ({ app, caller, params }) => {
    const { run, steps, truncated } = await getWorkflowRun(
      app.database.db,
      caller.account.id,
      params.workflowId,
      params.runId,
    );
    return { status: 200, body: runView(run, steps, truncated) };
  },
};
