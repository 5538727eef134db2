// invoke (Part B): renders the request (variables substituted, secrets kept by name), refuses an endpoint that is
// not an http or https address (the failure output, the 2nd, at once), and otherwise records the call and hands
// it to a `workflow.invoke` job: the run waits (`call`) so the stretch's transaction commits before any request
// goes out. The job (call.ts) makes the attempts and wakes the run with the output; outcome.ts copies the fields.
import { randomUUID } from 'node:crypto';
import { CALL_WAIT_MS, type BlockExecutor } from '../../engine/context.js';
import { INVOKE_JOB } from '../../job-kinds.js';
import { insertInvokeCall } from '../../store/invoke-calls.js';
import { enqueue } from '../../store/jobs.js';
import { renderRequest } from './evaluate.js';

export const execute: BlockExecutor<'invoke'> = async (ctx) => {
  const rendered = renderRequest(ctx.data, ctx.nodeId, ctx.vars.lookup);
  if (!rendered.ok) return { failed: { code: rendered.code, message: rendered.message }, output: 1 };
  const id = randomUUID();
  await insertInvokeCall(ctx.tx, {
    id,
    account_id: ctx.account.id,
    run_id: ctx.run.id,
    step: ctx.step,
    request: rendered.request,
    now: ctx.now.toISOString(),
  });
  const job = await enqueue(ctx.tx, ctx.deps.clock, {
    kind: INVOKE_JOB,
    accountId: ctx.account.id,
    payload: { call_id: id, attempt: 1 },
    runAt: ctx.now,
  });
  // Called at once after the commit by this process's worker (engine/commit.ts), else by any worker.
  ctx.deps.soon?.push(job);
  return { wait: 'call', until: new Date(ctx.now.getTime() + CALL_WAIT_MS) };
};
