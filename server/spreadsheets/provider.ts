// The spreadsheet layer, beside the channel one (server/channels/provider.ts): one interface for the providers a
// sheets block writes through. The block resolves its values (variables, `$input`, `$timestamp`, tags) and checks
// the spreadsheet account; a provider finds the spreadsheet and tab, matches the row and writes it. The default
// provider is the sandbox (./sandbox.ts), whose spreadsheets live in the service's database.
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * A cell as the block writes it: always text, never a formula. `=SUM(A1)`, `+55…`, `-3` and `@x` reach the
 * spreadsheet as the characters written. The sandbox stores text anyway; a real provider writes raw input (Google
 * Sheets: `valueInputOption=RAW`), or, where an API has no raw mode, prefixes an apostrophe to a text starting
 * with `=`, `+`, `-` or `@`.
 */
export interface CellText {
  text: string;
}

/** Where the block writes: the account, its spreadsheet account (`sheets_external_id`), spreadsheet and tab. */
export interface SheetAddress {
  accountId: string;
  spreadsheetAccountId: string;
  spreadsheetId: string;
  tabTitle: string;
}

/** A row matches when, for every entry, the cell of the column equals `value` exactly. */
export interface SheetMatch {
  column: string;
  value: CellText;
}

/** Column title (row 1 of the tab) → the cell written; a title the tab lacks is ignored. */
export type SheetValues = ReadonlyMap<string, CellText>;

export type SheetWrite =
  | { operation: 'append'; values: SheetValues }
  | { operation: 'update' | 'upsert'; match: readonly SheetMatch[]; values: SheetValues }
  | { operation: 'delete'; match: readonly SheetMatch[] };

/** What the provider did. `row` is the row's number in the tab (1 is the header). */
export type SheetWriteResult =
  | { outcome: 'appended' | 'updated' | 'deleted'; row: number }
  /** update or delete found no row to act on: nothing written. */
  | { outcome: 'no_match' }
  | { outcome: 'spreadsheet_not_found' }
  | { outcome: 'tab_not_found' }
  /** The tab holds the most rows the provider keeps. */
  | { outcome: 'tab_full'; maxRows: number };

export interface SpreadsheetProvider {
  /**
   * Writes one row. `db` is the run stretch's transaction: the sandbox writes its spreadsheet in it, so a step
   * that committed wrote its row once, and one rolled back wrote nothing. A real provider cannot join the
   * transaction: it would need an idempotency key derived from the run and step (docs/decisions.md).
   */
  write(db: Kysely<DB>, address: SheetAddress, write: SheetWrite, now: Date): Promise<SheetWriteResult>;
}
