// The API's requests before background work (server/store/priority.ts): on PGlite's one session a request waits
// for at most the background transaction under way, never for the queue of jobs behind it, and a job still gets
// a turn under a stream of requests; on PostgreSQL background work holds at most half the pool.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKGROUND_PATIENCE_MS,
  BACKGROUND_TURNS,
  BackgroundShare,
  FOREGROUND_TURNS,
  inBurst,
  PriorityTurns,
  runInBackground,
  yieldForBurst,
} from '../../server/store/priority.js';
import type { DB } from '../../server/store/schema.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

describe('PriorityTurns', () => {
  it('serves a waiting request before every waiting background holder', async () => {
    const turns = new PriorityTurns(() => 0); // the clock stands still: no holder grows impatient
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
    const turns = new PriorityTurns(() => 0);
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

  it(`lets a background line that waited ${BACKGROUND_PATIENCE_MS} ms take ${BACKGROUND_TURNS} turns for each request's`, async () => {
    // A burst of requests (a sandbox's writes) must not leave the runs they start seconds behind (the runs take
    // more turns than the writes that start them: with one each the line grew all burst long), nor may the runs
    // then shut the requests out: a request waits for at most two background transactions.
    let now = 0;
    const turns = new PriorityTurns(() => now);
    const order: string[] = [];
    await turns.acquire(); // a request holds the session
    const jobs = Array.from({ length: 3 }, (_, i) => runInBackground(() => turns.acquire().then(() => `b${i}`)));
    now = BACKGROUND_PATIENCE_MS - 1;
    const early = turns.acquire().then(() => 'f0');
    const waits = [early, ...jobs].map((p) =>
      p.then((name) => {
        order.push(name);
        // The requests that arrive once the jobs have waited long enough.
        if (name === 'f0') now = BACKGROUND_PATIENCE_MS;
        turns.release();
      }),
    );
    const late = Array.from({ length: 4 }, (_, i) => turns.acquire().then(() => `f${i + 1}`));
    const lateWaits = late.map((p) =>
      p.then((name) => {
        order.push(name);
        turns.release();
      }),
    );
    turns.release();
    await Promise.all([...waits, ...lateWaits]);
    // f0 came before the jobs had waited long enough; then two jobs, one request, in turn, until no job is left.
    expect(order).toEqual(['f0', 'b0', 'b1', 'f1', 'b2', 'f2', 'f3', 'f4']);
  });

  it("serves, among background holders, the work begun first: one job's transactions before a later job's", async () => {
    // Every job in flight moving one transaction in turn would make them all finish late together.
    const turns = new PriorityTurns(() => 0);
    const order: string[] = [];
    await turns.acquire(); // a request holds the session
    const job = (name: string) =>
      runInBackground(async () => {
        for (const step of [1, 2, 3]) {
          await turns.acquire();
          order.push(`${name}${step}`);
          turns.release();
        }
      });
    const first = job('a');
    await new Promise((ok) => setTimeout(ok, 2)); // the second job begins later
    const second = job('b');
    turns.release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
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

describe('BackgroundShare', () => {
  it('hands a freed connection to the waiting work begun first, whoever asked first', async () => {
    const share = new BackgroundShare(1);
    const order: string[] = [];
    let askOld!: () => void;
    const asked = new Promise<void>((ok) => (askOld = ok));
    // The old job began first and asks for its next connection last (it was running meanwhile).
    const old = runInBackground(async () => {
      await asked;
      const release = await share.take();
      order.push('old');
      release();
    });
    await new Promise((ok) => setTimeout(ok, 2));
    const holder = await runInBackground(() => share.take());
    const young = runInBackground(async () => {
      const release = await share.take();
      order.push('young');
      release();
    });
    askOld();
    await new Promise((ok) => setTimeout(ok, 5));
    expect(order).toEqual([]); // both wait for the one connection
    holder();
    await Promise.all([old, young]);
    expect(order).toEqual(['old', 'young']);
  });
});

describe('a burst of requests whose work can wait (yieldForBurst)', () => {
  it('holds background work to one pool connection while it lasts, and gives the share back after', async () => {
    const share = new BackgroundShare(3);
    const held = await runInBackground(() => share.take());
    yieldForBurst(150);
    let second = false;
    const waiting = runInBackground(() => share.take()).then((release) => {
      second = true;
      return release;
    });
    const foreground = await share.take(); // requests are never held
    foreground();
    await new Promise((ok) => setTimeout(ok, 20));
    expect(second).toBe(false);
    held(); // the one connection changes hands
    const release = await waiting;
    // After the burst, the share is 3 again: two more at once beside the one held.
    await new Promise((ok) => setTimeout(ok, 200));
    const more = await Promise.all([runInBackground(() => share.take()), runInBackground(() => share.take())]);
    for (const r of [release, ...more]) r();
  });

  it('keeps a waiting background holder behind requests on PGlite, however long it waited', async () => {
    let now = 0;
    const turns = new PriorityTurns(() => now);
    const order: string[] = [];
    await turns.acquire();
    const job = runInBackground(() => turns.acquire()).then(() => 'b0');
    now = BACKGROUND_PATIENCE_MS * 10;
    yieldForBurst(1000);
    const requests = Array.from({ length: 3 }, (_, i) => turns.acquire().then(() => `f${i}`));
    const waits = [job, ...requests].map((p) =>
      p.then((name) => {
        order.push(name);
        turns.release();
      }),
    );
    turns.release();
    await Promise.all(waits);
    expect(order).toEqual(['f0', 'f1', 'f2', 'b0']);
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
    // The test handle's pool has 5 connections: background work gets 2 at once (once the bursts the tests above
    // declared are over: during one it gets 1).
    while (inBurst()) await new Promise((ok) => setTimeout(ok, 10));
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
