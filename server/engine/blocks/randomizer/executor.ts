// randomizer (Part B): not a draw. The first run follows the first option; each later one the option furthest
// below its percentage, counted per automation and block (a row locked for the choice). One output per option.
import { lockRandomizerCounts, saveRandomizerCounts } from '../../../store/workflow-runs.js';
import type { BlockExecutor } from '../../context.js';
import { chooseOption } from './evaluate.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'randomizer'> = async (ctx) => {
  const percentages = ctx.data.options.map((option) => option.percentage);
  const stored = await lockRandomizerCounts(ctx.tx, ctx.workflow.id, ctx.nodeId, percentages.length);
  const counts = percentages.map((_, i) => stored[i] ?? 0);
  const choice = chooseOption(percentages, counts);
  counts[choice] = (counts[choice] ?? 0) + 1;
  await saveRandomizerCounts(ctx.tx, ctx.workflow.id, ctx.nodeId, counts);
  return { next: choice };
};

export const executor: ExecutorEntry<'randomizer'> = { execute };
