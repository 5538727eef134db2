// Accounts: created and changed by the vendor's console (the admin API), read by every request.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { findAccount, insertAccount, updateAccount, type AccountRow } from '../../store/accounts.js';
import type { DB } from '../../store/schema.js';

export async function createAccount(
  db: Kysely<DB>,
  clock: Clock,
  input: { name: string; alias: string; timeZone?: string },
): Promise<AccountRow> {
  const now = clock.now().toISOString();
  const row: AccountRow = {
    id: randomUUID(),
    name: input.name,
    alias: input.alias,
    time_zone: input.timeZone ?? 'UTC',
    suspended: false,
    api_enabled: true,
    created_at: now,
    updated_at: now,
  };
  const taken = await db.selectFrom('accounts').select('id').where('alias', '=', input.alias).executeTakeFirst();
  if (taken) throw new ApiError(409, 'alias_taken', 'Another account has this alias.', { account_id: taken.id });
  await insertAccount(db, row);
  return row;
}

export async function changeAccount(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  changes: { name?: string; suspended?: boolean; api_enabled?: boolean; time_zone?: string },
): Promise<AccountRow> {
  const updated = await updateAccount(db, accountId, { ...changes, updated_at: clock.now().toISOString() });
  if (!updated) throw new ApiError(404, 'not_found', 'No such account.');
  return updated;
}

export async function getAccount(db: Kysely<DB>, accountId: string): Promise<AccountRow> {
  const account = await findAccount(db, accountId);
  if (!account) throw new ApiError(404, 'not_found', 'No such account.');
  return account;
}
