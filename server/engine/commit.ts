// A transaction of the engine whose jobs this process runs as soon as it commits (an invoke block's call): the
// block adds its job already claimed for this process's worker (store/jobs.ts enqueueClaimed: no notification,
// no claim to race for) and names it in `deps.soon`; after the commit `soonRunner.runSoon` hands it to that
// worker, which runs it at once. If that does not happen (the runner fails, the process dies), the claim is
// given back or freed like any other, and any worker runs the job: it was written in the transaction.
import type { Kysely, Transaction } from 'kysely';
import type { ClaimedJob } from '../store/jobs.js';
import type { DB } from '../store/schema.js';
import type { EngineDeps } from './context.js';

export async function committing<T, D extends EngineDeps>(
  db: Kysely<DB>,
  deps: D,
  work: (tx: Transaction<DB>, deps: D) => Promise<T>,
): Promise<T> {
  const runner = deps.soonRunner;
  if (!runner) return db.transaction().execute((tx) => work(tx, deps));
  const soon: ClaimedJob[] = [];
  const result = await db.transaction().execute((tx) => work(tx, { ...deps, soon }));
  runner.runSoon(soon);
  return result;
}
