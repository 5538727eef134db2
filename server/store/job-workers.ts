// SQL of the job workers' registry (migration 0018): a running worker's row and heartbeat, and the freeing of
// the claims of workers that are gone. Heartbeats are on the database's clock (`clock_timestamp()`): the one wall
// clock every host shares, unmoved by the sandbox clock, so a host's skew cannot make a live worker look dead.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { PayloadOf } from '../job-kinds.js';
import type { DB } from './schema.js';

export interface WorkerIdentity {
  id: string;
  host: string;
  pid: number;
}

/** A job whose claim was taken from a worker that is gone: free again, its attempt still counted. */
export interface FreedJob<K extends string = string> {
  id: string;
  kind: K;
  payload: PayloadOf<K>;
}

/** Registers (or re-registers) a worker with a fresh heartbeat. */
export async function registerWorker(db: Kysely<DB>, worker: WorkerIdentity): Promise<void> {
  await db
    .insertInto('job_workers')
    .values({ id: worker.id, host: worker.host, pid: worker.pid })
    .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: sql`clock_timestamp()` }))
    .execute();
}

/** Beats the worker's heartbeat; false when its row is gone (the others took it for dead and freed its claims). */
export async function beatWorker(db: Kysely<DB>, id: string): Promise<boolean> {
  const result = await db
    .updateTable('job_workers')
    .set({ heartbeat_at: sql`clock_timestamp()` })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A worker stopping cleanly (its claims already completed or given back). */
export async function unregisterWorker(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('job_workers').where('id', '=', id).execute();
}

/** The other workers registered from `host`: the caller checks which of their processes still exist. */
export async function workersOnHost(db: Kysely<DB>, host: string, except: string): Promise<WorkerIdentity[]> {
  return db
    .selectFrom('job_workers')
    .select(['id', 'host', 'pid'])
    .where('host', '=', host)
    .where('id', '!=', except)
    .execute();
}

/**
 * Forgets the workers `ids` that are still silent for `silentForMs` (0: whatever their heartbeat) and frees their
 * claims, in the caller's transaction; returns the freed jobs. Two workers sweeping at once free each claim once:
 * the row delete is the one that counts.
 */
export async function freeClaimsOfGoneWorkers(
  trx: Transaction<DB>,
  ids: readonly string[] | 'silent',
  silentForMs: number,
): Promise<FreedJob[]> {
  let gone = trx
    .deleteFrom('job_workers')
    .where(sql<boolean>`heartbeat_at < clock_timestamp() - make_interval(secs => ${silentForMs / 1000})`);
  if (ids !== 'silent') {
    if (ids.length === 0) return [];
    gone = gone.where('id', 'in', ids);
  }
  const workers = await gone.returning('id').execute();
  if (workers.length === 0) return [];
  const freed = await trx
    .updateTable('jobs')
    .set({ locked_by: null, locked_until: null })
    .where(
      'locked_by',
      'in',
      workers.map((w) => w.id),
    )
    .returning(['id', 'kind', 'payload'])
    .execute();
  return freed.map((row) => ({ id: String(row.id), kind: row.kind, payload: row.payload }));
}

/** Extends the leases of jobs this worker still holds to `until`; returns the ids it still held. */
export async function renewLeases(
  db: Kysely<DB>,
  workerId: string,
  jobIds: readonly string[],
  until: Date,
): Promise<string[]> {
  if (jobIds.length === 0) return [];
  const rows = await db
    .updateTable('jobs')
    .set({ locked_until: until.toISOString() })
    .where('locked_by', '=', workerId)
    .where('id', 'in', jobIds)
    .returning('id')
    .execute();
  return rows.map((row) => String(row.id));
}

/** Forgets every registered worker (an embedded server starting owns its data directory); returns how many. */
export async function forgetEveryWorker(db: Kysely<DB>): Promise<number> {
  const result = await db.deleteFrom('job_workers').executeTakeFirst();
  return Number(result.numDeletedRows);
}
