// The invoke call a block's transaction hands to its job, claimed at insert for this process's worker: once that
// transaction commits, the job's first run starts from the call as the block wrote it, without reading it back
// (call.ts). A WeakMap keyed by the claimed job: a rolled-back transaction leaves nothing behind. Its own module,
// so the executor (run by the engine) and the job (which runs the engine) do not import each other.
import type { ClaimedJob } from '../../../store/jobs.js';
import type { InvokeCallRow } from '../../../store/invoke-calls.js';

const handed = new WeakMap<object, InvokeCallRow>();

/** Gives `job` the call just written with it. Returns the job. */
export function handOver<J extends ClaimedJob>(job: J, call: InvokeCallRow): J {
  handed.set(job, call);
  return job;
}

/** The call handed over with `job`, if this process wrote both. */
export function handedCall(job: object): InvokeCallRow | undefined {
  return handed.get(job);
}
