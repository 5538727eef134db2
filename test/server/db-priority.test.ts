// The API's requests before background work (server/store/priority.ts): on PGlite's one session a request waits
// for at most the background transaction under way, never for the queue of jobs behind it, and a job still gets
// a turn under a stream of requests; on PostgreSQL background work holds at most half the pool.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOREGROUND_TURNS, PriorityTurns, runInBackground } from '../../server/store/priority.js';
import type { DB } from '../../server/store/schema.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

describe('PriorityTurns', () => {
  it('serves a waiting request before every waiting background holder', async () => {
    const turns = new PriorityTurns();
    const order: string[] = [];
    await turns.acquire(); // held by someone
    const waits = [
      ...['b1', 'b2', 'b3'].map((name) => runInBackground(() => turns.acquire().then(() => name))),
      turns.acquire().then(() => 'f1'),
    ].map((p) =>
      p.then((name) => {
        order.push(name);
        turns.release();
      }),
    );
    expect(turns.waiting).toEqual({ foreground: 1, background: 3 });
    turns.release();
    await Promise.all(waits);
    expect(order).toEqual(['f1', 'b1', 'b2', 'b3']);
  });

  it(`gives a background holder one turn after ${FOREGROUND_TURNS} requests in a row`, async () => {
    const turns = new PriorityTurns();
    const order: string[] = [];
    await turns.acquire();
    const requests = Array.from({ length: 20 }, (_, i) => turns.acquire().then(() => `f${i}`));
    const jobs = Array.from({ length: 2 }, (_, i) => runInBackground(() => turns.acquire().then(() => `b${i}`)));
    const waits = [...requests, ...jobs].map((p) =>
      p.then((name) => {
        order.push(name);
        turns.release();
      }),
    );
    turns.release();
    await Promise.all(waits);
    // The holder before them counted as a request: the first job comes after 7 more.
    expect(order.indexOf('b0')).toBe(FOREGROUND_TURNS - 1);
    expect(order.indexOf('b1')).toBe(2 * FOREGROUND_TURNS);
    expect(order.filter((n) => n.startsWith('f'))).toEqual(requests.map((_, i) => `f${i}`));
  });

  it('lets the event loop read new requests between holders, so a chain of jobs cannot shut them out', async () => {
    // PGlite answers within microtasks: holders handed over at once would run back to back while the request
    // that arrives meanwhile (here a timer, like a socket read) could not even queue.
    const turns = new PriorityTurns();
    const order: string[] = [];
    await runInBackground(() => turns.acquire());
    // Enough jobs that their chain outlasts the timer's first millisecond on a fast machine too: handed over
    // back to back (the fault), the request would come after all 2,000; with a turn of the loop between
    // holders it comes after the few that fit in that millisecond.
    const jobs = Array.from({ length: 2000 }, (_, i) =>
      runInBackground(() => turns.acquire()).then(() => {
        order.push(`job ${i}`);
        turns.release();
      }),
    );
    const request = new Promise<void>((ok) =>
      setTimeout(() => {
        void turns.acquire().then(() => {
          order.push('request');
          turns.release();
          ok();
        });
      }, 0),
    );
    turns.release();
    await Promise.all([...jobs, request]);
    expect(order.indexOf('request')).toBeLessThan(1000);
  });
});

describe.each(engines)('database priority on %s', (engine) => {
  let t: TestDatabase;
  let db: Kysely<DB>;
  beforeAll(async () => {
    t = await openTestDatabase(engine);
    db = t.database.db;
  });
  afterAll(async () => {
    await t?.drop();
  });

  it.runIf(engine === 'pglite')(
    'a request waits for the background transaction under way, not for the jobs queued',
    async () => {
      const order: string[] = [];
      let endTransaction!: () => void;
      const held = new Promise<void>((ok) => (endTransaction = ok));
      let inside!: () => void;
      const entered = new Promise<void>((ok) => (inside = ok));
      const transaction = runInBackground(() =>
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          inside();
          await held;
          order.push('transaction');
        }),
      );
      await entered;
      const jobs = Array.from({ length: 20 }, (_, i) =>
        runInBackground(async () => {
          await sql`select ${i}::int`.execute(db);
          order.push(`job ${i}`);
        }),
      );
      const request = sql`select 'request'`.execute(db).then(() => order.push('request'));
      endTransaction();
      await Promise.all([transaction, request, ...jobs]);
      expect(order[0]).toBe('transaction');
      expect(order[1]).toBe('request');
      expect(order).toHaveLength(22);
    },
  );

  it.runIf(engine === 'postgres')('background work holds at most half the pool; requests get the rest', async () => {
    // The test handle's pool has 5 connections: background work gets 2 at once.
    let open = 0;
    let most = 0;
    let finish!: () => void;
    const gate = new Promise<void>((ok) => (finish = ok));
    const jobs = Array.from({ length: 6 }, () =>
      runInBackground(() =>
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          most = Math.max(most, ++open);
          await gate;
          open--;
        }),
      ),
    );
    await new Promise((ok) => setTimeout(ok, 200));
    expect(open).toBe(2);
    // Requests still find connections while the jobs hold theirs.
    const started = performance.now();
    await Promise.all(Array.from({ length: 3 }, () => sql`select 1`.execute(db)));
    expect(performance.now() - started).toBeLessThan(1000);
    finish();
    await Promise.all(jobs);
    expect(most).toBe(2);
  });
});
