// The comment-reply rule (Part B): how a run's blocks send, and the public reply a comment-started run leaves under
// the comment.
import { randomInt, randomUUID } from 'node:crypto';
import type { SchemaSendMessageRequest } from '../../../generated/api.js';
import { sendFromWorkflow, type WorkflowSendResult } from '../../domain/messaging/workflow-send.js';
import { findRepliesList } from '../../store/replies-lists.js';
import { PUBLIC_REPLY_JOB, type PublicReplyPayload } from '../../job-kinds.js';
import { enqueue, enqueueClaimed, type NewJob } from '../../store/jobs.js';
import type { NewRunStep } from '../../store/workflow-runs.js';
import { substitute } from '../evaluate/variables.js';
import type { Stretch } from './stretch.js';

/**
 * Sends as the automation, by the comment-reply rule (Part B): the first message of a run a comment started goes
 * as the private reply to that comment, and the channel takes one private reply per comment until the contact
 * answers, so the next is refused until then.
 */
export async function sendAsAutomation(stretch: Stretch, body: SchemaSendMessageRequest): Promise<WorkflowSendResult> {
  const { trigger, context } = stretch;
  if (trigger.private_reply === 'sent')
    return {
      sent: false,
      code: 'private_reply_limit',
      message: 'The channel accepts one private reply per comment until the contact answers.',
    };
  const privateReplyTo = trigger.private_reply === 'pending' ? (trigger.message_id ?? null) : null;
  const result = await sendFromWorkflow(stretch.tx, stretch.deps, {
    account: context.account,
    contactId: stretch.run.contact_id,
    workflow: context.workflow,
    body,
    privateReplyTo,
    memo: stretch.memo,
  });
  // A send made after the stretch (engine/later-send.ts) spends the private reply once the channel took it.
  if (result.sent === true) await privateReplySent(stretch, privateReplyTo);
  return result;
}

/**
 * The channel took the run's message: when it was the private reply to the trigger's comment, that reply is spent
 * and a comment's public reply goes under it.
 */
export async function privateReplySent(stretch: Stretch, privateReplyTo: string | null): Promise<void> {
  if (!privateReplyTo) return;
  stretch.trigger.private_reply = 'sent';
  if (stretch.trigger.interaction_type === 'comment') await publicReply(stretch, privateReplyTo);
}

/**
 * Part B, reply lists: after the channel accepted the first message of a run a comment on a post or reel
 * started, one reply of the trigger's list, picked at random, goes under the comment (a `public_reply` step). On a
 * channel reached over the network (Instagram: `POST /{comment_id}/replies`) no transaction waits on it: the reply
 * goes out in a job of its own after this stretch commits (engine/public-reply-job.ts), which records the step, its
 * number taken now, when the channel answers.
 */
async function publicReply(stretch: Stretch, commentId: string): Promise<void> {
  const { tx, deps, run, context } = stretch;
  const listId = stretch.version.trigger.replies_list_id;
  const list = listId ? await findRepliesList(tx, run.account_id, listId) : undefined;
  if (!list || list.replies.length === 0) return;
  const text = substitute(list.replies[randomInt(list.replies.length)] ?? '', context.vars.lookup);
  // The public reply is no block's step to wait at: the run goes on whatever its fate.
  const result = await sendFromWorkflow(tx, deps, {
    account: context.account,
    contactId: run.contact_id,
    workflow: context.workflow,
    body: { text },
    publicReplyTo: commentId,
    memo: stretch.memo,
  });
  stretch.stepCount += 1;
  const at = deps.clock.now().toISOString();
  if (result.sent === 'later') {
    const payload: PublicReplyPayload = {
      run_id: run.id,
      step: stretch.stepCount,
      started_at: at,
      message_id: result.messageId,
      contact_id: run.contact_id,
      workflow: context.workflow,
      platform_signature: context.account.platform_signature,
      comment_id: commentId,
      text,
    };
    const job: NewJob<typeof PUBLIC_REPLY_JOB> = { kind: PUBLIC_REPLY_JOB, accountId: run.account_id, payload };
    const claim = deps.soon && deps.soonRunner?.claimAtInsert(PUBLIC_REPLY_JOB);
    if (claim && deps.soon) deps.soon.push(await enqueueClaimed(tx, deps.clock, job, claim));
    else await enqueue(tx, deps.clock, job);
    return;
  }
  stretch.steps.push(publicReplyStep(run, stretch.stepCount, at, result));
}

/** The run's `public_reply` step for the channel's answer (or the rules' refusal). */
export function publicReplyStep(
  run: { id: string; account_id: string },
  seq: number,
  startedAt: string,
  result: Exclude<WorkflowSendResult, { sent: 'later' }>,
  endedAt: string = startedAt,
): NewRunStep {
  return {
    id: randomUUID(),
    account_id: run.account_id,
    run_id: run.id,
    seq,
    node_id: null,
    type: 'public_reply',
    status: result.sent === true ? 'completed' : 'failed',
    output: null,
    message_id: result.sent === true ? result.message.id : null,
    error: result.sent === false ? { code: result.code, message: result.message } : null,
    started_at: startedAt,
    ended_at: endedAt,
  };
}
