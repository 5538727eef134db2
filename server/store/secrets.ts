// The service's own secrets (the cursor signing key…), kept in the database so every process on it shares
// them. A secret is generated at its first use; concurrent first uses converge on one value (the first insert
// wins, every other process reads it).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from './schema.js';

/** The secret called `name` (32 random bytes, base64url), created now when it does not exist yet. */
export async function serviceSecret(db: Kysely<DB>, name: string, clock: Clock): Promise<string> {
  const existing = await readSecret(db, name);
  if (existing !== undefined) return existing;
  await db
    .insertInto('service_secrets')
    .values({ name, value: randomBytes(32).toString('base64url'), created_at: clock.now().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const value = await readSecret(db, name);
  if (value === undefined) throw new Error(`service secret ${name} could not be created`);
  return value;
}

async function readSecret(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}
