// A block's send to a channel reached over the network (WhatsApp Cloud), made after the stretch commits (issue 35:
// no transaction waits on Meta). The stretch saves the run waiting at the block (`send`) and adds the send's job
// (LATER_SEND_JOB), claimed for this process so that it runs at once after the commit (engine/commit.ts); the job
// (engine/later-send-job.ts) calls the channel with no transaction, records its answer in a short one and wakes
// the run there, which records the block's step with what the block answers on that outcome (`blockAnswer`).
//
// The run's view meanwhile: `running`, its last step the one before the block.
import type { LaterSendPayload, SendThen } from '../../job-kinds.js';
import { LATER_SEND_JOB } from '../../job-kinds.js';
import { enqueue, enqueueClaimed, type NewJob } from '../../store/jobs.js';
import type { WorkflowSendResult } from '../../domain/messaging/workflow-send.js';
import type { AfterSend, BlockResult } from '../context.js';
import { sendOutcome } from '../blocks/send-outcome.js';
import { saveRun, type Step, type Stretch } from './stretch.js';

/**
 * A run waits this long for its send's job at most (the job's lease and one retry fit well inside): then the wait's
 * bound (engine/runs.ts) fails the step `outcome_unknown`, and a job that comes later only records the message.
 */
export const SEND_WAIT_MS = 10 * 60 * 1000;

type SendsLater = Extract<BlockResult, { later: unknown }>;

/** The run waits at the block for its send, whose job this stretch's commit hands to this process's worker. */
export async function waitForSend(stretch: Stretch, step: Step, result: SendsLater): Promise<void> {
  const { tx, deps } = stretch;
  const { send, messageId } = result.later;
  stretch.run = await saveRun(stretch, {
    status: 'running',
    node_id: step.nodeId,
    waiting_for: 'send',
    wait_until: new Date(step.now.getTime() + SEND_WAIT_MS).toISOString(),
    wait_message_id: messageId,
    wait_step: step.seq,
  });
  const payload: LaterSendPayload = {
    run_id: stretch.run.id,
    step: step.seq,
    started_at: step.at,
    message_id: messageId,
    contact_id: send.contactId,
    workflow: send.workflow,
    platform_signature: send.account.platform_signature,
    body: send.body,
    private_reply_to: send.privateReplyTo ?? null,
    then: storedThen(result.then),
  };
  const job: NewJob<typeof LATER_SEND_JOB> = { kind: LATER_SEND_JOB, accountId: stretch.run.account_id, payload };
  const claim = deps.soon && deps.soonRunner?.claimAtInsert(LATER_SEND_JOB);
  if (claim && deps.soon) deps.soon.push(await enqueueClaimed(tx, deps.clock, job, claim));
  else await enqueue(tx, deps.clock, job);
}

const storedThen = (then: AfterSend): SendThen =>
  'next' in then
    ? { next: then.next }
    : {
        wait: then.wait,
        until: then.until.toISOString(),
        ...(then.thenOutput !== undefined ? { then_output: then.thenOutput } : {}),
      };

/** What the block answers on its send's outcome (the job's), as it would have in the stretch. */
export function blockAnswer(result: Exclude<WorkflowSendResult, { sent: 'later' }>, then: SendThen): BlockResult {
  const after: AfterSend =
    'next' in then
      ? { next: then.next }
      : {
          wait: then.wait,
          until: new Date(then.until),
          ...(then.then_output !== undefined ? { thenOutput: then.then_output } : {}),
        };
  return sendOutcome(result, after);
}

/** The block's step as the stretch that ran the block numbered it, to record now that its send is done. */
export function sentStep(stretch: Stretch, payload: Pick<LaterSendPayload, 'step' | 'started_at'>): Step {
  const nodeId = stretch.run.node_id ?? 'root';
  const block = stretch.version.graph.nodes[nodeId];
  const now = stretch.deps.clock.now();
  return {
    nodeId,
    block,
    type: block ? block.type : 'unknown',
    seq: payload.step,
    runsOfBlock: stretch.visits[nodeId] ?? 1,
    now,
    at: payload.started_at,
  };
}
