// The sandbox spreadsheet provider's spreadsheets as the admin API creates, reads and resets them (issue 22): each
// belongs to a spreadsheet account of an account and has tabs whose row 1 holds the column titles. Every cell is
// text: what a sheets block writes shows as written. Addressed by id alone, as the admin API does.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import { findSpreadsheetAccountById } from '../../store/console-variables.js';
import {
  findSandboxSpreadsheetById,
  insertSandboxSpreadsheet,
  updateSandboxSpreadsheet,
  type SandboxSpreadsheetRow,
} from '../../store/sandbox-spreadsheets.js';
import type { DB, SandboxSpreadsheetTab } from '../../store/schema.js';
import { invalidSandboxAction } from '../messaging/inbound.js';

export interface SandboxSpreadsheetInput {
  name: string;
  tabs: SandboxSpreadsheetTab[];
}

const spreadsheetNotFound = () => notFound('No such sandbox spreadsheet.');

export function sandboxSpreadsheetView(row: SandboxSpreadsheetRow) {
  return {
    id: row.id,
    spreadsheet_account_id: row.spreadsheet_account_id,
    name: row.name,
    tabs: row.tabs.map((tab) => ({ title: tab.title, rows: tab.rows })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The tabs as stored; two tabs of one title are refused (a block names its tab by title). */
function tabsOf(input: SandboxSpreadsheetInput): SandboxSpreadsheetTab[] {
  const titles = new Set<string>();
  for (const tab of input.tabs) {
    if (titles.has(tab.title))
      throw invalidSandboxAction('duplicate_tab_title', `Two tabs are titled "${tab.title}"; a title names one tab.`);
    titles.add(tab.title);
  }
  return input.tabs.map((tab) => ({ title: tab.title, rows: tab.rows.map((row) => [...row]) }));
}

export async function createSandboxSpreadsheet(
  db: Kysely<DB>,
  clock: Clock,
  spreadsheetAccountId: string,
  input: SandboxSpreadsheetInput,
): Promise<SandboxSpreadsheetRow> {
  const tabs = tabsOf(input);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const owner = await findSpreadsheetAccountById(tx, spreadsheetAccountId);
    if (!owner) throw notFound('No such spreadsheet account.');
    const row: SandboxSpreadsheetRow = {
      id: randomUUID(),
      account_id: owner.account_id,
      spreadsheet_account_id: owner.id,
      name: input.name,
      tabs,
      created_at: now,
      updated_at: now,
    };
    await insertSandboxSpreadsheet(tx, row);
    return (await findSandboxSpreadsheetById(tx, row.id)) ?? row;
  });
}

export async function getSandboxSpreadsheet(db: Kysely<DB>, id: string): Promise<SandboxSpreadsheetRow> {
  const row = await findSandboxSpreadsheetById(db, id);
  if (!row) throw spreadsheetNotFound();
  return row;
}

/** Resets the spreadsheet: its name and tabs replaced (the rows written so far gone); it keeps its id and owner. */
export async function resetSandboxSpreadsheet(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  input: SandboxSpreadsheetInput,
): Promise<SandboxSpreadsheetRow> {
  const tabs = tabsOf(input);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    // Locked: a sheets block writing it meanwhile writes before or after the reset, never into a lost copy.
    const current = await findSandboxSpreadsheetById(tx, id, { forUpdate: true });
    if (!current) throw spreadsheetNotFound();
    const changes = { name: input.name, tabs };
    const updated = await updateSandboxSpreadsheet(tx, current.account_id, id, changes, now);
    if (!updated) throw spreadsheetNotFound();
    return updated;
  });
}
