// Rows → the API's shapes of automations, versions and runs (spec/components/schemas/workflows).
import type { components } from '../../../generated/api.js';
import type { WorkflowRunRow, WorkflowRunStepRow } from '../../store/workflow-runs.js';
import type { WorkflowRow, WorkflowVersionRow } from '../../store/workflows.js';
import { fillNext } from './graph.js';

type Schemas = components['schemas'];
export type WorkflowView = Schemas['Workflow'];
export type WorkflowSummaryView = Schemas['WorkflowSummary'];
export type WorkflowVersionView = Schemas['WorkflowVersion'];
export type WorkflowVersionSummaryView = Schemas['WorkflowVersionSummary'];
export type WorkflowRunView = Schemas['WorkflowRun'];
export type WorkflowRunSummaryView = Schemas['WorkflowRunSummary'];

/**
 * The graph as read: missing `next` entries of a draft saved by the console editor filled with null (extras
 * kept). Every stored block has its position (filled in on save), which is what makes it a WorkflowGraph.
 */
const graphView = (graph: Schemas['WorkflowGraph']): Schemas['WorkflowGraph'] => ({
  ...graph,
  nodes: fillNext(graph.nodes),
});

export function workflowSummaryView(row: WorkflowRow): WorkflowSummaryView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    channel: { type: row.channel_type, connection_id: row.connection_id },
    trigger: row.trigger,
    folder_id: row.folder_id,
    revision: row.revision,
    published_version_id: row.published_version_id,
    published_at: row.published_at,
    has_unpublished_changes: row.status === 'published' && row.definition_digest !== row.published_digest,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const workflowView = (row: WorkflowRow): WorkflowView => ({
  ...workflowSummaryView(row),
  graph: graphView(row.graph),
});

export function versionSummaryView(row: WorkflowVersionRow): WorkflowVersionSummaryView {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    number: row.number,
    revision: row.revision,
    title: row.title,
    channel: { type: row.channel_type, connection_id: row.connection_id },
    trigger: row.trigger,
    created_at: row.published_at,
  };
}

export const versionView = (row: WorkflowVersionRow): WorkflowVersionView => ({
  ...versionSummaryView(row),
  graph: graphView(row.graph),
});

export function runSummaryView(row: WorkflowRunRow): WorkflowRunSummaryView {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    version_id: row.version_id,
    contact_id: row.contact_id,
    channel: { type: row.channel, connection_id: row.connection_id },
    source: row.source,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ended_at: row.ended_at,
  };
}

export function runView(row: WorkflowRunRow, steps: WorkflowRunStepRow[], truncated: boolean): WorkflowRunView {
  return {
    ...runSummaryView(row),
    steps: steps.map((s) => ({
      node_id: s.node_id,
      type: s.type,
      status: s.status,
      output: s.output,
      message_id: s.message_id,
      error: s.error,
      ...(s.call ? { call: s.call } : {}),
      started_at: s.started_at,
      ended_at: s.ended_at,
    })),
    steps_truncated: truncated,
  };
}
