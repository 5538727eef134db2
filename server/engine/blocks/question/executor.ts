// question (Part B): sends the question and waits up to 90 days for the contact's next text message, which is
// the answer (saved to `answer_field` when set, and a variable of that key). `number` runs as `any`. 1 output.
import { substitute } from '../../engine/evaluate/variables.js';
import { CONTACT_WAIT_MS, type BlockExecutor } from '../../engine/context.js';
import { sendOutcome } from '../../engine/blocks/send-outcome.js';

export const execute: BlockExecutor<'question'> = async (ctx) => {
  const text = substitute(ctx.data.text, ctx.vars.lookup);
  return sendOutcome(await ctx.send({ text }), {
    wait: 'answer',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
  });
};
