// The public reply's job (PUBLIC_REPLY_JOB): the reply under a comment a comment-started run leaves, through a
// channel reached over the network (Instagram's `POST /{comment_id}/replies`), after the stretch that chose it
// committed (engine/walk/comment-reply.ts). As the send's job (engine/later-send-job.ts), but no run waits for it:
//
// the call made at most once (engine/send-at-most-once.ts), then, in the transaction that records its answer, the
// run's `public_reply` step written with the number the stretch gave it.
import type { JobOf, PUBLIC_REPLY_JOB } from '../job-kinds.js';
import type { WorkflowSend } from '../domain/messaging/workflow-send.js';
import type { JobLease } from '../store/jobs.js';
import { insertRunStep } from '../store/workflow-runs.js';
import type { EngineDeps } from './context.js';
import { sendAtMostOnce } from './send-at-most-once.js';
import { publicReplyStep } from './walk/comment-reply.js';

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
  const unconfirmed = 'The channel did not confirm the reply; it may have gone out.';
  await sendAtMostOnce(
    job,
    lease,
    deps,
    send,
    { messageId: payload.message_id, unconfirmed },
    async (tx, deps, result) => {
      const run = { id: payload.run_id, account_id: job.accountId };
      const endedAt = deps.clock.now().toISOString();
      await insertRunStep(tx, publicReplyStep(run, payload.step, payload.started_at, result, endedAt));
    },
  );
}
