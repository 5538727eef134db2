// Console uploads: files automation blocks name by `upload_id` (media and cards blocks). The channel's media
// types and sizes are checked when a run sends the file, not here.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { findAccount } from '../../store/accounts.js';
import { insertUpload, type UploadRow } from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { requireName } from '../accounts/accounts.js';
import { audit, type Actor } from '../accounts/actor.js';

/** The largest file a channel accepts (a whatsapp document). */
export const MAX_UPLOAD_SIZE = 100 * 1024 * 1024;
const MIME_TYPE = /^[a-z]+\/[A-Za-z0-9][A-Za-z0-9.+-]*$/;

export async function createUpload(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { name: string; content_type: string; size: number },
  actor?: Actor,
): Promise<UploadRow> {
  requireName(input.name);
  // The API's schema already refuses these (400); the CLI reaches the service without it.
  if (!MIME_TYPE.test(input.content_type) || input.content_type.length > 127)
    throw new ApiError(422, 'invalid_upload', `${input.content_type} is not a MIME type.`);
  if (!Number.isSafeInteger(input.size) || input.size < 1 || input.size > MAX_UPLOAD_SIZE)
    throw new ApiError(422, 'invalid_upload', `size is 1 to ${MAX_UPLOAD_SIZE} bytes.`);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    if (!(await findAccount(tx, accountId))) throw notFound('No such account.');
    const id = randomUUID();
    const created = await insertUpload(tx, {
      id,
      account_id: accountId,
      name: input.name,
      content_type: input.content_type,
      size: input.size,
      created_at: now,
    });
    await audit(
      tx,
      actor,
      {
        accountId,
        action: 'upload.created',
        targetType: 'upload',
        targetId: id,
        details: { name: input.name, content_type: input.content_type, size: input.size },
      },
      now,
    );
    return created;
  });
}

export function uploadView(row: UploadRow) {
  return { id: row.id, name: row.name, content_type: row.content_type, size: row.size, created_at: row.created_at };
}
