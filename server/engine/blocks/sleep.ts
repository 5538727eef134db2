// sleep (Part B): waits `seconds` (1 to 82800) on the one clock, then follows its output.
import type { BlockExecutor } from '../context.js';

export const sleep: BlockExecutor = (ctx) => {
  const seconds = typeof ctx.data.seconds === 'number' ? ctx.data.seconds : 0;
  return Promise.resolve({ wait: 'timer', until: new Date(ctx.now.getTime() + seconds * 1000) });
};
