// pause-automations (Part B): pauses the contact's automations for `minutes` and ends the run. While paused,
// triggers start nothing and API starts are refused (contact_automations_paused).
import { pauseContactAutomations } from '../../store/workflow-runs.js';
import type { BlockExecutor } from '../context.js';

export const pauseAutomations: BlockExecutor = async (ctx) => {
  const minutes = typeof ctx.data.minutes === 'number' ? ctx.data.minutes : 0;
  await pauseContactAutomations(ctx.tx, ctx.account.id, ctx.contact.id, new Date(ctx.now.getTime() + minutes * 60_000));
  return { end: 'completed' };
};
