// The send's job (LATER_SEND_JOB): a block's send to a channel reached over the network, after the stretch that
// ran the block committed (engine/walk/later-send.ts): the call made at most once (engine/send-at-most-once.ts);
// in the transaction that records its answer, the run, if it still waits for this send, woken (the block's step
// recorded on the outcome and the run going on, its next stretch in the same transaction); after the commit, the
// channel told the contact's messages were read.
import type { LATER_SEND_JOB, JobOf } from '../job-kinds.js';
import type { WorkflowSend } from '../domain/messaging/workflow-send.js';
import { tellChannelRead } from '../domain/messaging/send.js';
import type { JobLease } from '../store/jobs.js';
import { lockRun } from '../store/workflow-runs.js';
import type { EngineDeps } from './context.js';
import { advanceRun } from './runs.js';
import { sendAtMostOnce } from './send-at-most-once.js';

export async function runLaterSendJob(
  job: JobOf<typeof LATER_SEND_JOB>,
  lease: JobLease,
  deps: EngineDeps,
): Promise<void> {
  const payload = job.payload;
  const send: WorkflowSend = {
    account: { id: job.accountId, platform_signature: payload.platform_signature },
    contactId: payload.contact_id,
    workflow: payload.workflow,
    body: payload.body,
    privateReplyTo: payload.private_reply_to,
  };
  const unconfirmed = 'The channel did not confirm the send; the message may have gone out.';
  const { result, checked } = await sendAtMostOnce(
    job,
    lease,
    deps,
    send,
    { messageId: payload.message_id, unconfirmed },
    async (tx, deps, result) => {
      const run = await lockRun(tx, payload.run_id);
      if (run && !run.ended_at)
        await advanceRun(tx, deps, run, { kind: 'send', step: payload.step }, { sent: { result, payload } });
    },
  );
  if (result.sent && checked)
    await tellChannelRead(
      { db: lease.db, provider: deps.provider, logger: deps.logger },
      checked.connection,
      checked.conversation.id,
    );
}
