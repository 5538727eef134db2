// invoke (Part B): renders the request (variables substituted, secrets kept by name), refuses an endpoint that is
// not an http or https address (the failure output, the 2nd, at once), and otherwise records the call and hands
// it to a `workflow.invoke` job: the run waits (`call`) so the stretch's transaction commits before any request
// goes out. The job (call.ts) makes the attempts and wakes the run with the output; outcome.ts copies the fields.
import { randomUUID } from 'node:crypto';
import { CALL_WAIT_MS, type BlockExecutor } from '../../engine/context.js';
import { INVOKE_JOB } from '../../job-kinds.js';
import { insertInvokeCall } from '../../store/invoke-calls.js';
import { enqueue, enqueueClaimed, type NewJob } from '../../store/jobs.js';
import { handOver } from './handover.js';
import { renderRequest } from './evaluate.js';

export const execute: BlockExecutor<'invoke'> = async (ctx) => {
  const rendered = renderRequest(ctx.data, ctx.nodeId, ctx.vars.lookup);
  if (!rendered.ok) return { failed: { code: rendered.code, message: rendered.message }, output: 1 };
  const call = await insertInvokeCall(ctx.tx, {
    id: randomUUID(),
    account_id: ctx.account.id,
    run_id: ctx.run.id,
    step: ctx.step,
    request: rendered.request,
    now: ctx.now.toISOString(),
  });
  const job: NewJob<typeof INVOKE_JOB> = {
    kind: INVOKE_JOB,
    accountId: ctx.account.id,
    payload: { call_id: call.id, attempt: 1 },
    runAt: ctx.now,
  };
  // Called at once after the commit by this process's worker, which the job is claimed for (engine/commit.ts),
  // with the call as written here; else by any worker's loop.
  const claim = ctx.deps.soon && ctx.deps.soonRunner?.claimAtInsert(INVOKE_JOB);
  if (claim && ctx.deps.soon)
    ctx.deps.soon.push(handOver(await enqueueClaimed(ctx.tx, ctx.deps.clock, job, claim), call));
  else await enqueue(ctx.tx, ctx.deps.clock, job);
  return { wait: 'call', until: new Date(ctx.now.getTime() + CALL_WAIT_MS) };
};
