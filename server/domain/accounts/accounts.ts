// Accounts: created and changed by the vendor's console (the admin API and the console CLI), read by every
// request. A change made with an actor enters the account's audit log in the same transaction.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import {
  findAccount,
  insertAccount,
  updateAccount,
  type AccountRow,
  findAccountByAlias,
} from '../../store/accounts.js';
import { isUniqueViolation } from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { audit, type Actor } from './actor.js';

const TIME_ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The canonical spelling of an IANA time zone name (`america/sao_paulo` → `America/Sao_Paulo`), or 422. */
export function canonicalTimeZone(name: string): string {
  const refuse = () => new ApiError(422, 'invalid_time_zone', `${name} is not an IANA time zone.`);
  // Names only: Intl would also take offsets on some Node versions, which PostgreSQL reads with the sign inverted.
  if (!TIME_ZONE_NAME.test(name)) throw refuse();
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw refuse();
  }
}

export function requireName(name: string, what = 'name'): string {
  if (name.trim() === '') throw new ApiError(422, 'invalid_name', `The ${what} is blank.`);
  return name;
}

export async function createAccount(
  db: Kysely<DB>,
  clock: Clock,
  input: { name: string; alias: string; timeZone?: string },
  actor?: Actor,
): Promise<AccountRow> {
  const now = clock.now().toISOString();
  const row: AccountRow = {
    id: randomUUID(),
    name: requireName(input.name),
    alias: input.alias,
    time_zone: canonicalTimeZone(input.timeZone ?? 'UTC'),
    suspended: false,
    api_enabled: true,
    platform_signature: null,
    created_at: now,
    updated_at: now,
  };
  const aliasTaken = async () => {
    const taken = await findAccountByAlias(db, input.alias);
    return taken && new ApiError(409, 'alias_taken', 'Another account has this alias.', { account_id: taken.id });
  };
  const taken = await aliasTaken();
  if (taken) throw taken;
  try {
    return await db.transaction().execute(async (tx) => {
      // Returned as stored: timestamps then carry the database's microseconds, like every later read.
      const created = await insertAccount(tx, row);
      await audit(
        tx,
        actor,
        {
          accountId: row.id,
          action: 'account.created',
          targetType: 'account',
          targetId: row.id,
          details: { name: row.name, alias: row.alias, time_zone: row.time_zone },
        },
        now,
      );
      return created;
    });
  } catch (error) {
    // Two creations with one alias at once: the unique index decides, the loser gets the same 409.
    if (isUniqueViolation(error)) throw (await aliasTaken()) ?? error;
    throw error;
  }
}

export async function changeAccount(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  changes: { name?: string; suspended?: boolean; api_enabled?: boolean; time_zone?: string },
  actor?: Actor,
): Promise<AccountRow> {
  const clean = { ...changes };
  if (clean.name !== undefined) requireName(clean.name);
  if (clean.time_zone !== undefined) clean.time_zone = canonicalTimeZone(clean.time_zone);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const updated = await updateAccount(tx, accountId, { ...clean, updated_at: now });
    if (!updated) throw notFound('No such account.');
    await audit(
      tx,
      actor,
      { accountId, action: 'account.updated', targetType: 'account', targetId: accountId, details: clean },
      now,
    );
    return updated;
  });
}

export async function getAccount(db: Kysely<DB>, accountId: string): Promise<AccountRow> {
  const account = await findAccount(db, accountId);
  if (!account) throw notFound('No such account.');
  return account;
}

/** The account as the admin API shows it. */
export function accountView(row: AccountRow) {
  return {
    id: row.id,
    name: row.name,
    alias: row.alias,
    time_zone: row.time_zone,
    suspended: row.suspended,
    api_enabled: row.api_enabled,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
