// Keys the service compares, computed by the service instead of the database (issue 12).
//
// - Tags: `name_key` is the name with letter case folded in TypeScript (domain/tags `tagNameKey`), and the unique
//   index "one active tag per name ignoring letter case" is on it. The index it replaces used the database's
//   lower(), which folds by the database's locale: under `C`, ASCII only. Existing rows get the fold below (a
//   copy frozen with this migration). Should two active tags of an account share a key under it (possible only
//   where lower() told them apart), the oldest keeps the key and the others get one no name folds to (it has
//   upper-case letters): nothing is lost, and their next rename gives them a real key.
// - Contacts: a Brazilian mobile's 8-digit form now always has the key of its 9-digit form when that form is a
//   mobile (domain/contacts/phone); before, an 8-digit form libphonenumber still lists as valid was its own key.
//   Such contacts get the 9-digit key, unless another contact of the account already has it (two contacts were
//   made of one phone): that one keeps answering for the phone, and this one stays as it is.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { sql, type Kysely } from 'kysely';

/** domain/tags `tagNameKey` as of this migration. */
const fold = (name: string): string => name.toUpperCase().toLowerCase();

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  await sql`alter table tags add column name_key text`.execute(db);
  await keyTags(db);
  await sql`alter table tags alter column name_key set not null`.execute(db);
  await sql`
    create unique index tags_active_name_key on tags (account_id, name_key) where deleted_at is null
  `.execute(db);
  await sql`drop index tags_active_name`.execute(db);
  await rekeyBrazilianMobiles(db);
}

async function keyTags(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string; account_id: string; name: string; active: boolean }>`
    select id, account_id, name, deleted_at is null as active from tags order by account_id, created_at, id
  `.execute(db);
  const taken = new Set<string>();
  for (const row of rows) {
    let key = fold(row.name);
    if (row.active) {
      const scoped = `${row.account_id} ${key}`;
      if (taken.has(scoped)) key = `DUPLICATE NAME ${row.id}`;
      else taken.add(scoped);
    }
    await sql`update tags set name_key = ${key} where id = ${row.id}`.execute(db);
  }
}

async function rekeyBrazilianMobiles(db: Kysely<unknown>): Promise<void> {
  // An 8-digit Brazilian mobile: area code, then 8 digits starting with 6 to 9.
  const { rows } = await sql<{ id: string; account_id: string; phone_key: string }>`
    select id, account_id, phone_key from contacts where phone_key ~ '^\\+55[1-9][0-9][6-9][0-9]{7}$'
  `.execute(db);
  for (const row of rows) {
    const national = row.phone_key.slice(3);
    const withNine = parsePhoneNumberFromString(`+55${national.slice(0, 2)}9${national.slice(2)}`);
    if (!withNine?.isValid() || withNine.getType() !== 'MOBILE') continue;
    await sql`
      update contacts set phone_key = ${withNine.number}
      where id = ${row.id}
        and not exists (select 1 from contacts c where c.account_id = ${row.account_id} and c.phone_key = ${withNine.number})
    `.execute(db);
  }
}
