// The send's job (LATER_SEND_JOB): a block's send to a channel reached over the network, after the stretch that
// ran the block committed (engine/walk/later-send.ts). Three steps, like an API send's:
//
// 1. the send checked again and the channel called, with no transaction and no database connection held while it
//    answers (WhatsApp Cloud: up to 15 s);
// 2. one short transaction: the answer recorded (the message as the id the block chose, or what the refusal does
//    to the connection), and the run, if it still waits for this send, woken there: the block's step is recorded on
//    the outcome and the run goes on (its next stretch in the same transaction);
// 3. after the commit, the channel told the contact's messages were read.
//
// Claimed again (a crash or a fault after the call, maybe), the job does not call again: the channel may have
// taken the message, so the step fails `outcome_unknown` rather than risk sending it twice.
import type { LATER_SEND_JOB, JobOf } from '../job-kinds.js';
import {
  deliverWorkflowSend,
  recordWorkflowSend,
  type SendRefused,
  type WorkflowSend,
} from '../domain/messaging/workflow-send.js';
import { tellChannelRead } from '../domain/messaging/send.js';
import type { JobLease } from '../store/jobs.js';
import { lockRun } from '../store/workflow-runs.js';
import { committing } from './commit.js';
import type { EngineDeps } from './context.js';
import { advanceRun } from './runs.js';

const UNCONFIRMED: SendRefused = {
  sent: false,
  code: 'outcome_unknown',
  message: 'The channel did not confirm the send; the message may have gone out.',
};

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
  const delivered = job.attempts > 1 ? { refused: UNCONFIRMED } : await deliverWorkflowSend(lease.db, deps, send);
  const recorded = await committing(lease.db, deps, async (tx, deps) => {
    const result =
      'refused' in delivered
        ? delivered.refused
        : await recordWorkflowSend(tx, deps, delivered.checked, delivered.result, payload.message_id);
    const run = await lockRun(tx, payload.run_id);
    if (run && !run.ended_at)
      await advanceRun(tx, deps, run, { kind: 'send', step: payload.step }, { sent: { result, payload } });
    await lease.complete(tx);
    return result;
  });
  if (recorded.sent && !('refused' in delivered)) {
    const { connection, conversation } = delivered.checked;
    await tellChannelRead({ db: lease.db, provider: deps.provider, logger: deps.logger }, connection, conversation.id);
  }
}
