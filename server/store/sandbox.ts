// SQL of the sandbox channel's arranged answers.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function addArrangement(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  outcome: unknown,
  now: string,
): Promise<number> {
  await db
    .insertInto('sandbox_arrangements')
    .values({ account_id: accountId, connection_id: connectionId, outcome: JSON.stringify(outcome), created_at: now })
    .execute();
  return countArrangements(db, accountId, connectionId);
}

export async function countArrangements(db: Kysely<DB>, accountId: string, connectionId: string): Promise<number> {
  const row = await db
    .selectFrom('sandbox_arrangements')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function clearArrangements(db: Kysely<DB>, accountId: string, connectionId: string): Promise<void> {
  await db
    .deleteFrom('sandbox_arrangements')
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .execute();
}

/** Takes (deletes and returns) the oldest arranged answer of the connection; concurrent sends take one each. */
export async function takeNextArrangement(db: Kysely<DB>, accountId: string, connectionId: string): Promise<unknown> {
  const row = await db
    .deleteFrom('sandbox_arrangements')
    .where(
      'id',
      '=',
      db
        .selectFrom('sandbox_arrangements')
        .select('id')
        .where('account_id', '=', accountId)
        .where('connection_id', '=', connectionId)
        .orderBy('id')
        .limit(1)
        .forUpdate()
        .skipLocked(),
    )
    .returning('outcome')
    .executeTakeFirst();
  return row?.outcome;
}

/** The account's jobs that have not given up, soonest first: what may wait on the clock (the sandbox's waits). */
export async function pendingJobsOfAccount(db: Kysely<DB>, accountId: string, limit: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'kind', 'payload', 'run_at'])
    .where('account_id', '=', accountId)
    .where('failed_at', 'is', null)
    .orderBy('run_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Where each of these runs of the account stands (what a wake of it finds), and whether its automation was
 * deleted (its runs are being stopped): the sandbox's waits drop a run's wakes that would do nothing.
 */
export async function runWaitStates(db: Kysely<DB>, accountId: string, runIds: readonly string[]) {
  if (runIds.length === 0) return [];
  return db
    .selectFrom('workflow_runs as r')
    .innerJoin('workflows as w', (join) =>
      join.onRef('w.id', '=', 'r.workflow_id').onRef('w.account_id', '=', 'r.account_id'),
    )
    .select([
      'r.id',
      'r.status',
      'r.ended_at',
      'r.waiting_for',
      'r.wait_step',
      'r.step_count',
      'r.tap_step',
      'w.deleted_at as workflow_deleted_at',
    ])
    .where('r.account_id', '=', accountId)
    .where('r.id', 'in', runIds)
    .execute();
}
