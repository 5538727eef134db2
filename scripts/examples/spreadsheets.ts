// Examples of the sandbox spreadsheets (issue 22): a spreadsheet of the admin examples' spreadsheet account, read
// after a sheets block wrote a row, reset. Drawn after that account (admin.ts), so the others keep their values.
import type { AreaBuilder, ExampleSet } from './world.js';
import { at } from './world.js';

export function sandboxSpreadsheetExamples(
  f: Parameters<AreaBuilder>[1],
  spreadsheetAccountId: string,
  err: (code: string, message: string, extra?: Record<string, unknown>) => unknown,
): ExampleSet {
  const header = ['Nome', 'Telefone', 'Interesse', 'VIP'];
  const first = ['Bia Lima', '5511998765432', 'Tênis', 'false'];
  const tabs = [{ title: 'Leads', rows: [header, first] }];
  const sheet = {
    id: f.string.uuid(),
    spreadsheet_account_id: spreadsheetAccountId,
    name: 'Leads da loja',
    tabs,
    created_at: at(-60, 77),
    updated_at: at(-60, 77),
  };
  return {
    SandboxCreateSpreadsheet: {
      summary: 'A spreadsheet with one tab',
      description: 'A tab of leads: its header (row 1) and one row.',
      value: { spreadsheet_account_id: spreadsheetAccountId, name: sheet.name, tabs },
    },
    SandboxSpreadsheetCreated: { summary: 'Created', value: sheet },
    SandboxSpreadsheetWritten: {
      summary: 'After a sheets block appended a row',
      description: "An automation's sheets block appended Ana's row; a formula-like value shows as written.",
      value: {
        ...sheet,
        tabs: [{ title: 'Leads', rows: [header, first, ['Ana Souza', '5511912345678', '=1+1', 'true']] }],
        updated_at: at(-30, 311),
      },
    },
    SandboxResetSpreadsheet: {
      summary: 'Reset to the header alone',
      value: { name: sheet.name, tabs: [{ title: 'Leads', rows: [header] }] },
    },
    SandboxSpreadsheetReset: {
      summary: 'Reset',
      value: { ...sheet, tabs: [{ title: 'Leads', rows: [header] }], updated_at: at(-10, 452) },
    },
    SandboxDuplicateTabTitle: {
      summary: 'Two tabs of one title',
      value: err('invalid_sandbox_action', 'Two tabs are titled "Leads"; a title names one tab.', {
        reason: 'duplicate_tab_title',
      }),
    },
    SandboxSpreadsheetNotFound: {
      summary: 'No such spreadsheet',
      value: err('not_found', 'No such sandbox spreadsheet.'),
    },
    SandboxSpreadsheetAccountNotFound: {
      summary: 'No such spreadsheet account',
      value: err('not_found', 'No such spreadsheet account.'),
    },
  };
}
