// SQL of the durable jobs table. A job is enqueued in the transaction of the write that causes it, claimed with
// `FOR UPDATE SKIP LOCKED` under a lease (`locked_until`, `locked_by`), then deleted when done, or put back
// with a later `run_at` on failure. A claim is identified by (id, locked_by, attempts): a worker whose lease
// expired and was taken over can no longer complete, fail or release the job.
//
// A job due at once also notifies JOBS_READY_CHANNEL in that transaction: PostgreSQL (and PGlite) deliver the
// notification only if the transaction commits, and idle workers that listen (JobWorker's `wakeOn`) claim at
// once instead of at their next poll. The poll stays: a notification missed only costs one poll interval.
//
// A job that cannot run yet because a resource it needs is taken waits for it (`parkJob`): it leaves the
// claim's index and costs no query until the transaction that frees the resource wakes it (`wakeJobs`), or its
// deadline passes (`wakeOverdueJobs`, a worker's periodic sweep: the holder died without freeing it).
import { sql, type Kysely, type QueryCreator, type Selectable, type Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import type { AccountOf, JobKind, PayloadOf } from '../job-kinds.js';
import type { DB, JobsTable } from './schema.js';

/** A job to add, of kind `K`: a kind of the service carries that kind's payload (server/job-kinds.ts). */
export interface NewJob<K extends string = string> {
  kind: K;
  /** The account the job works for (null for service-wide jobs). */
  accountId: AccountOf<K>;
  /** A JSON value. */
  payload: PayloadOf<K>;
  /** When it may run; default now. */
  runAt?: Date | string;
}

/** A job a worker holds (its lease), of kind `K`. */
export interface ClaimedJob<K extends string = string> {
  id: string;
  kind: K;
  accountId: AccountOf<K>;
  payload: PayloadOf<K>;
  runAt: string;
  /** Claims so far, this one included. */
  attempts: number;
  lastError: string | null;
  createdAt: string;
  lockedBy: string;
  lockedUntil: string;
}

/** What identifies one claim of a job. */
export type JobClaim = Pick<ClaimedJob, 'id' | 'attempts' | 'lockedBy'>;

export interface ClaimOptions {
  workerId: string;
  /** Only these kinds: a worker never takes a job it has no handler for. */
  kinds: readonly string[];
  limit: number;
  now: Date;
  /** How long a claim holds a job of a kind `leases` does not name. */
  leaseMs: number;
  /** The lease of each kind that has its own (a webhook attempt: its deadline and a margin…). */
  leases?: Readonly<Record<string, number>>;
}

/**
 * What the handler of a claimed job holds while it runs: the database, and the two ways the claim ends inside
 * the handler's own transaction.
 */
export interface JobLease {
  db: Kysely<DB>;
  /**
   * Deletes the job inside the handler's own transaction, so its effect and its completion commit together
   * (exactly once for database effects). Throws `LeaseLostError` when the lease was taken over: the
   * transaction then rolls back and the other worker's run is the one that counts. A handler that returns
   * after it has its transaction committed (the worker deletes nothing more); one that swallows that
   * transaction's failure leaves the job to its lease, and it runs again.
   */
  complete(trx: Transaction<DB>): Promise<void>;
  /**
   * Instead of completing: the job waits for `key` (a resource someone else holds) and is not claimed again
   * until the transaction that frees it calls `wakeJobs(key)`, or until `until` if nobody does. It costs no
   * query meanwhile. Throws `LeaseLostError` like `complete`.
   */
  park(trx: Transaction<DB>, wait: { key: string; until: Date | string }): Promise<void>;
}

/** The channel notified when a transaction adds a job that is due at once. */
export const JOBS_READY_CHANNEL = 'jobs_ready';

/** The row of a new job, and whether it is due at once (then its commit must wake the idle workers). */
function newJobRow(job: NewJob<string>, now: Date) {
  const runAt = job.runAt ?? now;
  return {
    row: {
      kind: job.kind,
      account_id: job.accountId,
      payload: JSON.stringify(job.payload ?? null),
      run_at: runAt,
      created_at: now,
    },
    // Unless it is surely later: a needless wake-up costs a claim, a missed one a poll interval.
    due: !(new Date(runAt).getTime() > now.getTime()),
  };
}

/**
 * Adds a job in `trx`, the transaction of the write that causes it: the job exists only if that write commits.
 * `runAt` defaults to now. Returns its id. Every producer enqueues through it, so a service kind's payload is
 * checked against its kind where the job is made, and a kind the map does not have is a compile error (the
 * queue's own tests insert kinds of their own with `enqueueJob`).
 */
export function enqueue<K extends JobKind>(trx: Transaction<DB>, clock: Clock, job: NewJob<K>): Promise<string> {
  return enqueueJob(trx, job, clock.now());
}

/**
 * Inserts a job (`enqueue`'s statement): a job due now notifies JOBS_READY_CHANNEL (at commit, in the same
 * statement); one scheduled later does not.
 */
export async function enqueueJob<K extends string>(trx: Transaction<DB>, job: NewJob<K>, now: Date): Promise<string> {
  const { row, due } = newJobRow(job, now);
  const insert = trx.insertInto('jobs').values(row);
  const inserted = await (
    due
      ? insert.returning(['id', sql<string>`pg_notify(${JOBS_READY_CHANNEL}, '')`.as('notified')])
      : insert.returning('id')
  ).executeTakeFirstOrThrow();
  return String(inserted.id);
}

/** Who a job added already claimed is held by: the worker of this process, under its kind's lease. */
export interface ClaimAtInsert {
  workerId: string;
  leaseMs: number;
}

/**
 * Adds a job in `trx` already claimed by `claim.workerId` (counted as its first claim), for the process that
 * commits it to run it at once (JobRegistry.runSoon) with no claim of its own and no race with the loops: it
 * notifies nobody. If that process does not run it, its claim is freed like any other: released (`releaseJob`),
 * freed with a dead worker's (job-workers.ts), or left to expire.
 */
export async function enqueueClaimed<K extends JobKind>(
  trx: Transaction<DB>,
  clock: Clock,
  job: NewJob<K>,
  claim: ClaimAtInsert,
): Promise<ClaimedJob<K>> {
  const inserted = await trx
    .insertInto('jobs')
    .values(claimedJobRow(job, claim, clock.now()))
    .returningAll()
    .executeTakeFirstOrThrow();
  return claimedJobOf(inserted, job);
}

/**
 * `enqueueClaimed` for many jobs of one kind in one statement (a group commit's payloads), in `jobs`' order.
 * (Should RETURNING ever come back in another order, a claim would pair one job's id with another's payload
 * of the same kind: each payload still runs once.)
 */
export async function enqueueManyClaimed<K extends JobKind>(
  trx: Transaction<DB>,
  clock: Clock,
  jobs: readonly NewJob<K>[],
  claim: ClaimAtInsert,
): Promise<ClaimedJob<K>[]> {
  if (jobs.length === 0) return [];
  const now = clock.now();
  const inserted = await trx
    .insertInto('jobs')
    .values(jobs.map((job) => claimedJobRow(job, claim, now)))
    .returningAll()
    .execute();
  return jobs.map((job, i) => {
    const row = inserted[i];
    if (!row) throw new Error(`job ${i} of ${jobs.length} added was not returned`);
    return claimedJobOf(row, job);
  });
}

/**
 * The worker of this process that runs at once the jobs a transaction commits claimed for it (JobRegistry):
 * `claimAtInsert` before the insert (undefined: no such worker here, add the job unclaimed), `runSoon` after
 * the commit. `room`: how many more jobs it could start now (a burst beyond that is left to the loops).
 */
export interface JobsAtCommit {
  claimAtInsert(kind: string): ClaimAtInsert | undefined;
  runSoon(jobs: readonly ClaimedJob[]): void;
  room?(): number;
}

/** The row `enqueueClaimed` writes (for a statement that writes the job with what causes it). */
export function claimedJobRow<K extends JobKind>(job: NewJob<K>, claim: ClaimAtInsert, now: Date) {
  return {
    ...newJobRow(job, now).row,
    attempts: 1,
    locked_by: claim.workerId,
    locked_until: new Date(now.getTime() + claim.leaseMs).toISOString(),
  };
}

/** The job `claimedJobRow(job)` wrote, as its claim. */
export function claimedJobOf<K extends JobKind>(inserted: JobRow, job: NewJob<K>): ClaimedJob<K> {
  // The row is the job just written as `job`: its kind and payload are K's.
  return { ...toClaimedJob(inserted), kind: job.kind, accountId: job.accountId, payload: job.payload };
}

/**
 * The row of a job due later, for a statement that writes it with what causes it: nobody needs waking for it
 * (a job due now must be added with `enqueue`, which notifies).
 */
export function laterJobRow<K extends JobKind>(job: NewJob<K>, now: Date) {
  const { row, due } = newJobRow(job, now);
  if (due) throw new Error(`a ${job.kind} job due now must be added with enqueue`);
  return row;
}

/**
 * Adds many jobs in one statement, in the caller's transaction (a fan-out); when any is due now, the commit
 * notifies JOBS_READY_CHANNEL once.
 */
export async function enqueueJobs<K extends string>(
  db: Kysely<DB>,
  jobs: readonly NewJob<K>[],
  now: Date,
): Promise<void> {
  if (jobs.length === 0) return;
  const rows = jobs.map((job) => newJobRow(job, now));
  const values = rows.map((r) => r.row);
  if (!rows.some((r) => r.due)) {
    await db.insertInto('jobs').values(values).execute();
    return;
  }
  await db
    .with('inserted', (qb) => qb.insertInto('jobs').values(values))
    .selectNoFrom(sql<string>`pg_notify(${JOBS_READY_CHANNEL}, '')`.as('notified'))
    .execute();
}

/**
 * Takes up to `limit` due jobs whose lease is free or expired, oldest `run_at` first, and leases them to
 * `workerId` until now + leaseMs. Rows another transaction is claiming are skipped, not waited for, so
 * workers never block each other and never take the same job.
 */
export async function claimJobs(db: Kysely<DB>, options: ClaimOptions): Promise<ClaimedJob[]> {
  if (options.kinds.length === 0 || options.limit < 1) return [];
  const now = options.now.toISOString();
  const leaseEnd = leaseEndOf(options);
  const rows = await db
    .with(
      (cte) => cte('due').materialized(),
      (qb) =>
        qb
          .selectFrom('jobs')
          .select('id')
          .where('failed_at', 'is', null)
          .where('waiting_for', 'is', null)
          .where('run_at', '<=', now)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
          .where('kind', 'in', options.kinds)
          .orderBy('run_at')
          .orderBy('id')
          .limit(options.limit)
          .forUpdate()
          .skipLocked(),
    )
    .updateTable('jobs')
    .from('due')
    .set((eb) => ({
      locked_until: leaseEnd,
      locked_by: options.workerId,
      attempts: eb('jobs.attempts', '+', 1),
    }))
    .whereRef('jobs.id', '=', 'due.id')
    .returningAll('jobs')
    .execute();
  return rows
    .map(toClaimedJob)
    .sort((a, b) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : compareIds(a.id, b.id)));
}

/** The end of a claim's lease, by the claimed row's kind: each kind's own lease, the default for the others. */
function leaseEndOf(options: Pick<ClaimOptions, 'kinds' | 'now' | 'leaseMs' | 'leases'>) {
  const until = (leaseMs: number) => new Date(options.now.getTime() + leaseMs).toISOString();
  const ownLeases = Object.entries(options.leases ?? {}).filter(([kind]) => options.kinds.includes(kind));
  const cases = ownLeases.map(([kind, leaseMs]) => sql`when jobs.kind = ${kind} then ${until(leaseMs)}::timestamptz`);
  return cases.length === 0
    ? until(options.leaseMs)
    : sql<string>`case ${sql.join(cases, sql` `)} else ${until(options.leaseMs)}::timestamptz end`;
}

/** Deletes a finished job; false when this claim no longer holds it (its lease was taken over). */
export async function completeJob(db: Kysely<DB>, claim: JobClaim): Promise<boolean> {
  const result = await db
    .deleteFrom('jobs')
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.lockedBy)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Deletes many finished jobs in one statement (a batch of one kind's handler); returns the ids of those this
 * claim still held (the others' leases were taken over: their runs are not this one's to count).
 */
export async function completeJobs(db: Kysely<DB>, claims: readonly JobClaim[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`
    delete from jobs using jsonb_to_recordset(${JSON.stringify(claims.map(claimOf))}::jsonb)
      as c(id bigint, locked_by text, attempts integer)
    where jobs.id = c.id and jobs.locked_by = c.locked_by and jobs.attempts = c.attempts
    returning jobs.id
  `.execute(db);
  return new Set(rows.map((r) => String(r.id)));
}

/** `parkJob` for many claims in one statement; returns the ids of those this claim still held. */
export async function parkJobs(
  db: Kysely<DB>,
  waits: readonly { claim: JobClaim; key: string; until: string }[],
): Promise<Set<string>> {
  if (waits.length === 0) return new Set();
  const input = waits.map((w) => ({ ...claimOf(w.claim), key: w.key, until: w.until }));
  const { rows } = await sql<{ id: string }>`
    update jobs set locked_until = null, locked_by = null, attempts = jobs.attempts - 1,
      waiting_for = c.key, wait_until = c.until
    from jsonb_to_recordset(${JSON.stringify(input)}::jsonb)
      as c(id bigint, locked_by text, attempts integer, key text, until timestamptz)
    where jobs.id = c.id and jobs.locked_by = c.locked_by and jobs.attempts = c.attempts
    returning jobs.id
  `.execute(db);
  return new Set(rows.map((r) => String(r.id)));
}

const claimOf = (c: JobClaim) => ({ id: c.id, locked_by: c.lockedBy, attempts: c.attempts });

/**
 * Records a failed attempt: the job runs again at `retryAt`, or, with `retryAt` null, is marked failed and
 * never claimed again. False when this claim no longer holds the job.
 */
export async function failJob(
  db: Kysely<DB>,
  claim: JobClaim,
  failure: { error: string; retryAt: Date | null; now: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      locked_until: null,
      locked_by: null,
      last_error: failure.error.slice(0, 2000),
      ...(failure.retryAt ? { run_at: failure.retryAt.toISOString() } : { failed_at: failure.now.toISOString() }),
    })
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.lockedBy)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives back a claimed job that did not start (a stopping worker): free at once, the claim not counted. */
export async function releaseJob(db: Kysely<DB>, claim: JobClaim): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set((eb) => ({ locked_until: null, locked_by: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.lockedBy)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Puts a claimed job to wait for `key` (in the caller's transaction): it is not claimed again until a
 * `wakeJobs(key)` or `until`, whichever comes first, and keeps its `run_at` (its place in the queue). The
 * claim is given back uncounted, like a release. False when this claim no longer holds the job.
 */
export async function parkJob(
  db: Kysely<DB>,
  claim: JobClaim,
  wait: { key: string; until: Date | string },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set((eb) => ({
      locked_until: null,
      locked_by: null,
      attempts: eb('attempts', '-', 1),
      waiting_for: wait.key,
      wait_until: typeof wait.until === 'string' ? wait.until : wait.until.toISOString(),
    }))
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.lockedBy)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Wakes up to `limit` jobs waiting for `key`, oldest place in the queue first (null: all), in the caller's
 * transaction; their commit wakes idle workers (JOBS_READY_CHANNEL). Waiters another transaction is waking
 * are skipped. Returns how many woke.
 */
export async function wakeJobs(db: Kysely<DB>, key: string, limit: number | null): Promise<number> {
  return (await wakeJobsStatement(db, key, limit).execute()).length;
}

/**
 * The statement of `wakeJobs`, to run alone or inside another (a CTE: the webhook delivery's record of its attempt
 * wakes the job waiting for the slot it freed in the same statement).
 */
export function wakeJobsStatement(db: QueryCreator<DB>, key: string, limit: number | null) {
  let waiters = db
    .selectFrom('jobs')
    .select('id')
    .where('waiting_for', '=', key)
    .orderBy('run_at')
    .orderBy('id')
    .forUpdate()
    .skipLocked();
  if (limit !== null) waiters = waiters.limit(limit);
  return db
    .updateTable('jobs')
    .set({ waiting_for: null, wait_until: null })
    .where('id', 'in', waiters)
    .returning(sql<string>`pg_notify(${JOBS_READY_CHANNEL}, '')`.as('notified'));
}

/** The ids of the oldest jobs waiting for each key (as many as its `limit`), locked, skipping those locked elsewhere. */
function oldestWaitersOfKeys(wakes: readonly { key: string; limit: number }[]) {
  return sql<string>`(select w.id from jsonb_to_recordset(${JSON.stringify(wakes)}::jsonb) as k(key text, "limit" integer)
    cross join lateral (select id from jobs where waiting_for = k.key order by run_at, id limit k."limit"
      for update skip locked) w)`;
}

/**
 * `wakeJobsStatement` for several keys, each with its own number of waiters to wake (oldest place first), as a
 * statement to run inside another (a batch of webhook attempts frees several slots of several endpoints).
 */
export function wakeJobsOfKeysStatement(db: QueryCreator<DB>, wakes: readonly { key: string; limit: number }[]) {
  return db
    .updateTable('jobs')
    .set({ waiting_for: null, wait_until: null })
    .where('id', 'in', oldestWaitersOfKeys(wakes))
    .returning(sql<string>`pg_notify(${JOBS_READY_CHANNEL}, '')`.as('notified'));
}

/**
 * `wakeJobsOfKeysStatement`, but each waiter woken is claimed at once for `claim.workerId` (counted as a claim,
 * leased until `claim.lockedUntil`), for the worker whose transaction freed what it waited for to run it after the
 * commit (no notification, no claim of its own): a statement to run inside another, returning the claimed rows.
 */
export function handOverJobsOfKeysStatement(
  db: QueryCreator<DB>,
  wakes: readonly { key: string; limit: number }[],
  claim: { workerId: string; lockedUntil: string },
) {
  return db
    .updateTable('jobs')
    .set((eb) => ({
      waiting_for: null,
      wait_until: null,
      locked_by: claim.workerId,
      locked_until: claim.lockedUntil,
      attempts: eb('jobs.attempts', '+', 1),
    }))
    .where('id', 'in', oldestWaitersOfKeys(wakes))
    .returningAll();
}

/** A claimed job's row (as `handOverJobsOfKeysStatement` returns it) as its claim. */
export function claimedJobFromRow(row: JobRow): ClaimedJob {
  return toClaimedJob(row);
}

/** Wakes every job whose wait passed its deadline at `now` (nobody woke it); returns how many. */
export async function wakeOverdueJobs(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ waiting_for: null, wait_until: null })
    .where('waiting_for', 'is not', null)
    .where('wait_until', '<=', now.toISOString())
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Gives back every claim and ends every wait: for a process that knows no other one runs jobs on this database
 * (the embedded server owns its data directory), so the claims left are those of a process that died, and
 * would otherwise hold their jobs until their leases run out. Attempts stay counted. Returns how many jobs.
 */
export async function releaseEveryClaim(db: Kysely<DB>): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_by: null, locked_until: null, waiting_for: null, wait_until: null })
    .where((eb) => eb.or([eb('locked_by', 'is not', null), eb('waiting_for', 'is not', null)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes up to `limit` jobs that gave up before `before`, the oldest first (the partial index `jobs_failed`):
 * one short statement, so a backlog goes in many small deletes, never one that holds its locks for long. Rows
 * another transaction holds are skipped. Returns how many.
 */
export async function deleteFailedJobs(db: Kysely<DB>, before: string, limit: number): Promise<number> {
  const batch = db
    .selectFrom('jobs')
    .select('id')
    .where('failed_at', '<', before)
    .orderBy('failed_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const result = await db.deleteFrom('jobs').where('id', 'in', batch).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How many jobs are in each state at `now` (the metrics' gauges). */
export interface JobCounts {
  /** May run now: due, not parked, not held by a live lease, not failed. */
  due: number;
  /** Held by a worker's lease that has not run out. */
  running: number;
  /** Waiting for a resource (`parkJob`). */
  parked: number;
  /** Gave up (kept FAILED_JOB_RETENTION_DAYS). */
  failed: number;
}

/**
 * Counts the jobs of each state in one statement, each count on a partial index (`jobs_claim_ready`,
 * `jobs_locked_by`, `jobs_waiting_for`, `jobs_failed`): what is scheduled later is not read.
 */
export async function countJobsByState(db: Kysely<DB>, now: Date): Promise<JobCounts> {
  const at = now.toISOString();
  const count = sql<string>`count(*)`;
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('jobs')
        .select(count.as('n'))
        .where('failed_at', 'is', null)
        .where('waiting_for', 'is', null)
        .where('run_at', '<=', at)
        .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<=', at)]))
        .as('due'),
      eb
        .selectFrom('jobs')
        .select(count.as('n'))
        .where('locked_by', 'is not', null)
        .where('locked_until', '>', at)
        .as('running'),
      eb.selectFrom('jobs').select(count.as('n')).where('waiting_for', 'is not', null).as('parked'),
      eb.selectFrom('jobs').select(count.as('n')).where('failed_at', 'is not', null).as('failed'),
    ])
    .executeTakeFirstOrThrow();
  return {
    due: Number(row.due),
    running: Number(row.running),
    parked: Number(row.parked),
    failed: Number(row.failed),
  };
}

export type JobRow = Selectable<JobsTable>;

/** One job by id (tests, the console). */
export async function findJob(db: Kysely<DB>, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

function toClaimedJob(row: JobRow): ClaimedJob {
  if (row.locked_by === null || row.locked_until === null) throw new Error(`job ${row.id} came back unclaimed`);
  return {
    id: String(row.id),
    kind: row.kind,
    accountId: row.account_id,
    payload: row.payload,
    runAt: row.run_at,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until,
  };
}

// Ids are bigints (strings once past 2^53): compare by length, then text.
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Refreshes the planner's statistics of the jobs table. A burst of jobs (a bulk change fanning out to webhook
 * deliveries) outruns autovacuum, and PGlite has none: without statistics the claim reads and sorts every due
 * job instead of walking `jobs_claim` (measured on 20,000 jobs: 4-18 ms a claim instead of 0.1 ms).
 */
export async function analyzeJobs(db: Kysely<DB>): Promise<void> {
  await sql`analyze jobs`.execute(db);
}

/**
 * A burst's jobs of one kind (the channel webhooks' group commit) in one statement, which commits alone (no
 * begin or commit round trips): `claimed` added already claimed for `claim`'s worker (as `enqueueManyClaimed`,
 * returned in their order), `others` for the loops (as `enqueueJobs`: notified at the commit when one is due).
 * Every job or none is added.
 */
export async function enqueueBurst<K extends JobKind>(
  db: Kysely<DB>,
  now: Date,
  claimed: { jobs: readonly NewJob<K>[]; claim: ClaimAtInsert } | undefined,
  others: readonly NewJob<K>[],
): Promise<ClaimedJob<K>[]> {
  if (!claimed || claimed.jobs.length === 0) {
    await enqueueJobs(db, others, now);
    return [];
  }
  const { jobs, claim } = claimed;
  const rows = jobs.map((job) => claimedJobRow(job, claim, now));
  const later = others.map((job) => newJobRow(job, now));
  const insert =
    later.length === 0
      ? db.insertInto('jobs').values(rows).returningAll()
      : db
          .with('others', (qb) => qb.insertInto('jobs').values(later.map((r) => r.row)))
          .insertInto('jobs')
          .values(rows)
          .returningAll();
  // The notification rides on the returned rows (repeated ones in one transaction are delivered once).
  const inserted = await (
    later.some((r) => r.due)
      ? insert.returning(sql<string>`pg_notify(${JOBS_READY_CHANNEL}, '')`.as('notified'))
      : insert
  ).execute();
  return jobs.map((job, i) => {
    const row = inserted[i];
    if (!row) throw new Error(`job ${i} of ${jobs.length} added was not returned`);
    return claimedJobOf(row, job);
  });
}
