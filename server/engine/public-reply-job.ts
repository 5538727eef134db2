// The public reply's job (PUBLIC_REPLY_JOB): the reply under a comment a comment-started run leaves, through a
// channel reached over the network (Instagram's `POST /{comment_id}/replies`), after the stretch that chose it
// committed (engine/walk/comment-reply.ts). As the send's job (engine/later-send-job.ts), but no run waits for it:
//
// 1. the reply checked again and the channel called, with no transaction and no database connection held while
//    it answers;
// 2. one short transaction: the answer recorded (the reply as the message id the stretch chose, or what the
//    refusal does to the connection) and the run's `public_reply` step written with the number the stretch gave it.
//
// Claimed again (a crash or a fault after the call, maybe), the job does not call again: the channel may have taken
// the reply, so the step fails `outcome_unknown` rather than risk a second reply under the comment.
import type { JobOf, PUBLIC_REPLY_JOB } from '../job-kinds.js';
import {
  deliverWorkflowSend,
  recordWorkflowSend,
  type SendRefused,
  type WorkflowSend,
} from '../domain/messaging/workflow-send.js';
import type { JobLease } from '../store/jobs.js';
import { insertRunStep } from '../store/workflow-runs.js';
import { committing } from './commit.js';
import type { EngineDeps } from './context.js';
import { publicReplyStep } from './walk/comment-reply.js';

const UNCONFIRMED: SendRefused = {
  sent: false,
  code: 'outcome_unknown',
  message: 'The channel did not confirm the reply; it may have gone out.',
};

export async function runPublicReplyJob(
  job: JobOf<typeof PUBLIC_REPLY_JOB>,
  lease: JobLease,
  deps: EngineDeps,
): Promise<void> {
  const payload = job.payload;
  const send: WorkflowSend = {
    account: { id: job.accountId, platform_signature: payload.platform_signature },
    contactId: payload.contact_id,
    workflow: payload.workflow,
    body: { text: payload.text },
    publicReplyTo: payload.comment_id,
  };
  const delivered = job.attempts > 1 ? { refused: UNCONFIRMED } : await deliverWorkflowSend(lease.db, deps, send);
  await committing(lease.db, deps, async (tx, deps) => {
    const result =
      'refused' in delivered
        ? delivered.refused
        : await recordWorkflowSend(tx, deps, delivered.checked, delivered.result, payload.message_id);
    const run = { id: payload.run_id, account_id: job.accountId };
    const endedAt = deps.clock.now().toISOString();
    await insertRunStep(tx, publicReplyStep(run, payload.step, payload.started_at, result, endedAt));
    await lease.complete(tx);
  });
}
