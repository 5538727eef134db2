// What a block does with the answer of its send: the step carries the message; a refused send fails the step
// and ends the run (`blocked` when instagram refuses the private reply to a comment, `stopped` otherwise).
import type { WorkflowSendResult } from '../../domain/messaging/workflow-send.js';
import type { BlockResult, StepError } from '../context.js';

/** What a block answers after a send the channel accepted: every answer but a failure carries the message. */
type AfterSend = Exclude<BlockResult, { failed: StepError }>;

export function sendOutcome(result: WorkflowSendResult, then: AfterSend): BlockResult {
  if (!result.sent)
    return {
      failed: { code: result.code, message: result.message },
      end: result.code === 'private_reply_refused' ? 'blocked' : 'stopped',
    };
  return { ...then, messageId: result.message.id };
}
