// The sandbox spreadsheet provider: spreadsheets kept in the service's database (created, read and reset through
// `/admin/v1/sandbox/spreadsheets`), written in the caller's transaction. The spreadsheet's row is locked for the
// write, so two runs writing one tab at once take turns and neither write is lost.
import type { Kysely } from 'kysely';
import { isUuid } from '../ids.js';
import { findSandboxSpreadsheetForWrite, updateSandboxSpreadsheet } from '../store/sandbox-spreadsheets.js';
import type { DB } from '../store/schema.js';
import type { SheetAddress, SheetWrite, SheetWriteResult, SpreadsheetProvider } from './provider.js';
import { applyWrite } from './rows.js';

export class SandboxSpreadsheets implements SpreadsheetProvider {
  async write(db: Kysely<DB>, address: SheetAddress, write: SheetWrite, now: Date): Promise<SheetWriteResult> {
    // An id that is not a UUID names no spreadsheet (and must not reach the uuid column).
    if (!isUuid(address.spreadsheetId)) return { outcome: 'spreadsheet_not_found' };
    const sheet = await findSandboxSpreadsheetForWrite(db, address.accountId, address.spreadsheetId);
    if (!sheet || sheet.spreadsheet_account_id !== address.spreadsheetAccountId)
      return { outcome: 'spreadsheet_not_found' };
    const index = sheet.tabs.findIndex((tab) => tab.title === address.tabTitle);
    const tab = sheet.tabs[index];
    if (!tab) return { outcome: 'tab_not_found' };
    const applied = applyWrite(tab.rows, write);
    if (
      applied.result.outcome === 'appended' ||
      applied.result.outcome === 'updated' ||
      applied.result.outcome === 'deleted'
    ) {
      const tabs = sheet.tabs.map((t, i) => (i === index ? { title: t.title, rows: applied.rows } : t));
      await updateSandboxSpreadsheet(db, address.accountId, sheet.id, { tabs }, now.toISOString());
    }
    return applied.result;
  }
}
