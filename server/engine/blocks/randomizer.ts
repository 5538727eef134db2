// randomizer (Part B): not a draw. The first run follows the first option; each later one the option furthest
// below its percentage, counted per automation and block (a row locked for the choice). One output per option.
import { lockRandomizerCounts, saveRandomizerCounts } from '../../store/workflow-runs.js';
import { chooseOption } from '../evaluate/randomizer.js';
import type { BlockExecutor } from '../context.js';

export const randomizer: BlockExecutor = async (ctx) => {
  const options = Array.isArray(ctx.data.options) ? (ctx.data.options as Array<{ percentage?: unknown }>) : [];
  const percentages = options.map((o) => (typeof o.percentage === 'number' ? o.percentage : 0));
  const stored = await lockRandomizerCounts(ctx.tx, ctx.workflow.id, ctx.nodeId, percentages.length);
  const counts = percentages.map((_, i) => stored[i] ?? 0);
  const choice = chooseOption(percentages, counts);
  counts[choice] = (counts[choice] ?? 0) + 1;
  await saveRandomizerCounts(ctx.tx, ctx.workflow.id, ctx.nodeId, counts);
  return { next: choice };
};
