// POST /v1/workflows/{workflowId}/runs (Part B): a run for one contact, begun as a plain start on the
// automation's channel (no comment to answer, no message text). Checked in this order: the automation (404)
// and the contact (404), published (409 workflow_not_published), the contact on its channel (422
// contact_not_on_channel), the channel connected (422 channel_disconnected), the integrations its blocks use
// (422 integration_disconnected), the 24-hour window when the automation sends (422
// messaging_window_closed), then the start rules (paused, run in progress, hourly limit). Only blocks reachable
// from `root` count: a block that never runs needs nothing.
//
// The start is the run's row and its first job, committed with the answer. When the commit itself fails the
// start may or may not have happened: 502 outcome_unknown, which the Idempotency-Key keeps (Part A).
import type { Kysely, Transaction } from 'kysely';
import { isObject } from '../blocks/definition.js';
import { contactNotFound } from '../domain/contacts/contacts.js';
import { contactFreeFormRefusal } from '../domain/messaging/window.js';
import { blockType } from '../blocks/index.js';
import { reachableFromRoot } from '../domain/workflows/graph.js';
import { accountLookups } from '../domain/workflows/lookups.js';
import { getWorkflow } from '../domain/workflows/workflows.js';
import { ApiError } from '../errors.js';
import { findConnection } from '../store/console.js';
import { findContact, type ContactRow } from '../store/contacts.js';
import type { DB } from '../store/schema.js';
import type { WorkflowRunRow } from '../store/workflow-runs.js';
import { findVersionById, type WorkflowRow, type WorkflowVersionRow } from '../store/workflows.js';
import { integrationConnected } from './blocks/index.js';
import type { EngineDeps } from './context.js';
import { startRun } from './runs.js';
import { refusalToStart } from './start-rules.js';

const outcomeUnknown = () =>
  new ApiError(
    502,
    'outcome_unknown',
    'The engine did not confirm the start. Check the automation’s runs for the contact before retrying with a new key.',
  );

export async function startRunFromApi(
  db: Kysely<DB>,
  deps: Pick<EngineDeps, 'clock' | 'runsPerContactPerHour'>,
  accountId: string,
  workflowId: string,
  contactId: string,
): Promise<WorkflowRunRow> {
  let started = false;
  try {
    return await db.transaction().execute(async (tx) => {
      const run = await startChecked(tx, deps, accountId, workflowId, contactId);
      started = true;
      return run;
    });
  } catch (error) {
    // The body ran to its end: only the commit failed, and its outcome is not known.
    if (started) throw outcomeUnknown();
    throw error;
  }
}

async function startChecked(
  tx: Transaction<DB>,
  deps: Pick<EngineDeps, 'clock' | 'runsPerContactPerHour'>,
  accountId: string,
  workflowId: string,
  contactId: string,
): Promise<WorkflowRunRow> {
  const workflow = await getWorkflow(tx, accountId, workflowId);
  const contact = await findContact(tx, accountId, contactId, { forUpdate: true });
  if (!contact) throw contactNotFound();
  const version = await publishedVersion(tx, accountId, workflow);
  if (!version) throw new ApiError(409, 'workflow_not_published', 'The automation is not published.');
  await requireContactOnChannel(tx, accountId, version, contact);
  const now = deps.clock.now();
  await requireWhatBlocksNeed(tx, accountId, version, contact, now);
  const refusal = await refusalToStart(tx, deps, { workflowId, contact, now });
  if (refusal) throw refusal;
  return startRun(tx, deps, {
    accountId,
    workflowId,
    version,
    contact,
    connectionId: contact.connection_id,
    source: 'api',
    trigger: { text: '', interaction_type: null },
  });
}

async function publishedVersion(
  tx: Transaction<DB>,
  accountId: string,
  workflow: WorkflowRow,
): Promise<WorkflowVersionRow | undefined> {
  return workflow.status === 'published' && workflow.published_version_id
    ? await findVersionById(tx, accountId, workflow.published_version_id)
    : undefined;
}

/** The contact came through the automation's channel (an unpinned instagram one: the account's instagram), connected. */
async function requireContactOnChannel(
  tx: Transaction<DB>,
  accountId: string,
  version: WorkflowVersionRow,
  contact: ContactRow,
): Promise<void> {
  const connectionId =
    version.connection_id ??
    (version.channel_type === 'instagram' ? await accountLookups(tx, accountId).connectedInstagram() : null);
  if (contact.channel !== version.channel_type || contact.connection_id !== connectionId)
    throw new ApiError(422, 'contact_not_on_channel', 'The contact never came through the automation’s channel.', {
      connection_id: connectionId ?? contact.connection_id,
    });
  const connection = await findConnection(tx, accountId, contact.connection_id);
  if (!connection || connection.status !== 'connected')
    throw new ApiError(422, 'channel_disconnected', 'The automation’s channel is not connected.', {
      connection_id: contact.connection_id,
    });
}

/**
 * The integration the block needs when it is not connected, else null. The integration account the block names
 * (a sheets block: its `sheets_external_id`) must be the account's and connected, as the kind's executor checks;
 * a kind whose integration the service cannot check is never connected.
 */
async function disconnectedIntegration(tx: Transaction<DB>, accountId: string, node: unknown): Promise<string | null> {
  if (!isObject(node) || !isObject(node.data)) return null;
  const kind = blockType(node.type);
  const integration = kind?.integration;
  if (!integration) return null;
  const id = kind.integrationAccount?.(node.data) ?? null;
  if (id !== null && (await integrationConnected(node.type, tx, accountId, id))) return null;
  return integration;
}

/**
 * What the blocks reachable from `root` need (each kind says it: server/blocks/<type>/definition.ts): their
 * integrations connected, then the 24-hour window open when one of them sends.
 */
async function requireWhatBlocksNeed(
  tx: Transaction<DB>,
  accountId: string,
  version: WorkflowVersionRow,
  contact: ContactRow,
  now: Date,
): Promise<void> {
  const nodes = version.graph.nodes;
  const reachable = [...reachableFromRoot(nodes).keys()].flatMap((id) => nodes[id] ?? []);
  const kinds = reachable.map((node) => blockType(node.type));
  for (const node of reachable) {
    const integration = await disconnectedIntegration(tx, accountId, node);
    if (integration)
      throw new ApiError(
        422,
        'integration_disconnected',
        `The automation uses ${integration}, which is not connected.`,
        { integration_type: integration },
      );
  }
  if (!kinds.some((kind) => kind?.sends)) return;
  const closed = await contactFreeFormRefusal(tx, accountId, contact, 'run_start', now);
  if (closed) throw closed;
}
