// Migrations that change data, run from the migration before them on a database holding rows of the old shape,
// on every engine of the run (PGlite always, PostgreSQL when DATABASE_URL is set).
import { randomBytes, randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { createTag } from '../../server/domain/tags/tags.js';
import { migrations } from '../../server/store/migrations/index.js';
import { PGliteDialect } from '../../server/store/pglite-dialect.js';
import type { DB } from '../../server/store/schema.js';
import { engines } from './harness.js';
import type { Engine } from '../../server/store/database.js';

/** A new, empty database (no migration run) and how to drop it. */
async function emptyDatabase(engine: Engine): Promise<{ db: Kysely<DB>; drop(): Promise<void> }> {
  if (engine === 'pglite') {
    const pglite = new PGlite();
    const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
    return {
      db,
      drop: async () => {
        await db.destroy();
        await pglite.close();
      },
    };
  }
  const base = process.env.DATABASE_URL!;
  const name = `ep_test_migration_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString() });
  // The forced drop below terminates the pool's connections as they close: not an error of the test.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    drop: async () => {
      await db.destroy();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const migrator = (db: Kysely<DB>) => new Migrator({ db, provider: { getMigrations: async () => migrations } });

describe.each(engines)('migration 0009 on %s', (engine) => {
  it('keys the existing tags by folded name and Brazilian mobiles by their 9-digit form', async () => {
    const { db, drop } = await emptyDatabase(engine);
    try {
      expect((await migrator(db).migrateTo('0008_job_waits')).error).toBeUndefined();
      const now = '2025-01-01T00:00:00.000Z';
      const at = (seconds: number) => new Date(Date.parse(now) + seconds * 1000).toISOString();
      const account = randomUUID();
      await sql`
        insert into accounts (id, name, alias, created_at, updated_at) values (${account}, 'A', ${account}, ${now}, ${now})
      `.execute(db);
      const connection = randomUUID();
      await sql`
        insert into connections (id, account_id, channel, name, phone, status, created_at, updated_at)
        values (${connection}, ${account}, 'whatsapp', 'WA', '+551130000000', 'connected', ${now}, ${now})
      `.execute(db);

      // Tags: names lower() told apart but letter case does not (ß is SS), and a deleted tag's name reused.
      const tag = async (name: string, seconds: number, deleted = false) => {
        const id = randomUUID();
        await sql`
          insert into tags (id, account_id, name, created_at, updated_at, deleted_at)
          values (${id}, ${account}, ${name}, ${at(seconds)}, ${at(seconds)}, ${deleted ? at(seconds) : null})
        `.execute(db);
        return id;
      };
      const straße = await tag('Straße', 1);
      const strasse = await tag('STRASSE', 2);
      const oldLead = await tag('Lead', 3, true);
      const lead = await tag('LEAD', 4);

      // Contacts keyed as before the fix: an 8-digit mobile libphonenumber lists as valid was its own key.
      const contact = async (phone: string) => {
        const id = randomUUID();
        await sql`
          insert into contacts (id, account_id, person_id, channel, connection_id, name, phone, phone_key,
            last_interaction_at, created_at, updated_at)
          values (${id}, ${account}, ${randomUUID()}, 'whatsapp', ${connection}, 'C', ${phone}, ${phone}, ${now},
            ${now}, ${now})
        `.execute(db);
        return id;
      };
      const old = await contact('+557179680885');
      // The bug made two contacts of one phone: the one with the 9-digit key keeps answering for it.
      const twinEight = await contact('+554178550025');
      const twinNine = await contact('+5541978550025');
      const landline = await contact('+551132654321');

      expect((await migrator(db).migrateToLatest()).error).toBeUndefined();

      const tags = await db.selectFrom('tags').select(['id', 'name_key']).execute();
      expect(Object.fromEntries(tags.map((t) => [t.id, t.name_key]))).toEqual({
        [straße]: 'strasse',
        [strasse]: `DUPLICATE NAME ${strasse}`,
        [oldLead]: 'lead',
        [lead]: 'lead',
      });
      const contacts = await db.selectFrom('contacts').select(['id', 'phone', 'phone_key']).execute();
      expect(Object.fromEntries(contacts.map((c) => [c.id, [c.phone, c.phone_key]]))).toEqual({
        [old]: ['+557179680885', '+5571979680885'],
        [twinEight]: ['+554178550025', '+554178550025'],
        [twinNine]: ['+5541978550025', '+5541978550025'],
        [landline]: ['+551132654321', '+551132654321'],
      });

      // The oldest of the names holds it.
      await expect(createTag(db, new ManualClock(new Date()), account, 'strasse')).rejects.toMatchObject({
        status: 409,
        code: 'tag_already_exists',
        extras: { tag_id: straße },
      });
    } finally {
      await drop();
    }
  }, 30_000);
});
