// Tags of an account (Part A, Tags). A deleted tag keeps its row with `deleted_at` set: it answers 404 and its
// name is free again, because uniqueness (ignoring letter case) holds among active tags only.
//
// The contacts work adds `contact_tags`, referencing a tag by `(account_id, tag_id)` → `tags (account_id, id)`
// so a contact can never hold another account's tag; deleting a tag removes its contact_tags rows there.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table tags (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      deleted_at timestamptz(6),
      unique (account_id, id)
    )
  `,
  // The rule "unique among active tags ignoring letter case", held by the database: two concurrent creations
  // of one name cannot both succeed.
  sql`
    create unique index tags_active_name on tags (account_id, lower(name)) where deleted_at is null
  `,
  // GET /v1/tags: active tags oldest first (created_at, then id), keyset-paged.
  sql`
    create index tags_active_order on tags (account_id, created_at, id) where deleted_at is null
  `,
];
