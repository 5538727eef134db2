// question (Part B): sends the question and waits up to 90 days for the contact's next text message, which is
// the answer (saved to `answer_field` when set, and a variable of that key). `number` runs as `any`. 1 output.
import { substitute } from '../../evaluate/variables.js';
import { CONTACT_WAIT_MS, type BlockExecutor } from '../../context.js';
import { sendOutcome } from '../send-outcome.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'question'> = async (ctx) => {
  const text = substitute(ctx.data.text, ctx.vars.lookup);
  return sendOutcome(await ctx.send({ text }), {
    wait: 'answer',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
  });
};

export const executor: ExecutorEntry<'question'> = { execute, answerField: (data) => data.answer_field ?? '' };
