// SQL of what the console keeps for automations: account variables, account secrets and spreadsheet accounts.
// Every query of account data takes the account and filters by it, but the `…ById` lookups the admin API needs
// to address a secret or a spreadsheet account by its id alone.
import type { Kysely, Selectable } from 'kysely';
import type { AccountSecretsTable, AccountVariablesTable, DB, SpreadsheetAccountsTable } from './schema.js';

export type AccountVariableRow = Selectable<AccountVariablesTable>;
export type AccountSecretRow = Selectable<AccountSecretsTable>;
/** A secret without its value: what every read but the engine's gets. */
export type AccountSecretInfo = Omit<AccountSecretRow, 'value'>;
export type SpreadsheetAccountRow = Selectable<SpreadsheetAccountsTable>;

// ------------------------------------------------------------------------------------------------ variables

/** Sets the variable (inserted or replaced) and returns it. */
export async function upsertAccountVariable(
  db: Kysely<DB>,
  row: Omit<AccountVariableRow, 'updated_at'>,
): Promise<AccountVariableRow> {
  return db
    .insertInto('account_variables')
    .values({ ...row, updated_at: row.created_at })
    .onConflict((oc) =>
      oc.columns(['account_id', 'name']).doUpdateSet((eb) => ({
        value: eb.ref('excluded.value'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function selectAccountVariables(db: Kysely<DB>, accountId: string): Promise<AccountVariableRow[]> {
  return db.selectFrom('account_variables').selectAll().where('account_id', '=', accountId).orderBy('name').execute();
}

export async function deleteAccountVariable(db: Kysely<DB>, accountId: string, name: string): Promise<boolean> {
  const result = await db
    .deleteFrom('account_variables')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

// -------------------------------------------------------------------------------------------------- secrets

const SECRET_INFO = ['id', 'account_id', 'name', 'domain', 'created_at'] as const;

export async function insertAccountSecret(db: Kysely<DB>, row: AccountSecretRow): Promise<AccountSecretInfo> {
  return db.insertInto('account_secrets').values(row).returning(SECRET_INFO).executeTakeFirstOrThrow();
}

export async function findAccountSecretByName(
  db: Kysely<DB>,
  accountId: string,
  name: string,
): Promise<AccountSecretInfo | undefined> {
  return db
    .selectFrom('account_secrets')
    .select(SECRET_INFO)
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function findAccountSecretById(db: Kysely<DB>, secretId: string): Promise<AccountSecretInfo | undefined> {
  return db.selectFrom('account_secrets').select(SECRET_INFO).where('id', '=', secretId).executeTakeFirst();
}

export async function selectAccountSecrets(db: Kysely<DB>, accountId: string): Promise<AccountSecretInfo[]> {
  return db
    .selectFrom('account_secrets')
    .select(SECRET_INFO)
    .where('account_id', '=', accountId)
    .orderBy('name')
    .execute();
}

export async function deleteAccountSecret(db: Kysely<DB>, accountId: string, secretId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('account_secrets')
    .where('account_id', '=', accountId)
    .where('id', '=', secretId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

// ------------------------------------------------------------------------------------- spreadsheet accounts

export async function insertSpreadsheetAccount(db: Kysely<DB>, row: SpreadsheetAccountRow): Promise<void> {
  await db.insertInto('spreadsheet_accounts').values(row).execute();
}

export async function findSpreadsheetAccountById(
  db: Kysely<DB>,
  id: string,
): Promise<SpreadsheetAccountRow | undefined> {
  return db.selectFrom('spreadsheet_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateSpreadsheetAccountStatus(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  status: SpreadsheetAccountRow['status'],
  now: string,
): Promise<SpreadsheetAccountRow | undefined> {
  return db
    .updateTable('spreadsheet_accounts')
    .set({ status, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
