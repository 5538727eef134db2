// What a contact's message does to automations (Part B), in the `messaging.inbound` job that messaging enqueues
// with every message it records:
//   1. a tap on a reply button of an automation's message resumes the run waiting for it, or the run that sent
//      it and has since ended `stopped` (within the 90 days a tap is waited for); it starts nothing;
//   2. a text message answers the contact's run waiting on a question, even if it carries another automation's
//      keyword (which then does not start); a message without text does not answer (a whatsapp caption is
//      text; an instagram story reply never answers);
//   3. otherwise the published automations whose trigger matches start a run each.
// Before 2 and 3, a whatsapp message carrying the code of a whatsapp handoff is that handoff and nothing else
// (engine/handoff.ts).
// Any direct message of the contact also ends the "one private reply per comment" limit of its comment runs.
import type { Transaction } from 'kysely';
import type { INBOUND_MESSAGE_JOB, JobOf } from '../job-kinds.js';
import type { AccountRow } from '../store/accounts.js';
import { findAccountAndContact, type ContactRow } from '../store/contacts.js';
import type { JobLease } from '../store/jobs.js';
import { findMessage, type MessageRow } from '../store/messaging.js';
import type { DB, RunTriggerContext } from '../store/schema.js';
import { findStoppedRunOfMessage, updateRun, type WorkflowRunRow } from '../store/workflow-runs.js';
import {
  selectLiveTriggers,
  selectWaitingRunsAndLiveTriggers,
  type ContactRunsState,
  type LiveTrigger,
} from '../store/workflows.js';
import { tapOutput } from './blocks/index.js';
import { CONTACT_WAIT_MS, type EngineDeps } from './context.js';
import { takeHandoff } from './handoff.js';
import { committing } from './commit.js';
import { advanceRun, startRunNow } from './runs.js';
import { refusalToStart, startWindow } from './start-rules.js';
import { versionOf } from './walk/versions.js';

/** The trigger event of an inbound message type. */
const EVENT_OF: Record<string, string> = {
  message: 'message',
  comment: 'comment',
  live_comment: 'live_comment',
  story_message: 'story_message',
  story_mention: 'story_mention',
};

const INTERACTION_OF: Record<string, RunTriggerContext['interaction_type']> = {
  message: 'dm',
  comment: 'comment',
  live_comment: 'live',
  story_message: 'story',
  story_mention: 'mention',
};

/** Keywords compare ignoring letter case but not accents (the same folding as tag names). */
const fold = (text: string) => text.toUpperCase().toLowerCase();

/** Whether the trigger of a live version starts a run for this message (Part B, "Trigger"). */
export function triggerMatches(
  trigger: LiveTrigger['trigger'],
  channel: string,
  message: Pick<MessageRow, 'type' | 'text' | 'post'>,
  event: string | undefined = EVENT_OF[message.type],
): boolean {
  if (!event || !trigger.events.some((e) => e === event)) return false;
  // On whatsapp only `message` starts an automation.
  if (channel === 'whatsapp' && event !== 'message') return false;
  const { post } = message;
  if (trigger.posts && (event === 'comment' || event === 'story_message')) {
    const kind = event === 'comment' ? 'feed' : 'story';
    const limited = trigger.posts.filter((p) => p.type === kind);
    if (limited.length > 0 && !limited.some((p) => p.id === post?.id)) return false;
  }
  // "The next post published after the automation": the sandbox has no publishing, so no post is that one.
  if (trigger.next_post && event === 'comment') return false;
  if (event === 'story_mention' || trigger.match === 'any') return true;
  const text = fold(message.text ?? '');
  return trigger.keywords.some((keyword) => {
    const k = fold(keyword);
    if (trigger.match === 'contains') return text.includes(k);
    if (trigger.match === 'equals') return text === k;
    return text.startsWith(k);
  });
}

/** A message that answers a question: text of a direct message (a caption counts), never a story reply. */
const answers = (message: MessageRow) => message.type === 'message' && (message.text ?? '') !== '';

export async function runInboundJob(
  job: JobOf<typeof INBOUND_MESSAGE_JOB>,
  ctx: JobLease,
  deps: EngineDeps,
): Promise<void> {
  const { message_id } = job.payload;
  await committing(ctx.db, deps, async (tx, deps) => {
    const message = job.accountId ? await findMessage(tx, job.accountId, message_id) : undefined;
    // The account with the contact: a run started here reads neither again.
    const found = message ? await findAccountAndContact(tx, message.account_id, message.contact_id) : undefined;
    if (message && found && message.direction === 'inbound') await onInbound(tx, deps, message, found);
    if (message && found && message.direction === 'outbound' && message.sender_type === 'unattributed')
      await startTriggered(tx, deps, message, found, 'message_sent');
    await ctx.complete(tx);
  });
}

async function onInbound(tx: Transaction<DB>, deps: EngineDeps, message: MessageRow, holders: Holders) {
  const { contact } = holders;
  // The contact's waiting runs and the live triggers, read together: most messages need one or the other.
  const since = startWindow(deps.clock.now());
  const found = await selectWaitingRunsAndLiveTriggers(tx, message.account_id, contact.id, contact.channel, since);
  const { waiting } = found;
  if (message.type === 'message')
    // The contact answered: its comment runs may send again.
    for (const [i, run] of waiting.entries())
      if (run.trigger_context.private_reply === 'sent')
        waiting[i] = await updateRun(tx, run.id, {
          trigger_context: { ...run.trigger_context, private_reply: 'done' },
        });
  const { button } = message;
  if (button?.source === 'workflow' && message.reply_to_message_id)
    return onTap(tx, deps, message, contact, message.reply_to_message_id, button.id ?? null, waiting);
  if (await takeHandoff(tx, deps, message, contact)) return;
  if (answers(message)) {
    const run = waiting.find((r) => r.waiting_for === 'answer');
    if (run) return advanceRun(tx, deps, run, { kind: 'answer', text: message.text ?? '', messageId: message.id });
  }
  await startTriggered(tx, deps, message, holders, EVENT_OF[message.type], found);
}

async function onTap(
  tx: Transaction<DB>,
  deps: EngineDeps,
  message: MessageRow,
  contact: ContactRow,
  tappedMessageId: string,
  buttonId: string | null,
  waiting: WorkflowRunRow[],
): Promise<void> {
  const run = waiting.find(
    (r) => (r.waiting_for === 'tap' && r.wait_message_id === tappedMessageId) || r.tap_message_id === tappedMessageId,
  );
  if (run) {
    const version = await versionOf(tx, run);
    const nodeId = run.tap_message_id === tappedMessageId ? run.tap_node_id : run.node_id;
    const output = tapOutput(nodeId ? version?.graph.nodes[nodeId] : undefined, buttonId);
    if (output !== null) await advanceRun(tx, deps, run, { kind: 'tap', output, messageId: tappedMessageId });
    return;
  }
  const stopped = await findStoppedRunOfMessage(tx, message.account_id, contact.id, tappedMessageId);
  if (!stopped || Date.parse(stopped.sentAt) + CONTACT_WAIT_MS < deps.clock.now().getTime()) return;
  const version = await versionOf(tx, stopped.run);
  const output = tapOutput(version?.graph.nodes[stopped.nodeId], buttonId);
  if (output !== null)
    await advanceRun(tx, deps, stopped.run, { kind: 'resume', step: stopped.seq, nodeId: stopped.nodeId, output });
}

/** The message's contact and its account, read together. */
interface Holders {
  contact: ContactRow;
  account: AccountRow;
}

/** Starts a run of each published automation whose trigger matches the message as `event`. */
async function startTriggered(
  tx: Transaction<DB>,
  deps: EngineDeps,
  message: MessageRow,
  holders: Holders,
  event: string | undefined,
  /** The live triggers and the contact's runs, when the caller read them already. */
  known?: { live: LiveTrigger[]; runs: ContactRunsState },
): Promise<void> {
  if (!event) return;
  const { contact, account } = holders;
  const accountId = message.account_id;
  const now = deps.clock.now();
  const { post } = message;
  // The runs as read hold until a run starts (its stretch may start others): then the rules read them again.
  let runs = known?.runs;
  for (const live of known?.live ?? (await selectLiveTriggers(tx, accountId, contact.channel))) {
    const sameConnection =
      live.connection_id === null ? contact.channel === 'instagram' : live.connection_id === contact.connection_id;
    if (!sameConnection || !triggerMatches(live.trigger, contact.channel, message, event)) continue;
    if (await refusalToStart(tx, deps, { workflowId: live.workflow_id, contact, now, runs })) continue;
    runs = undefined;
    const interaction = event === 'message_sent' ? 'dm_sent' : (INTERACTION_OF[message.type] ?? null);
    await startRunNow(tx, deps, {
      accountId,
      workflowId: live.workflow_id,
      version: live.version,
      contact,
      account,
      connectionId: contact.connection_id,
      source: 'trigger',
      trigger: {
        text: message.text,
        interaction_type: interaction,
        message_id: message.id,
        post_id: post?.id ?? null,
        post_url: post?.url ?? null,
        ...(message.type === 'comment' || message.type === 'live_comment' ? { private_reply: 'pending' as const } : {}),
      },
    });
  }
}
