// conditional (Part B): the conditions with `and`/`or`; output 0 when true, 1 when false.
import { replyWindowOpen } from '../../../domain/messaging/window.js';
import type { BlockExecutor } from '../../context.js';
import { evaluateConditional } from './evaluate.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'conditional'> = async (ctx) => {
  const tags = new Set(await ctx.vars.tagNames());
  const windowOpen = await replyWindowOpen(ctx.tx, ctx.account.id, ctx.contact.id, ctx.now);
  const result = evaluateConditional(ctx.data, {
    channel: ctx.contact.channel,
    hasTag: (name) => tags.has(name),
    field: (key) => ctx.vars.lookup(key),
    score: null,
    variable: (name) => ctx.vars.lookup(name),
    // The follower status comes from the instagram profile, which the sandbox does not report: unknown.
    isFollower: null,
    windowOpen,
    now: ctx.now,
    timeZone: ctx.account.time_zone,
  });
  return { next: result ? 0 : 1 };
};

export const executor: ExecutorEntry<'conditional'> = { execute };
