// start (Part B): starts another automation for the same contact on the same channel (same connection). With
// `parallel` it goes on at once, else it waits for the child to end; `delay_seconds` delays the child's start.
// A target not published there (paused, in trash, another channel) ends the run at this block.
import { findActiveWorkflow, findVersionById } from '../../../store/workflows.js';
import { isUuid } from '../../../ids.js';
import type { BlockExecutor } from '../../context.js';
import type { ExecutorEntry } from '../entry.js';
import { triggerCarriedFrom } from '../../types.js';

export const execute: BlockExecutor<'start'> = async (ctx) => {
  const targetId = ctx.data.workflow_id;
  const target = isUuid(targetId) ? await findActiveWorkflow(ctx.tx, ctx.account.id, targetId) : undefined;
  const version =
    target?.status === 'published' && target.published_version_id
      ? await findVersionById(ctx.tx, ctx.account.id, target.published_version_id)
      : undefined;
  const sameChannel =
    version !== undefined &&
    version.channel_type === ctx.run.channel &&
    (version.connection_id === null || version.connection_id === ctx.run.connection_id);
  if (!target || !version || !sameChannel)
    return {
      failed: {
        code: 'start_target_unavailable',
        message: 'The automation to start is not published on this channel.',
      },
      end: 'stopped',
    };
  const parallel = ctx.data.parallel;
  const delay = ctx.data.delay_seconds ?? 0;
  await ctx.startRun({
    accountId: ctx.account.id,
    workflowId: target.id,
    version,
    contact: ctx.contact,
    connectionId: ctx.run.connection_id,
    source: 'workflow',
    // A started run's message.trigger is its starter's.
    trigger: triggerCarriedFrom(ctx.run),
    parentRunId: parallel ? null : ctx.run.id,
    ...(delay > 0 ? { startAt: new Date(ctx.now.getTime() + delay * 1000) } : {}),
  });
  if (parallel) return { next: 0 };
  return { wait: 'child', until: new Date(ctx.now.getTime() + 90 * 24 * 3600_000) };
};

export const executor: ExecutorEntry<'start'> = { execute };
