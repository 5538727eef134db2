// Account variables and secrets as the console sets them (issue 22; Part B "Variables": `account.<name>`,
// `secret.<name>`). Names follow the variable-name rule (../workflows/variable-names.ts), at most 50 characters,
// case kept. A variable's value is text up to 1000 characters, empty allowed, or null: the variable is then known
// without value and reads as the text `null`. A secret's value is write-only: no answer, log line, audit entry or
// error carries it; it is bound to one host name (lower case, no scheme, port or path).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { findAccount } from '../../store/accounts.js';
import { isUniqueViolation } from '../../store/console.js';
import {
  deleteAccountSecret,
  deleteAccountVariable,
  findAccountSecretById,
  findAccountSecretByName,
  insertAccountSecret,
  selectAccountSecrets,
  selectAccountVariables,
  upsertAccountVariable,
  type AccountSecretInfo,
  type AccountVariableRow,
} from '../../store/console-variables.js';
import type { DB } from '../../store/schema.js';
import { audit, type Actor } from '../accounts/actor.js';
import { isVariableName } from '../workflows/variable-names.js';

export const NAME_MAX = 50;
export const VARIABLE_VALUE_MAX = 1000;
export const SECRET_VALUE_MAX = 4000;
/** A host name: dot-separated labels of lower-case letters, digits and inner hyphens; no scheme, port or path. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

// The API's schema refuses these first (400 with the details); the console CLI reaches the service without it.
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

function checkName(name: string): void {
  if (!isVariableName(name) || name.length > NAME_MAX)
    throw invalid(`A name has 1 to ${NAME_MAX} letters without accents, digits, _, . or -.`);
}

async function accountExists(db: Kysely<DB>, accountId: string): Promise<void> {
  if (!(await findAccount(db, accountId))) throw notFound('No such account.');
}

// ------------------------------------------------------------------------------------------------ variables

export function variableView(row: AccountVariableRow) {
  return { name: row.name, value: row.value };
}

/** Sets `account.<name>` (created or replaced). */
export async function setAccountVariable(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  name: string,
  value: string | null,
  actor?: Actor,
): Promise<AccountVariableRow> {
  checkName(name);
  if (value !== null && (typeof value !== 'string' || value.length > VARIABLE_VALUE_MAX))
    throw invalid(`A value is null or text of at most ${VARIABLE_VALUE_MAX} characters.`);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    await accountExists(tx, accountId);
    const row = await upsertAccountVariable(tx, { account_id: accountId, name, value, created_at: now });
    const entry = { action: 'account_variable.set', targetType: 'account_variable', targetId: accountId } as const;
    await audit(tx, actor, { accountId, ...entry, details: { name } }, now);
    return row;
  });
}

export async function listAccountVariables(db: Kysely<DB>, accountId: string): Promise<AccountVariableRow[]> {
  await accountExists(db, accountId);
  return selectAccountVariables(db, accountId);
}

export async function removeAccountVariable(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  name: string,
  actor?: Actor,
): Promise<void> {
  const now = clock.now().toISOString();
  await db.transaction().execute(async (tx) => {
    await accountExists(tx, accountId);
    if (!(await deleteAccountVariable(tx, accountId, name))) throw notFound('No such variable.');
    const entry = { action: 'account_variable.deleted', targetType: 'account_variable', targetId: accountId } as const;
    await audit(tx, actor, { accountId, ...entry, details: { name } }, now);
  });
}

// -------------------------------------------------------------------------------------------------- secrets

/** A secret as the admin API shows it: never its value. */
export function secretView(row: AccountSecretInfo) {
  return { id: row.id, name: row.name, domain: row.domain, created_at: row.created_at };
}

const secretExists = (row: AccountSecretInfo) =>
  new ApiError(409, 'secret_already_exists', `The account already has a secret named ${row.name}.`, {
    secret_id: row.id,
  });

export async function createAccountSecret(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { name: string; value: string; domain: string },
  actor?: Actor,
): Promise<AccountSecretInfo> {
  checkName(input.name);
  if (typeof input.value !== 'string' || input.value.length < 1 || input.value.length > SECRET_VALUE_MAX)
    throw invalid(`A secret's value has 1 to ${SECRET_VALUE_MAX} characters.`);
  if (!HOST_NAME.test(input.domain))
    throw invalid('The domain is a lower-case host name, without scheme, port or path (api.example.com).');
  const now = clock.now().toISOString();
  try {
    return await db.transaction().execute(async (tx) => {
      await accountExists(tx, accountId);
      const existing = await findAccountSecretByName(tx, accountId, input.name);
      if (existing) throw secretExists(existing);
      const row = { id: randomUUID(), account_id: accountId, created_at: now, ...input };
      const created = await insertAccountSecret(tx, row);
      const entry = { action: 'secret.created', targetType: 'secret', targetId: row.id } as const;
      await audit(tx, actor, { accountId, ...entry, details: { name: row.name, domain: row.domain } }, now);
      return created;
    });
  } catch (error) {
    // Two creations with one name at once: the unique index refused the second.
    if (!isUniqueViolation(error)) throw error;
    const existing = await findAccountSecretByName(db, accountId, input.name);
    throw existing ? secretExists(existing) : error;
  }
}

export async function listAccountSecrets(db: Kysely<DB>, accountId: string): Promise<AccountSecretInfo[]> {
  await accountExists(db, accountId);
  return selectAccountSecrets(db, accountId);
}

export async function removeAccountSecret(db: Kysely<DB>, clock: Clock, secretId: string, actor?: Actor) {
  const now = clock.now().toISOString();
  await db.transaction().execute(async (tx) => {
    const secret = await findAccountSecretById(tx, secretId);
    if (!secret || !(await deleteAccountSecret(tx, secret.account_id, secretId))) throw notFound('No such secret.');
    const entry = { action: 'secret.deleted', targetType: 'secret', targetId: secretId } as const;
    await audit(tx, actor, { accountId: secret.account_id, ...entry, details: { name: secret.name } }, now);
  });
}
