// SQL of media (what a media is; its bytes live in the media storage). Every query takes the account first.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, MediaTable } from './schema.js';

export type MediaRow = Selectable<MediaTable>;
export type NewMediaRow = Insertable<MediaTable>;

export async function insertMedia(db: Kysely<DB>, row: NewMediaRow): Promise<MediaRow> {
  return db.insertInto('media').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Inserts the row unless a media with its id exists (two runs sending one console upload at once). */
export async function insertMediaIfAbsent(db: Kysely<DB>, row: NewMediaRow): Promise<void> {
  await db
    .insertInto('media')
    .values(row)
    .onConflict((c) => c.column('id').doNothing())
    .execute();
}

export async function findMedia(db: Kysely<DB>, accountId: string, mediaId: string): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', mediaId)
    .executeTakeFirst();
}

/** Records a (repeat) upload of an uploaded media: when the bytes arrived and how many. */
export async function markMediaUploaded(
  db: Kysely<DB>,
  accountId: string,
  mediaId: string,
  upload: { uploaded_at: string; size: number; detected_format: string },
): Promise<void> {
  await db
    .updateTable('media')
    .set({ uploaded_at: upload.uploaded_at, size: upload.size, detected_format: upload.detected_format })
    .where('account_id', '=', accountId)
    .where('id', '=', mediaId)
    .where('origin', '=', 'upload')
    .execute();
}
