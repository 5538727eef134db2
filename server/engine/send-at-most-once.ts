// What a send's job (engine/later-send-job.ts, engine/public-reply-job.ts) does around the channel's call:
//
// 1. the send checked again and the channel called, with no transaction and no database connection held while it
//    answers (WhatsApp Cloud: up to 15 s);
// 2. one short transaction: the answer recorded (the message as the id the stretch chose, or what the refusal does
//    to the connection), then the job's own step (`record`), then the job completed.
//
// Claimed again (a crash or a fault after the call, maybe), the job does not call again: the channel may have taken
// the message, so the send fails `outcome_unknown` rather than risk it going out twice.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import {
  deliverWorkflowSend,
  recordWorkflowSend,
  type CheckedSend,
  type SendRefused,
  type WorkflowSend,
  type WorkflowSendResult,
} from '../domain/messaging/workflow-send.js';
import type { JobLease } from '../store/jobs.js';
import { committing } from './commit.js';
import type { EngineDeps } from './context.js';

export type RecordedSend = Exclude<WorkflowSendResult, { sent: 'later' }>;

export async function sendAtMostOnce(
  job: { attempts: number },
  lease: JobLease,
  deps: EngineDeps,
  send: WorkflowSend,
  /** The message's id, chosen by the stretch; what the step says when a second claim cannot confirm the send. */
  as: { messageId: string; unconfirmed: string },
  record: (tx: Transaction<DB>, deps: EngineDeps, result: RecordedSend) => Promise<void>,
): Promise<{ result: RecordedSend; checked?: CheckedSend }> {
  const unconfirmed: SendRefused = { sent: false, code: 'outcome_unknown', message: as.unconfirmed };
  const delivered = job.attempts > 1 ? { refused: unconfirmed } : await deliverWorkflowSend(lease.db, deps, send);
  const result = await committing(lease.db, deps, async (tx, deps) => {
    const result =
      'refused' in delivered
        ? delivered.refused
        : await recordWorkflowSend(tx, deps, delivered.checked, delivered.result, as.messageId);
    await record(tx, deps, result);
    await lease.complete(tx);
    return result;
  });
  return 'refused' in delivered ? { result } : { result, checked: delivered.checked };
}
