// message (Part B): sends the text, variables filled in (instagram delivers the first 1000 characters and the
// platform signature trims to fit: both are the messaging rules'). 1 output.
import { substitute } from '../../engine/evaluate/variables.js';
import type { BlockExecutor } from '../../engine/context.js';
import { sendOutcome } from '../../engine/blocks/send-outcome.js';

export const execute: BlockExecutor<'message'> = async (ctx) => {
  const text = substitute(ctx.data.text, ctx.vars.lookup);
  return sendOutcome(await ctx.send({ text }), { next: 0 });
};
