// invoke (Part B): renders the request (variables substituted, secrets kept by name), refuses an endpoint that is
// not an http or https address (the failure output, the 2nd, at once), and otherwise records the call and hands
// it to a `workflow.invoke` job: the run waits (`call`) so the stretch's transaction commits before any request
// goes out. The job (call.ts) makes the attempts and wakes the run with the output; outcome.ts copies the fields.
// The call's bound, written with it, wakes the run with the failure output if the call never ends.
import { randomUUID } from 'node:crypto';
import { CALL_WAIT_MS, type BlockExecutor } from '../../context.js';
import { ADVANCE_RUN_JOB, INVOKE_JOB } from '../../../job-kinds.js';
import { insertInvokeCall, insertInvokeCallWithJobs } from '../../../store/invoke-calls.js';
import { claimedJobOf, claimedJobRow, enqueue, laterJobRow, type NewJob } from '../../../store/jobs.js';
import { handOver } from './handover.js';
import { renderRequest } from './evaluate.js';
import { onCallEnd } from './outcome.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'invoke'> = async (ctx) => {
  const rendered = renderRequest(ctx.data, ctx.nodeId, ctx.vars.lookup);
  if (!rendered.ok) return { failed: { code: rendered.code, message: rendered.message }, output: 1 };
  const { tx, deps, account, run, step, now } = ctx;
  const until = new Date(now.getTime() + CALL_WAIT_MS);
  const call = { id: randomUUID(), account_id: account.id, run_id: run.id, step, request: rendered.request };
  const job: NewJob<typeof INVOKE_JOB> = {
    kind: INVOKE_JOB,
    accountId: account.id,
    payload: { call_id: call.id, attempt: 1 },
    runAt: now,
  };
  const bound: NewJob<typeof ADVANCE_RUN_JOB> = {
    kind: ADVANCE_RUN_JOB,
    accountId: account.id,
    payload: { run_id: run.id, wake: { kind: 'call', step, output: 1 } },
    runAt: until,
  };
  // Called at once after the commit by this process's worker, which the job is claimed for (engine/commit.ts),
  // with the call as written here, all in one statement; else by any worker's loop.
  const claim = deps.soon && deps.soonRunner?.claimAtInsert(INVOKE_JOB);
  if (claim && deps.soon) {
    const clockNow = deps.clock.now();
    const written = await insertInvokeCallWithJobs(
      tx,
      { ...call, now: now.toISOString() },
      { job: claimedJobRow(job, claim, clockNow), bound: laterJobRow(bound, clockNow) },
    );
    deps.soon.push(handOver(claimedJobOf(written.job, job), written.call));
  } else {
    await insertInvokeCall(tx, { ...call, now: now.toISOString() });
    await enqueue(tx, deps.clock, job);
    await enqueue(tx, deps.clock, bound);
  }
  return { wait: 'call', until };
};

export const executor: ExecutorEntry<'invoke'> = { execute, onCallEnd };
