// What a block does with the answer of its send: the step carries the message; a refused send fails the step
// and ends the run (`blocked` when instagram refuses the private reply to a comment, `stopped` otherwise); a send
// made after the stretch commits carries what the block does then.
import type { WorkflowSendResult } from '../../domain/messaging/workflow-send.js';
import type { AfterSend, BlockResult } from '../context.js';

export function sendOutcome(result: WorkflowSendResult, then: AfterSend): BlockResult {
  if (result.sent === 'later') return { later: result, then };
  if (!result.sent)
    return {
      failed: { code: result.code, message: result.message },
      end: result.code === 'private_reply_refused' ? 'blocked' : 'stopped',
    };
  return { ...then, messageId: result.message.id };
}
