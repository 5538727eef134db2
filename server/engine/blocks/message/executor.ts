// message (Part B): sends the text, variables filled in (instagram delivers the first 1000 characters and the
// platform signature trims to fit: both are the messaging rules'). 1 output.
import { substitute } from '../../evaluate/variables.js';
import type { BlockExecutor } from '../../context.js';
import { sendOutcome } from '../send-outcome.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'message'> = async (ctx) => {
  const text = substitute(ctx.data.text, ctx.vars.lookup);
  return sendOutcome(await ctx.send({ text }), { next: 0 });
};

export const executor: ExecutorEntry<'message'> = { execute };
