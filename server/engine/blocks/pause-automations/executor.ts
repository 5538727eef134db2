// pause-automations (Part B): pauses the contact's automations for `minutes` and ends the run. While paused,
// triggers start nothing and API starts are refused (contact_automations_paused).
import { pauseContactAutomations } from '../../../store/workflow-runs.js';
import type { BlockExecutor } from '../../context.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'pause-automations'> = async (ctx) => {
  const until = new Date(ctx.now.getTime() + ctx.data.minutes * 60_000);
  await pauseContactAutomations(ctx.tx, ctx.account.id, ctx.contact.id, until);
  return { end: 'completed' };
};

export const executor: ExecutorEntry<'pause-automations'> = { execute };
