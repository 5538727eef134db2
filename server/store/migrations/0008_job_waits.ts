// Jobs that wait for a resource (issue 11): a job that cannot run yet because what it needs is taken (a webhook
// endpoint's in-flight slots) waits on a key instead of coming back every moment. `waiting_for` is the key;
// such a job is out of the claim's index and costs no query until the holder of the resource wakes it (the
// transaction that frees a slot wakes one waiter) or, should that never happen (a worker died holding the
// slot), until `wait_until`, when a worker's periodic sweep makes it claimable again. A woken job keeps its
// `run_at`, so it comes back in its place in the queue, ahead of jobs that have not been looked at yet.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    alter table jobs add column waiting_for text
  `,
  sql`
    alter table jobs add column wait_until timestamptz(6)
  `,
  sql`
    alter table jobs add constraint jobs_wait_until check ((waiting_for is null) = (wait_until is null))
  `,
  // The claim reads only jobs that wait for nothing.
  sql`
    create index jobs_claim_ready on jobs (run_at, id) where failed_at is null and waiting_for is null
  `,
  sql`
    drop index jobs_claim
  `,
  // A freed resource wakes its oldest waiters; the sweep finds waits past their deadline.
  sql`
    create index jobs_waiting_for on jobs (waiting_for, run_at, id) where waiting_for is not null
  `,
  sql`
    create index jobs_wait_until on jobs (wait_until) where waiting_for is not null
  `,
];
