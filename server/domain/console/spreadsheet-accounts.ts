// Spreadsheet accounts as the console connects them (issue 22): what a sheets block's `sheets_external_id`
// names. Created connected; the console marks one disconnected or connected again. The sandbox spreadsheets
// that live under one are the sandbox's.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { isUuid } from '../../ids.js';
import { findAccount } from '../../store/accounts.js';
import {
  findSpreadsheetAccountById,
  insertSpreadsheetAccount,
  updateSpreadsheetAccountStatus,
  type SpreadsheetAccountRow,
} from '../../store/console-variables.js';
import type { DB } from '../../store/schema.js';
import { audit, type Actor } from '../accounts/actor.js';

export const SPREADSHEET_ACCOUNT_STATUSES = ['connected', 'disconnected'] as const;
export type SpreadsheetAccountStatus = (typeof SPREADSHEET_ACCOUNT_STATUSES)[number];
const NAME_MAX = 100;

export function spreadsheetAccountView(row: SpreadsheetAccountRow) {
  return { id: row.id, name: row.name, status: row.status, created_at: row.created_at, updated_at: row.updated_at };
}

export async function createSpreadsheetAccount(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { name: string },
  actor?: Actor,
): Promise<SpreadsheetAccountRow> {
  // The API's schema refuses this first (400); the console CLI reaches the service without it.
  if (input.name.trim() === '' || input.name.length > NAME_MAX)
    throw new ApiError(400, 'invalid_request', `The name has 1 to ${NAME_MAX} characters.`);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    if (!(await findAccount(tx, accountId))) throw notFound('No such account.');
    const row: SpreadsheetAccountRow = {
      id: randomUUID(),
      account_id: accountId,
      name: input.name,
      status: 'connected',
      created_at: now,
      updated_at: now,
    };
    await insertSpreadsheetAccount(tx, row);
    const entry = { action: 'spreadsheet_account.created', targetType: 'spreadsheet_account' } as const;
    await audit(tx, actor, { accountId, ...entry, targetId: row.id, details: { name: row.name } }, now);
    return row;
  });
}

export async function changeSpreadsheetAccountStatus(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  status: SpreadsheetAccountStatus,
  actor?: Actor,
): Promise<SpreadsheetAccountRow> {
  if (!SPREADSHEET_ACCOUNT_STATUSES.includes(status))
    throw new ApiError(400, 'invalid_request', `Unknown status ${String(status)}.`);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const current = await findSpreadsheetAccountById(tx, id);
    const updated = current && (await updateSpreadsheetAccountStatus(tx, current.account_id, id, status, now));
    if (!updated) throw notFound('No such spreadsheet account.');
    const entry = { action: 'spreadsheet_account.updated', targetType: 'spreadsheet_account' } as const;
    await audit(tx, actor, { accountId: updated.account_id, ...entry, targetId: id, details: { status } }, now);
    return updated;
  });
}

/**
 * The account's spreadsheet account `id` (what a sheets block's `sheets_external_id` names), or undefined when
 * there is none: unknown, another account's, or not an id at all. Its `status` says whether it is connected.
 */
export async function spreadsheetAccountOf(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<SpreadsheetAccountRow | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await findSpreadsheetAccountById(db, id.toLowerCase());
  return row && row.account_id === accountId ? row : undefined;
}
