// SQL of the sandbox spreadsheet provider: spreadsheets with their tabs (one JSON value per spreadsheet). Every
// query takes the account and filters by it, but `findSandboxSpreadsheetById`, which the admin API needs to
// address a spreadsheet by its id alone.
import type { Kysely, Selectable } from 'kysely';
import type { DB, SandboxSpreadsheetsTable, SandboxSpreadsheetTab } from './schema.js';

export type SandboxSpreadsheetRow = Selectable<SandboxSpreadsheetsTable>;

export async function insertSandboxSpreadsheet(db: Kysely<DB>, row: SandboxSpreadsheetRow): Promise<void> {
  await db
    .insertInto('sandbox_spreadsheets')
    .values({ ...row, tabs: JSON.stringify(row.tabs) })
    .execute();
}

export async function findSandboxSpreadsheetById(
  db: Kysely<DB>,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<SandboxSpreadsheetRow | undefined> {
  const query = db.selectFrom('sandbox_spreadsheets').selectAll().where('id', '=', id);
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

/** The account's spreadsheet, locked for the write that follows (two writers of one spreadsheet take turns). */
export async function findSandboxSpreadsheetForWrite(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<SandboxSpreadsheetRow | undefined> {
  return db
    .selectFrom('sandbox_spreadsheets')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateSandboxSpreadsheet(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  changes: { tabs: SandboxSpreadsheetTab[]; name?: string },
  now: string,
): Promise<SandboxSpreadsheetRow | undefined> {
  return db
    .updateTable('sandbox_spreadsheets')
    .set({ ...changes, tabs: JSON.stringify(changes.tabs), updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
