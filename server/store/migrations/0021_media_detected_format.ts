// A media's bytes are checked against its declared type (issue 33): the format its first bytes show (file-type's
// extension: `png`, `mp4`, `pdf`…) is recorded with the upload, '' when no known format; null for media uploaded
// before this check, and for media whose bytes the service did not take from a tenant (received, console, link).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table media add column detected_format text`.execute(db);
}
