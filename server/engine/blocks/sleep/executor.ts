// sleep (Part B): waits `seconds` (1 to 82800) on the one clock, then follows its output.
import type { BlockExecutor } from '../../context.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'sleep'> = (ctx) =>
  Promise.resolve({ wait: 'timer', until: new Date(ctx.now.getTime() + ctx.data.seconds * 1000) });

export const executor: ExecutorEntry<'sleep'> = { execute };
