// sheets (Part B): appends, updates, upserts or deletes one row of a spreadsheet tab through the spreadsheet
// provider (server/spreadsheets/). Values and match values take variables, `$input`, `$timestamp` (as the entire
// value) and `{contact.tag.<slug>}`, known only here; every cell goes as text, never a formula. The block has one
// output: a failure (a value that is not text, an unknown or disconnected spreadsheet account, spreadsheet or tab)
// fails its step and stops the run, as any block without a failure output (docs/decisions.md, "sheets (issue 22)").
import type { Transaction } from 'kysely';
import { spreadsheetAccountOf } from '../../../domain/console/spreadsheet-accounts.js';
import { tagSlugsOfAccount } from '../../../domain/tags/slugs.js';
import { dataValue, type VariableLookup } from '../../evaluate/variables.js';
import type { BlockContext, BlockExecutor, BlockResult, StepError } from '../../context.js';
import type { DB } from '../../../store/schema.js';
import type { CellText, SheetMatch, SheetWrite, SheetWriteResult } from '../../../spreadsheets/provider.js';
import type { ExecutorEntry } from '../entry.js';

const fail = (code: string, message: string): { failed: StepError; end: 'stopped' } => ({
  failed: { code, message },
  end: 'stopped',
});

const TAG_VARIABLE = 'contact.tag.';

/**
 * The lookup of the block's values: the run's, plus `contact.tag.<slug>` (`true` or `false` by whether the
 * contact holds the tag, the run's own changes included). A slug no tag of the account has reads `false`.
 */
async function sheetsLookup(ctx: BlockContext<'sheets'>, texts: readonly string[]): Promise<VariableLookup> {
  if (!texts.some((text) => text.includes(TAG_VARIABLE))) return ctx.vars.lookup;
  const slugs = await tagSlugsOfAccount(ctx.tx, ctx.account.id);
  const held = new Set(await ctx.vars.tagNames());
  return (name) => {
    if (!name.startsWith(TAG_VARIABLE)) return ctx.vars.lookup(name);
    const tag = slugs.get(name.slice(TAG_VARIABLE.length));
    return tag !== undefined && held.has(tag) ? 'true' : 'false';
  };
}

/** The values as text, or the column of the first value that is not a string (the catalog accepts any JSON). */
function textValues(values: Record<string, unknown>): { texts: Array<[string, string]> } | { notText: string } {
  const texts: Array<[string, string]> = [];
  for (const [column, value] of Object.entries(values)) {
    if (typeof value !== 'string') return { notText: column };
    texts.push([column, value]);
  }
  return { texts };
}

/** The write the block asks for, its values rendered; or the step's failure. */
async function sheetWrite(ctx: BlockContext<'sheets'>): Promise<SheetWrite | { failed: StepError; end: 'stopped' }> {
  const values = textValues(ctx.data.values ?? {});
  if ('notText' in values)
    return fail('invalid_value', `The value of column "${values.notText}" is not text: sheets values are strings.`);
  const match = ctx.data.match ?? [];
  const lookup = await sheetsLookup(ctx, [...values.texts.map(([, v]) => v), ...match.map((m) => m.value)]);
  const input = typeof ctx.run.variables.$input === 'string' ? ctx.run.variables.$input : null;
  // As a data block's value (`$input`, `$timestamp`, `$name`, `{name}`), an empty result an empty cell.
  const cell = (value: string): CellText => ({
    text: dataValue(value, { input, nowMs: ctx.now.getTime() }, lookup) ?? '',
  });
  const rendered = new Map(values.texts.map(([column, value]) => [column, cell(value)]));
  const matched: SheetMatch[] = match.map((m) => ({ column: m.column, value: cell(m.value) }));
  const operation = ctx.data.operation;
  if (operation === 'append') return { operation, values: rendered };
  if (operation === 'delete') return { operation, match: matched };
  return { operation, match: matched, values: rendered };
}

/** The step of what the provider answered. */
function resultOf(ctx: BlockContext<'sheets'>, result: SheetWriteResult): BlockResult {
  const { spreadsheet_id: spreadsheet, tab_title: tab } = ctx.data;
  switch (result.outcome) {
    case 'spreadsheet_not_found':
      return fail('spreadsheet_not_found', `The spreadsheet account has no spreadsheet ${spreadsheet}.`);
    case 'tab_not_found':
      return fail('tab_not_found', `The spreadsheet ${spreadsheet} has no tab "${tab}".`);
    case 'tab_full':
      return fail('tab_full', `The tab "${tab}" holds ${result.maxRows} rows, the most the spreadsheet keeps.`);
    default:
      // Appended, updated, deleted, or nothing to update or delete (no row matched): the run goes on.
      return { next: 0 };
  }
}

export const execute: BlockExecutor<'sheets'> = async (ctx) => {
  const id = ctx.data.sheets_external_id;
  const spreadsheetAccount = await spreadsheetAccountOf(ctx.tx, ctx.account.id, id);
  if (!spreadsheetAccount)
    return fail('spreadsheet_account_not_found', `The account has no spreadsheet account ${id}.`);
  if (spreadsheetAccount.status !== 'connected')
    return fail('integration_disconnected', `The spreadsheet account ${id} is disconnected.`);
  const write = await sheetWrite(ctx);
  if ('failed' in write) return write;
  const address = {
    accountId: ctx.account.id,
    spreadsheetAccountId: spreadsheetAccount.id,
    spreadsheetId: ctx.data.spreadsheet_id,
    tabTitle: ctx.data.tab_title,
  };
  // In the stretch's transaction: a step that committed wrote its row once (server/spreadsheets/provider.ts).
  return resultOf(ctx, await ctx.deps.spreadsheets.write(ctx.tx, address, write, ctx.now));
};

/** `POST …/runs`: the spreadsheet account the block names (`sheets_external_id`) is the account's and connected. */
async function integrationConnected(tx: Transaction<DB>, accountId: string, id: string): Promise<boolean> {
  const spreadsheetAccount = await spreadsheetAccountOf(tx, accountId, id);
  return spreadsheetAccount?.status === 'connected';
}

export const executor: ExecutorEntry<'sheets'> = { execute, integrationConnected };
