// SQL of contacts, the tags they hold, their custom-field values and their history. Every query takes the
// account first and filters by it. Public reads see active contacts only (deleted_at null) and active tags only.
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { AccountRow } from './accounts.js';
import type { CursorCodec } from './cursor.js';
import { keysetQuery, paginate, type Page, type PageRequest } from './pagination.js';
import type { ContactHistoryTable, ContactsTable, CustomFieldsTable, DB, FieldValue } from './schema.js';

export type ContactRow = Selectable<ContactsTable>;
export type ContactHistoryRow = Selectable<ContactHistoryTable>;

export interface HeldTag {
  id: string;
  name: string;
  tagged_at: string;
}

export interface HeldValue {
  field_id: string;
  name: string;
  type: CustomFieldsTable['type'];
  value: FieldValue;
}

/** The columns the API's view of a contact shows (and the list's sort keys): what a page reads of each row. */
const VIEWED_COLUMNS = [
  'id',
  'channel',
  'connection_id',
  'instagram_id',
  'instagram_username',
  'phone',
  'name',
  'person_id',
  'last_interaction_at',
  'created_at',
  'updated_at',
] as const;

export type ViewedContactRow = Pick<ContactRow, (typeof VIEWED_COLUMNS)[number]>;

/** A contact with its active tags (in the order it got them) and its values (by field name): one row each. */
export type ContactWithHoldings = ViewedContactRow & {
  held_tags: { id: string; name: string }[];
  held_values: HeldValue[];
};

// ------------------------------------------------------------------------------------------------ contacts

/** Inserts the contact and answers it as stored (timestamps with microseconds, as every read gives them). */
export async function insertContact(db: Kysely<DB>, row: ContactRow): Promise<ContactRow> {
  return db.insertInto('contacts').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Inserts a whatsapp contact unless the account has one with its phone key (deleted ones included): the row as
 * stored, or undefined. Two concurrent creations of one phone: one inserts, the other finds it.
 */
export async function insertContactUnlessPhoneKnown(db: Kysely<DB>, row: ContactRow): Promise<ContactRow | undefined> {
  return db
    .insertInto('contacts')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'phone_key']).where('phone_key', 'is not', null).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The active contact, or undefined (no such contact, deleted, or another account's). */
export async function findContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ContactRow | undefined> {
  let q = db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .where('deleted_at', 'is', null);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * The account and its active contact in one statement (an automation's stretch reads both first); undefined
 * when either is gone.
 */
export async function findAccountAndContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
): Promise<{ account: AccountRow; contact: ContactRow } | undefined> {
  const row = await db
    .selectFrom('contacts as c')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .selectAll('c')
    .select([
      'a.name as account_name',
      'a.alias as account_alias',
      'a.time_zone as account_time_zone',
      'a.suspended as account_suspended',
      'a.api_enabled as account_api_enabled',
      'a.platform_signature as account_platform_signature',
      'a.created_at as account_created_at',
      'a.updated_at as account_updated_at',
    ])
    .where('c.account_id', '=', accountId)
    .where('c.id', '=', contactId)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    account_name: name,
    account_alias: alias,
    account_time_zone: time_zone,
    account_suspended: suspended,
    account_api_enabled: api_enabled,
    account_platform_signature: platform_signature,
    account_created_at: created_at,
    account_updated_at: updated_at,
    ...contact
  } = row;
  const account = {
    id: accountId,
    name,
    alias,
    time_zone,
    suspended,
    api_enabled,
    platform_signature,
    created_at,
    updated_at,
  };
  return { account, contact };
}

/** The account of a contact, deleted or not (the admin API addresses a contact by its id alone). */
export async function findContactAccountById(db: Kysely<DB>, contactId: string): Promise<string | undefined> {
  const row = await db.selectFrom('contacts').select('account_id').where('id', '=', contactId).executeTakeFirst();
  return row?.account_id;
}

/** The contact with this phone key, deleted or not (a returning contact keeps its id), locked for update. */
export async function lockContactByPhoneKey(
  db: Kysely<DB>,
  accountId: string,
  phoneKey: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('phone_key', '=', phoneKey)
    .forUpdate()
    .executeTakeFirst();
}

/** The contact with this instagram id on the connection, deleted or not, locked for update. */
export async function lockContactByInstagramId(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  instagramId: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .where('instagram_id', '=', instagramId)
    .forUpdate()
    .executeTakeFirst();
}

/** How a channel names a contact: a whatsapp phone key on the account, or an instagram id on the connection. */
export type ChannelContactKey =
  { channel: 'whatsapp'; phoneKey: string } | { channel: 'instagram'; connectionId: string; instagramId: string };

/**
 * The contact a channel's message comes from, deleted or not, locked, touched and answered as it is now, in one
 * statement (an inbound message): the message is activity (`updated_at`, `last_interaction_at` = `now`), a
 * deleted contact comes back, the profile name `name` overwrites the name, and on instagram `username` (the
 * current one, null: not sent) overwrites the username, and the name too where the name was only the old
 * username's stand-in (no profile name sent). Undefined when the channel has no such contact.
 */
export async function touchContactOfChannel(
  db: Kysely<DB>,
  accountId: string,
  key: ChannelContactKey,
  from: { name: string | null; username: string | null },
  now: string,
): Promise<ContactRow | undefined> {
  const { name, username } = from;
  let q = db
    .updateTable('contacts')
    .set({
      // The right-hand sides read the row as it was.
      name: sql<string>`case
        when ${name}::text is not null then ${name}::text
        when ${username}::text is not null and name = instagram_username then ${username}::text
        else name end`,
      instagram_username: sql<string | null>`coalesce(${username}::text, instagram_username)`,
      updated_at: now,
      last_interaction_at: now,
      deleted_at: null,
    })
    .where('account_id', '=', accountId);
  q =
    key.channel === 'whatsapp'
      ? q.where('phone_key', '=', key.phoneKey)
      : q.where('connection_id', '=', key.connectionId).where('instagram_id', '=', key.instagramId);
  return q.returningAll().executeTakeFirst();
}

/** The active contacts of a person (this one included), in id order. */
const personContacts = (db: Kysely<DB>, accountId: string, personId: string) =>
  db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('person_id', '=', personId)
    .where('deleted_at', 'is', null)
    .orderBy('id');

/** The active contacts of a person (this one included), locked in id order so two removals cannot deadlock. */
export async function lockPersonContacts(db: Kysely<DB>, accountId: string, personId: string): Promise<ContactRow[]> {
  return personContacts(db, accountId, personId).forUpdate().execute();
}

/** The active contacts of a person (this one included), in id order, unlocked. */
export async function selectPersonContacts(db: Kysely<DB>, accountId: string, personId: string): Promise<ContactRow[]> {
  return personContacts(db, accountId, personId).execute();
}

export async function updateContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  changes: Partial<
    Pick<
      ContactRow,
      | 'name'
      | 'person_id'
      | 'updated_at'
      | 'last_interaction_at'
      | 'deleted_at'
      | 'blocked_from_automations'
      | 'instagram_username'
    >
  >,
): Promise<ContactRow | undefined> {
  return db
    .updateTable('contacts')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Serialises the changes of the account's persons (a transaction-scoped advisory lock): a link reads the
 * contacts of two persons and merges them, and another link must not change those persons in between. Row
 * locks cannot do it: a concurrent link may add a contact to a person without touching its rows.
 */
export async function lockPersonsOfAccount(db: Kysely<DB>, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('persons'), hashtext(${accountId}))`.execute(db);
}

/** Moves every contact of `fromPersonId` to `toPersonId` (one person found on two channels). */
export async function mergePersons(
  db: Kysely<DB>,
  accountId: string,
  fromPersonId: string,
  toPersonId: string,
): Promise<void> {
  await db
    .updateTable('contacts')
    .set({ person_id: toPersonId })
    .where('account_id', '=', accountId)
    .where('person_id', '=', fromPersonId)
    .execute();
}

export interface ContactFilters {
  updatedSince?: string | undefined;
  /** A phone key (see domain/contacts/phone). */
  phoneKey?: string | undefined;
  /** Without `@`: matched as given and in lowercase. */
  instagramUsername?: string | undefined;
  instagramId?: string | undefined;
}

/** GET /v1/contacts: active contacts least recently active first (`updated_at`, then id), filters combined. */
export async function selectContactsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  filters: ContactFilters,
  page: PageRequest,
): Promise<Page<ContactWithHoldings>> {
  let q = db
    .selectFrom('contacts')
    // Only what the view shows: every column more is a field to decode in each of the page's rows (the deletion,
    // the phone key, the automation flags), and two more timestamps to parse.
    .select(VIEWED_COLUMNS)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null);
  if (filters.updatedSince !== undefined)
    q = q.where('updated_at', '>=', sql<string>`cast(${filters.updatedSince} as timestamptz)`);
  if (filters.phoneKey !== undefined) q = q.where('phone_key', '=', filters.phoneKey);
  if (filters.instagramUsername !== undefined) {
    const given = filters.instagramUsername;
    q = q.where('instagram_username', 'in', [...new Set([given, given.toLowerCase()])]);
  }
  if (filters.instagramId !== undefined) q = q.where('instagram_id', '=', filters.instagramId);
  const keyset = keysetQuery(
    q,
    {
      codec,
      list: 'contacts',
      accountId,
      filters: {
        updated_since: filters.updatedSince,
        phone: filters.phoneKey,
        instagram_username: filters.instagramUsername,
        instagram_id: filters.instagramId,
      },
      order: 'asc',
      keys: [
        { column: 'updated_at', field: 'updated_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
  return keyset.pageOf(await withHoldings(db, accountId, keyset.query));
}

/**
 * A row of the page statement: a contact of the page (kind 0, in the page's order), an active tag a contact of
 * the page holds (kind 1, in the order it got them) or a value one holds (kind 2, by field name in byte order):
 * the same rows and orders as tagsOfContacts and valuesOfContacts. `holder` is the contact; `item_id` and
 * `item_name` the contact's, the tag's or the field's id and name.
 */
type PageStatementRow =
  | ({ kind: 0; holder: string; item_id: string; item_name: string; sort_at: string } & Omit<
      ViewedContactRow,
      'id' | 'name' | 'updated_at'
    >)
  | { kind: 1; holder: string; item_id: string; item_name: string }
  | { kind: 2; holder: string; item_id: string; item_name: string; field_type: HeldValue['type']; value: FieldValue };

/**
 * The contacts `page` selects with their tags and values, in one statement. The holdings of the whole page are
 * read by one index scan each (`contact_id = any(…)`), not by a subquery per contact: a subquery's start-up
 * (its sort, its aggregate, on PGlite a file size read per heap scan) cost more than its rows, and the JSON it
 * built was parsed again here. Rows come flat and are grouped here, in the statement's order.
 */
async function withHoldings(
  db: Kysely<DB>,
  accountId: string,
  page: SelectQueryBuilder<DB, 'contacts', ViewedContactRow>,
): Promise<ContactWithHoldings[]> {
  const { rows } = await sql<PageStatementRow>`
    with page as materialized (${page})
    select 0 as kind, p.id as holder, p.updated_at as sort_at, null::text as sort_label, p.id as item_id,
      p.name as item_name, p.channel, p.connection_id, p.instagram_id, p.instagram_username, p.phone, p.person_id,
      p.last_interaction_at, p.created_at, null::text as field_type, null::jsonb as value
    from page p
    union all
    select 1, ct.contact_id, ct.tagged_at, null, t.id, t.name, null, null, null, null, null, null, null, null, null,
      null
    from contact_tags ct join tags t on t.id = ct.tag_id
    where ct.account_id = ${accountId} and ct.contact_id = any(array(select id from page)) and t.deleted_at is null
    union all
    select 2, v.contact_id, null, f.name collate "C", f.id, f.name, null, null, null, null, null, null, null, null,
      f.type, v.value
    from contact_field_values v join custom_fields f on f.id = v.field_id
    where v.account_id = ${accountId} and v.contact_id = any(array(select id from page))
    order by kind, sort_at, sort_label, item_id`.execute(db);
  const contacts: ContactWithHoldings[] = [];
  const byId = new Map<string, ContactWithHoldings>();
  for (const row of rows) {
    if (row.kind === 0) {
      const contact: ContactWithHoldings = {
        id: row.item_id,
        channel: row.channel,
        connection_id: row.connection_id,
        instagram_id: row.instagram_id,
        instagram_username: row.instagram_username,
        phone: row.phone,
        name: row.item_name,
        person_id: row.person_id,
        last_interaction_at: row.last_interaction_at,
        created_at: row.created_at,
        updated_at: row.sort_at,
        held_tags: [],
        held_values: [],
      };
      contacts.push(contact);
      byId.set(contact.id, contact);
    } else if (row.kind === 1) byId.get(row.holder)?.held_tags.push({ id: row.item_id, name: row.item_name });
    else
      byId.get(row.holder)?.held_values.push({
        field_id: row.item_id,
        name: row.item_name,
        type: row.field_type,
        value: row.value,
      });
  }
  return contacts;
}

/** GET /v1/tags/{tagId}/contacts: active holders of the tag in the order they got it (`tagged_at`, then id). */
export async function selectTagHolders(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  tagId: string,
  taggedSince: string | undefined,
  page: PageRequest,
): Promise<Page<ContactRow & { tagged_at: string }>> {
  let q = db
    .selectFrom('contact_tags')
    .innerJoin('contacts', 'contacts.id', 'contact_tags.contact_id')
    .selectAll('contacts')
    .select('contact_tags.tagged_at')
    .where('contact_tags.account_id', '=', accountId)
    .where('contact_tags.tag_id', '=', tagId)
    .where('contacts.deleted_at', 'is', null);
  if (taggedSince !== undefined)
    q = q.where('contact_tags.tagged_at', '>=', sql<string>`cast(${taggedSince} as timestamptz)`);
  return paginate(
    q,
    {
      codec,
      list: 'tag_contacts',
      accountId,
      parent: tagId,
      filters: { tagged_since: taggedSince },
      order: 'asc',
      keys: [
        { column: 'contact_tags.tagged_at', field: 'tagged_at', type: 'timestamptz' },
        { column: 'contact_tags.contact_id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

// ---------------------------------------------------------------------------------------------------- tags

/** The active tags held by each contact, in the order the contact got them (`tagged_at`, then tag id). */
export async function tagsOfContacts(
  db: Kysely<DB>,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, HeldTag[]>> {
  const byContact = new Map<string, HeldTag[]>(contactIds.map((id) => [id, []]));
  if (contactIds.length === 0) return byContact;
  const rows = await db
    .selectFrom('contact_tags')
    .innerJoin('tags', 'tags.id', 'contact_tags.tag_id')
    .select(['contact_tags.contact_id', 'tags.id', 'tags.name', 'contact_tags.tagged_at'])
    .where('contact_tags.account_id', '=', accountId)
    .where('contact_tags.contact_id', 'in', contactIds)
    .where('tags.deleted_at', 'is', null)
    .orderBy('contact_tags.tagged_at')
    .orderBy('tags.id')
    .execute();
  for (const row of rows) byContact.get(row.contact_id)?.push({ id: row.id, name: row.name, tagged_at: row.tagged_at });
  return byContact;
}

/** Puts the tags on the contact; answers the ids it lacked (those now put on). */
export async function addContactTags(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  tagIds: readonly string[],
  now: string,
): Promise<string[]> {
  if (tagIds.length === 0) return [];
  const rows = await db
    .insertInto('contact_tags')
    .values(tagIds.map((tagId) => ({ account_id: accountId, contact_id: contactId, tag_id: tagId, tagged_at: now })))
    .onConflict((oc) => oc.columns(['contact_id', 'tag_id']).doNothing())
    .returning('tag_id')
    .execute();
  return rows.map((r) => r.tag_id);
}

/** Takes the tag off these contacts; answers the ids of those that had it. */
export async function removeContactTag(
  db: Kysely<DB>,
  accountId: string,
  contactIds: readonly string[],
  tagId: string,
): Promise<string[]> {
  if (contactIds.length === 0) return [];
  const rows = await db
    .deleteFrom('contact_tags')
    .where('account_id', '=', accountId)
    .where('contact_id', 'in', contactIds)
    .where('tag_id', '=', tagId)
    .returning('contact_id')
    .execute();
  return rows.map((r) => r.contact_id);
}

/** Takes the tag off every contact holding it (the tag is being deleted). */
export async function removeTagFromAllContacts(db: Kysely<DB>, accountId: string, tagId: string): Promise<void> {
  await db.deleteFrom('contact_tags').where('account_id', '=', accountId).where('tag_id', '=', tagId).execute();
}

/** The account's active tags among `tagIds`. */
export async function findActiveTagsByIds(
  db: Kysely<DB>,
  accountId: string,
  tagIds: readonly string[],
): Promise<{ id: string; name: string }[]> {
  if (tagIds.length === 0) return [];
  return db
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', tagIds)
    .where('deleted_at', 'is', null)
    .execute();
}

// ------------------------------------------------------------------------------------------ custom fields

/** The values each contact holds, ordered by field name (byte order, as GET /v1/custom-fields). */
export async function valuesOfContacts(
  db: Kysely<DB>,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, HeldValue[]>> {
  const byContact = new Map<string, HeldValue[]>(contactIds.map((id) => [id, []]));
  if (contactIds.length === 0) return byContact;
  const rows = await db
    .selectFrom('contact_field_values')
    .innerJoin('custom_fields', 'custom_fields.id', 'contact_field_values.field_id')
    .select([
      'contact_field_values.contact_id',
      'custom_fields.id as field_id',
      'custom_fields.name',
      'custom_fields.type',
      'contact_field_values.value',
    ])
    .where('contact_field_values.account_id', '=', accountId)
    .where('contact_field_values.contact_id', 'in', contactIds)
    .orderBy(sql`custom_fields.name collate "C"`)
    .execute();
  for (const { contact_id, ...value } of rows) byContact.get(contact_id)?.push(value);
  return byContact;
}

/**
 * Every custom field of the account by key, with the contact's value or null where it has none (a run's
 * variables: a field the account defined is a known variable even without a value).
 */
export async function selectFieldValuesOfContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
): Promise<Array<{ name: string; value: HeldValue['value'] | null }>> {
  return db
    .selectFrom('custom_fields')
    .leftJoin('contact_field_values', (join) =>
      join
        .onRef('contact_field_values.field_id', '=', 'custom_fields.id')
        .on('contact_field_values.contact_id', '=', contactId),
    )
    .select(['custom_fields.name', 'contact_field_values.value'])
    .where('custom_fields.account_id', '=', accountId)
    .execute();
}

export async function upsertFieldValues(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  values: readonly { field_id: string; value: FieldValue }[],
  now: string,
): Promise<void> {
  if (values.length === 0) return;
  await db
    .insertInto('contact_field_values')
    .values(
      values.map((v) => ({
        account_id: accountId,
        contact_id: contactId,
        field_id: v.field_id,
        value: JSON.stringify(v.value),
        updated_at: now,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['contact_id', 'field_id']).doUpdateSet({
        value: sql`excluded.value`,
        updated_at: sql`excluded.updated_at`,
      }),
    )
    .execute();
}

/** Clears the field on these contacts; answers the ids of those that had a value. */
export async function clearFieldValue(
  db: Kysely<DB>,
  accountId: string,
  contactIds: readonly string[],
  fieldId: string,
): Promise<string[]> {
  if (contactIds.length === 0) return [];
  const rows = await db
    .deleteFrom('contact_field_values')
    .where('account_id', '=', accountId)
    .where('contact_id', 'in', contactIds)
    .where('field_id', '=', fieldId)
    .returning('contact_id')
    .execute();
  return rows.map((r) => r.contact_id);
}

/** Drops every tag and value of the contact (it is being deleted). */
export async function dropContactData(db: Kysely<DB>, accountId: string, contactId: string): Promise<void> {
  await db.deleteFrom('contact_tags').where('account_id', '=', accountId).where('contact_id', '=', contactId).execute();
  await db
    .deleteFrom('contact_field_values')
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .execute();
}

// ------------------------------------------------------------------------------------------------ history

export interface HistoryEntry {
  accountId: string;
  contactId: string;
  kind: ContactHistoryRow['kind'];
  actorType: ContactHistoryRow['actor_type'];
  actorId: string | null;
  actorName: string | null;
  details: Record<string, unknown>;
  at: string;
}

export async function insertHistory(db: Kysely<DB>, entries: readonly HistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('contact_history')
    .values(
      entries.map((e) => ({
        account_id: e.accountId,
        contact_id: e.contactId,
        kind: e.kind,
        actor_type: e.actorType,
        actor_id: e.actorId,
        actor_name: e.actorName,
        details: JSON.stringify(e.details),
        created_at: e.at,
      })),
    )
    .execute();
}

/** The contact's history, oldest first (deleted contacts included: the console still shows it). */
export async function listHistory(db: Kysely<DB>, accountId: string, contactId: string): Promise<ContactHistoryRow[]> {
  return db
    .selectFrom('contact_history')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .orderBy('id')
    .execute();
}

/** The account's custom fields among `fieldIds`. */
export async function findCustomFieldsByIds(
  db: Kysely<DB>,
  accountId: string,
  fieldIds: readonly string[],
): Promise<Selectable<CustomFieldsTable>[]> {
  if (fieldIds.length === 0) return [];
  return db
    .selectFrom('custom_fields')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', fieldIds)
    .execute();
}

/** The id, name and person of each contact of `contactIds` (what a conversation shows of its contact). */
export async function contactSummaries(
  db: Kysely<DB>,
  accountId: string,
  contactIds: readonly string[],
): Promise<{ id: string; name: string; person_id: string }[]> {
  if (contactIds.length === 0) return [];
  return db
    .selectFrom('contacts')
    .select(['id', 'name', 'person_id'])
    .where('account_id', '=', accountId)
    .where('id', 'in', contactIds)
    .execute();
}

/** The live contacts of these persons, with their connections (a person has one contact per connection). */
export async function contactsOfPersons(
  db: Kysely<DB>,
  accountId: string,
  personIds: readonly string[],
): Promise<{ id: string; connection_id: string }[]> {
  return db
    .selectFrom('contacts')
    .select(['id', 'connection_id'])
    .where('account_id', '=', accountId)
    .where('person_id', 'in', personIds)
    .where('deleted_at', 'is', null)
    .execute();
}
