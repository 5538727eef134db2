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
import { replyWindow } from '../domain/messaging/views.js';
import { reachableFromRoot } from '../domain/workflows/graph.js';
import { ApiError, notFound } from '../errors.js';
import { findConnection } from '../store/console.js';
import { findContact } from '../store/contacts.js';
import { findConversationOfContact } from '../store/messaging.js';
import type { DB } from '../store/schema.js';
import type { WorkflowRunRow } from '../store/workflow-runs.js';
import { selectConnectedInstagram } from '../store/workflow-lookups.js';
import { findActiveWorkflow, findVersionById } from '../store/workflows.js';
import type { EngineDeps } from './context.js';
import { startRun } from './runs.js';
import { refusalToStart } from './start-rules.js';

/** Block types that send to the contact: a run of an automation holding one needs the window open. */
const SENDING = new Set(['message', 'question', 'media', 'buttons', 'cards']);

/**
 * Block types that need an account integration, and its `integration_type`. The spreadsheet block writes
 * through a spreadsheet account the console connects; this service has no such connection yet (it arrives with
 * the spreadsheet block's issue), so it is never connected here.
 */
const INTEGRATIONS: Record<string, string> = { sheets: 'sheets' };

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
  const workflow = await findActiveWorkflow(tx, accountId, workflowId);
  if (!workflow) throw notFound('No such automation.');
  const contact = await findContact(tx, accountId, contactId, { forUpdate: true });
  if (!contact) throw notFound('No such contact.');
  const version =
    workflow.status === 'published' && workflow.published_version_id
      ? await findVersionById(tx, accountId, workflow.published_version_id)
      : undefined;
  if (!version) throw new ApiError(409, 'workflow_not_published', 'The automation is not published.');
  const connectionId =
    version.connection_id ??
    (version.channel_type === 'instagram' ? ((await selectConnectedInstagram(tx, accountId))?.id ?? null) : null);
  if (contact.channel !== version.channel_type || contact.connection_id !== connectionId)
    throw new ApiError(422, 'contact_not_on_channel', 'The contact never came through the automation’s channel.', {
      connection_id: connectionId ?? contact.connection_id,
    });
  const connection = await findConnection(tx, accountId, contact.connection_id);
  if (!connection || connection.status !== 'connected')
    throw new ApiError(422, 'channel_disconnected', 'The automation’s channel is not connected.', {
      connection_id: contact.connection_id,
    });
  const nodes = version.graph.nodes as Record<string, { type?: unknown }>;
  const types = [...reachableFromRoot(nodes).keys()].map((id) => String(nodes[id]?.type));
  const integration = types.map((type) => INTEGRATIONS[type]).find(Boolean);
  if (integration)
    throw new ApiError(422, 'integration_disconnected', `The automation uses ${integration}, which is not connected.`, {
      integration_type: integration,
    });
  const now = deps.clock.now();
  const sends = types.some((type) => SENDING.has(type));
  if (sends) {
    const conversation = await findConversationOfContact(tx, accountId, contact.id);
    const last = conversation?.last_inbound_at ?? null;
    if (replyWindow(last, now).state === 'closed')
      throw new ApiError(
        422,
        'messaging_window_closed',
        'The automation sends and the contact’s 24-hour window is closed.',
        {
          last_inbound_at: last,
        },
      );
  }
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
