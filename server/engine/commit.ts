// A transaction of the engine whose jobs due now this process runs as soon as it commits (an invoke block's
// call): the block adds the job in the transaction as any job (durable, and the commit's notification wakes the
// workers), and names it in `deps.soon`; after the commit `deps.runSoon` hands it to this process's worker,
// which claims it by id at once instead of waiting for the notification and a claim of its loop. If that does
// not happen (no worker here, the process dies, the claim fails), the job is still there for any worker.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { EngineDeps } from './context.js';

export async function committing<T, D extends EngineDeps>(
  db: Kysely<DB>,
  deps: D,
  work: (tx: Transaction<DB>, deps: D) => Promise<T>,
): Promise<T> {
  if (!deps.runSoon) return db.transaction().execute((tx) => work(tx, deps));
  const soon: string[] = [];
  const result = await db.transaction().execute((tx) => work(tx, { ...deps, soon }));
  deps.runSoon(soon);
  return result;
}
