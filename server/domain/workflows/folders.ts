// STUB until folders land (branch h-folders replaces this file).
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';
export async function requireWorkflowFolder(
  _db: Kysely<DB>,
  _accountId: string,
  _folderId: string,
  _field: string,
): Promise<void> {}
