// SQL of the idempotency keys (Part A, idempotency rules): one row per account and key, kept 24 hours. A
// request claims its key with one atomic insert, holds it with a lease (`locked_until`) while it runs, and then
// either stores its answer (`done`) or deletes the row (a failure releases the key).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, IdempotencyKeysTable } from './schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export interface StoredAnswer {
  status: number;
  /** The JSON body, or null when the answer had none. */
  body: unknown;
  headers: Record<string, string>;
}

export interface Claim {
  operationId: string;
  requestHash: string;
  /** Now, from the clock. */
  now: string;
  expiresAt: string;
  lockedUntil: string;
}

/** What the middleware needs from the key store; tests put in one that fails. */
export interface IdempotencyStore {
  /** Claims the key for a new request: true when it is now ours (new, or its earlier use expired). */
  claim(accountId: string, key: string, claim: Claim): Promise<boolean>;
  /** The row holding the key, if any. */
  find(accountId: string, key: string): Promise<IdempotencyRow | undefined>;
  /** Extends the lease of a request still running. */
  renew(accountId: string, key: string, requestHash: string, lockedUntil: string): Promise<void>;
  /** Stores the answer of the running request; false when the key is no longer its own. */
  complete(accountId: string, key: string, requestHash: string, answer: StoredAnswer): Promise<boolean>;
  /** Releases the key of a running request that failed. */
  release(accountId: string, key: string, requestHash: string): Promise<void>;
  /**
   * Stores `answer` for a request whose lease ran out before it answered (its process stopped); false when
   * the row is no longer such a request (it answered or was released meanwhile).
   */
  markStopped(accountId: string, key: string, requestHash: string, now: string, answer: StoredAnswer): Promise<boolean>;
  /** Deletes up to `batch` keys that expired before `now`; returns how many. */
  prune(now: string, batch: number): Promise<number>;
}

export class SqlIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Kysely<DB>) {}

  async claim(accountId: string, key: string, c: Claim): Promise<boolean> {
    const fresh = {
      operation_id: c.operationId,
      request_hash: c.requestHash,
      state: 'running' as const,
      response_status: null,
      response_body: null,
      response_headers: null,
      created_at: c.now,
      expires_at: c.expiresAt,
      locked_until: c.lockedUntil,
    };
    // Concurrent claims of one key: the primary key lets exactly one insert through; the others see its row
    // and, unless that row has expired, take nothing.
    const row = await this.db
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, key, ...fresh })
      .onConflict((oc) =>
        oc.columns(['account_id', 'key']).doUpdateSet(fresh).where('idempotency_keys.expires_at', '<=', c.now),
      )
      .returning('key')
      .executeTakeFirst();
    return row !== undefined;
  }

  async find(accountId: string, key: string): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  async renew(accountId: string, key: string, requestHash: string, lockedUntil: string): Promise<void> {
    await this.running(accountId, key, requestHash).set({ locked_until: lockedUntil }).execute();
  }

  async complete(accountId: string, key: string, requestHash: string, answer: StoredAnswer): Promise<boolean> {
    const result = await this.running(accountId, key, requestHash)
      .set({ state: 'done', ...columnsOf(answer) })
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async release(accountId: string, key: string, requestHash: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('request_hash', '=', requestHash)
      .where('state', '=', 'running')
      .execute();
  }

  async markStopped(
    accountId: string,
    key: string,
    requestHash: string,
    now: string,
    answer: StoredAnswer,
  ): Promise<boolean> {
    const result = await this.running(accountId, key, requestHash)
      .where('locked_until', '<=', now)
      .set({ state: 'done', ...columnsOf(answer) })
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async prune(now: string, batch: number): Promise<number> {
    // In batches, so one pass never holds many row locks.
    const result = await sql`
      delete from idempotency_keys
      where (account_id, key) in (
        select account_id, key from idempotency_keys where expires_at <= ${now} limit ${batch}
      )
    `.execute(this.db);
    return Number(result.numAffectedRows ?? 0n);
  }

  /** The row of a request still running with this key and request. */
  private running(accountId: string, key: string, requestHash: string) {
    return this.db
      .updateTable('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('request_hash', '=', requestHash)
      .where('state', '=', 'running');
  }
}

function columnsOf(answer: StoredAnswer) {
  return {
    response_status: answer.status,
    response_body: answer.body === null || answer.body === undefined ? null : JSON.stringify(answer.body),
    response_headers: JSON.stringify(answer.headers),
  };
}
