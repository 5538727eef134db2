// No loop without a bound (issue 20): the loops that read again or retry give up after their maximum, with an
// error, instead of running for ever.
// - lockPerson (taking a tag or a value off a person) reads the person again when it changed under the lock:
//   at most 5 times. A person that never holds the contact is an error, not a spin (it used to spin at 100 % CPU).
// - the jobs that retry database faults stop after DATABASE_FAULT_MAX_ATTEMPTS.
import type { Kysely } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../server/clock.js';
import { loadConfig } from '../server/config.js';
import { removeTag } from '../server/domain/contacts/holdings.js';
import { ADVANCE_RUN_JOB, DELIVER_JOB, INBOUND_MESSAGE_JOB, STOP_RUNS_JOB } from '../server/job-kinds.js';
import { createJobRegistry } from '../server/jobs/handlers.js';
import { createServices } from '../server/services.js';
import { DATABASE_FAULT_MAX_ATTEMPTS } from '../server/retries.js';
import type { ClaimedJob } from '../server/store/jobs.js';
import type { DB } from '../server/store/schema.js';
import type * as ContactsStore from '../server/store/contacts.js';

/** How often the store was asked to lock the person. */
const calls = vi.hoisted(() => ({ lockPerson: 0 }));

// A person that changes under every lock: the contact is found, its person locked, and the person never holds it.
vi.mock('../server/store/contacts.js', async (original) => {
  const store = await original<typeof ContactsStore>();
  return {
    ...store,
    findContact: () => Promise.resolve({ id: 'c-1', person_id: 'p-1' }),
    lockPersonContacts: () => {
      calls.lockPerson += 1;
      return Promise.resolve([{ id: 'c-2', person_id: 'p-1' }]);
    },
  };
});

describe('bounded loops', () => {
  it('lockPerson gives up with an error after 5 reads of a person that keeps changing', async () => {
    // Already a transaction: inTransaction runs the work on it, and the mocked store is all it touches.
    const tx = { isTransaction: true } as unknown as Kysely<DB>;
    await expect(
      removeTag(tx, new ManualClock(new Date()), 'a-1', 'c-1', 't-1', { type: 'console', id: null, name: null }),
    ).rejects.toThrow(/kept changing: gave up after 5 attempts/);
    expect(calls.lockPerson).toBe(5);
  });

  it.each([DELIVER_JOB, INBOUND_MESSAGE_JOB, ADVANCE_RUN_JOB, STOP_RUNS_JOB])(
    'a %s job that keeps hitting a database fault retries, then gives up at its maximum',
    (kind) => {
      const config = loadConfig({});
      const registry = createJobRegistry({ config, ...createServices(config), baseUrl: 'http://127.0.0.1' });
      const policy = registry.get(kind)?.retryAt;
      expect(policy).toBeDefined();
      const now = new Date('2026-11-27T10:00:00Z');
      const job = (attempts: number): ClaimedJob => ({
        id: 'j-1',
        kind,
        accountId: null,
        payload: {},
        runAt: now.toISOString(),
        attempts,
        lastError: null,
        createdAt: now.toISOString(),
        lockedBy: 'w',
        lockedUntil: now.toISOString(),
      });
      const error = new Error('connection refused');
      // The wait is drawn in [0, cap] (server/retries.ts): a source giving 1 draws the cap, 0 retries at once.
      const top = () => 1;
      expect(policy!(job(1), error, now, top)).toEqual(new Date(now.getTime() + 2000));
      expect(policy!(job(1), error, now, () => 0)).toEqual(now);
      expect(policy!(job(DATABASE_FAULT_MAX_ATTEMPTS - 1), error, now, top)).toEqual(
        new Date(now.getTime() + 15 * 60_000),
      );
      expect(policy!(job(DATABASE_FAULT_MAX_ATTEMPTS), error, now, top)).toBeNull();
    },
  );
});
