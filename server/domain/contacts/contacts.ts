// Contacts (Part A): the list and its sync rules, one contact, POST /v1/contacts (create or update a whatsapp
// contact, like importing a one-row spreadsheet), and what the channels and the console do to contacts.
//
// `updated_at` is the contact's last activity: only a message (`recordActivity`) or a console edit moves it.
// Nothing a key does moves it, so a sync reader is never sent back over contacts it already has.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { findConnection } from '../../store/console.js';
import {
  addContactTags,
  contactsOfPersons,
  dropContactData,
  findActiveTagsByIds,
  findContact,
  findContactAccountById,
  insertContact,
  insertContactUnlessPhoneKnown,
  selectContactsPage,
  selectPersonContacts,
  lockContactByPhoneKey,
  lockPersonsOfAccount,
  mergePersons,
  updateContact,
  upsertFieldValues,
  valuesOfContacts,
  type ContactRow,
  type HeldValue,
} from '../../store/contacts.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import { recordEvents, type ContactEventType, type OutboxEvent } from '../events/outbox.js';
import { openConversation } from '../messaging/conversations.js';
import { historyEntry, recordHistory, type ContactActor } from './history.js';
import { parsePhone } from './phone.js';
import { checkValues, type CheckedValue, type ValueInput } from './values.js';
import { contactView, contactViewOf, tagSummary, type ContactView, type TagSummary } from './view.js';

export const contactNotFound = () => notFound('No such contact.');

export const contactEvent = (type: ContactEventType, contact: ContactView, data: unknown = contact): OutboxEvent => ({
  type,
  resource: { type: 'contact', id: contact.id },
  data,
});

// ---------------------------------------------------------------------------------------------------- reads

export interface ContactListQuery {
  updated_since?: string;
  phone?: string;
  instagram_username?: string;
  instagram_id?: string;
}

export async function listContacts(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  query: ContactListQuery,
  page: PageRequest,
): Promise<Page<ContactView>> {
  // A phone no contact can have is 422 invalid_phone, not an empty page: the caller has a bug to fix.
  const phoneKey = query.phone !== undefined ? parsePhone(query.phone).key : undefined;
  const username = query.instagram_username?.replace(/^@/, '');
  const codec = await cursorCodec(db, clock);
  const rows = await selectContactsPage(
    db,
    codec,
    accountId,
    { updatedSince: query.updated_since, phoneKey, instagramUsername: username, instagramId: query.instagram_id },
    page,
  );
  // The page's rows carry their tags and values (one statement): no query per view.
  return {
    data: rows.data.map((row) => contactView(row, row.held_tags, row.held_values)),
    next_cursor: rows.next_cursor,
  };
}

export async function getContact(db: Kysely<DB>, accountId: string, contactId: string): Promise<ContactView> {
  const row = await findContact(db, accountId, contactId);
  if (!row) throw contactNotFound();
  return contactViewOf(db, accountId, row);
}

/** The account of a contact named by id alone (the admin API), deleted contacts included; 404 when there is none. */
export async function accountOfContact(db: Kysely<DB>, contactId: string): Promise<string> {
  const accountId = await findContactAccountById(db, contactId);
  if (!accountId) throw contactNotFound();
  return accountId;
}

// ------------------------------------------------------------------------------------- POST /v1/contacts

export interface WhatsappContactInput {
  phone: string;
  name: string;
  connection_id: string;
  consent: boolean;
  tag_ids?: readonly string[];
  custom_fields?: readonly ValueInput[];
}

export function requireContactName(name: string): string {
  if (name.trim() === '') throw new ApiError(422, 'invalid_name', 'The contact name is blank.');
  return name;
}

/** The tags named by `tagIds`, in request order without repeats; 422 tag_not_found lists the unknown ones. */
async function requireTags(db: Kysely<DB>, accountId: string, tagIds: readonly string[]) {
  const ids = [...new Set(tagIds)];
  const found = new Map((await findActiveTagsByIds(db, accountId, ids)).map((t) => [t.id, t]));
  const tags: TagSummary[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const tag = found.get(id);
    if (tag) tags.push(tag);
    else missing.push(id);
  }
  if (missing.length > 0)
    throw new ApiError(422, 'tag_not_found', 'Some tags are not in the account.', { tag_ids: missing });
  return tags;
}

/** The connection a POST /v1/contacts names: a connected whatsapp number of the account (422 otherwise). */
async function requireWhatsappConnection(db: Kysely<DB>, accountId: string, connectionId: string) {
  const connection = await findConnection(db, accountId, connectionId);
  if (!connection || connection.channel !== 'whatsapp' || connection.status !== 'connected')
    throw new ApiError(422, 'invalid_connection', 'connection_id is not a connected whatsapp number of the account.');
  return connection;
}

/**
 * Creates the whatsapp contact of `input.phone`, or updates the account's contact with that phone (either form
 * of a Brazilian mobile). Tags and values sent are added, others left alone; the name is overwritten. 201 for a
 * contact new to the account (a returning deleted contact included, with its id), 200 for an existing one.
 */
export async function createOrUpdateWhatsappContact(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: WhatsappContactInput,
  actor: ContactActor,
): Promise<{ status: 200 | 201; contact: ContactView }> {
  if (input.consent !== true)
    throw new ApiError(422, 'consent_required', 'Set consent to true: the person must have agreed to be contacted.');
  const name = requireContactName(input.name);
  const phone = parsePhone(input.phone);

  return db.transaction().execute(async (tx) => {
    const connection = await requireWhatsappConnection(tx, accountId, input.connection_id);
    const tags = await requireTags(tx, accountId, input.tag_ids ?? []);
    const values = await checkValues(tx, accountId, input.custom_fields ?? []);
    const now = clock.now().toISOString();

    const inserted = await insertContactUnlessPhoneKnown(
      tx,
      newContactRow(
        accountId,
        connection.id,
        { channel: 'whatsapp', phone: phone.e164, phoneKey: phone.key },
        name,
        now,
      ),
    );
    const created = inserted !== undefined;
    const contact = inserted ?? (await lockContactByPhoneKey(tx, accountId, phone.key));
    if (!contact) throw new Error('a contact with this phone key vanished inside its transaction');
    const returning = !created && contact.deleted_at !== null;
    // One conversation per contact: with no message yet it stays out of the list, but GET by id reads it and
    // a template reaches the contact through it.
    await openConversation(tx, contact, now);
    // Neither the name nor the return moves updated_at: API changes never do (sync rule 4).
    if (!created) await updateContact(tx, accountId, contact.id, { name, deleted_at: null });

    const tagIds = tags.map((t) => t.id);
    const added = new Set(await addContactTags(tx, accountId, contact.id, tagIds, now));
    const changed = await writeValues(tx, accountId, contact.id, values, now);
    const imported = { consent: true, connection_id: connection.id };
    await recordHistory(tx, [historyEntry(accountId, contact.id, 'contact.imported', actor, imported, now)]);

    const view = await contactViewOf(tx, accountId, { ...contact, name, deleted_at: null });
    const tagged = tags.filter((t) => added.has(t.id)).map(tagSummary);
    await recordEvents(tx, accountId, now, importEvents(view, created, tagged, changed));
    return { status: created || returning ? 201 : 200, contact: view };
  });
}

/** A new contact is `contact.created`; an existing one tells what the import added to it. */
function importEvents(
  view: ContactView,
  created: boolean,
  tagged: readonly TagSummary[],
  changed: readonly HeldValue[],
): OutboxEvent[] {
  if (created) return [contactEvent('contact.created', view)];
  const events: OutboxEvent[] = [];
  if (tagged.length > 0) events.push(contactEvent('contact.tagged', view, { contact: view, tags: tagged }));
  if (changed.length > 0)
    events.push(contactEvent('contact.custom_fields_updated', view, { contact: view, custom_fields: changed }));
  return events;
}

/**
 * Writes the values that differ from what the contact holds; answers them as event entries (writing what the
 * contact already has changes nothing and emits nothing).
 */
export async function writeValues(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  values: readonly CheckedValue[],
  now: string,
) {
  if (values.length === 0) return [];
  const held = new Map(
    ((await valuesOfContacts(db, accountId, [contactId])).get(contactId) ?? []).map((v) => [v.field_id, v.value]),
  );
  const changed = values.filter((v) => held.get(v.field.id) !== v.value);
  await upsertFieldValues(
    db,
    accountId,
    contactId,
    changed.map((v) => ({ field_id: v.field.id, value: v.value })),
    now,
  );
  return changed.map((v) => ({ field_id: v.field.id, name: v.field.name, type: v.field.type, value: v.value }));
}

// ------------------------------------------------------------------------------- channels and the console

export interface InstagramContactInput {
  connectionId: string;
  instagramId: string;
  username: string;
  name: string;
}

/** A contact new to the account, as a channel identifies it. */
export type ChannelIdentity =
  | { channel: 'instagram'; instagramId: string; username: string }
  | { channel: 'whatsapp'; phone: string; phoneKey: string };

/** The row of a contact new to the account, as its channel identifies it, with a person of its own. */
function newContactRow(
  accountId: string,
  connectionId: string,
  identity: ChannelIdentity,
  name: string,
  now: string,
): ContactRow {
  return {
    id: randomUUID(),
    account_id: accountId,
    person_id: randomUUID(),
    channel: identity.channel,
    connection_id: connectionId,
    name,
    phone: identity.channel === 'whatsapp' ? identity.phone : null,
    phone_key: identity.channel === 'whatsapp' ? identity.phoneKey : null,
    instagram_id: identity.channel === 'instagram' ? identity.instagramId : null,
    instagram_username: identity.channel === 'instagram' ? identity.username.replace(/^@/, '') : null,
    last_interaction_at: now,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    blocked_from_automations: false,
    automations_paused_until: null,
  };
}

/**
 * Inserts a contact someone new brought (they wrote or commented, or the account wrote to a new number) with a
 * person of its own, and emits `contact.created`. Call inside the caller's transaction.
 */
export async function insertChannelContact(
  tx: Kysely<DB>,
  accountId: string,
  connectionId: string,
  identity: ChannelIdentity,
  name: string,
  now: string,
): Promise<ContactRow> {
  const row = await insertContact(tx, newContactRow(accountId, connectionId, identity, name, now));
  await openConversation(tx, row, now);
  // Inserted just now: it holds no tags and no values yet, so none are read.
  await recordEvents(tx, accountId, now, [contactEvent('contact.created', contactView(row, [], []))]);
  return row;
}

/** Someone new on an instagram connection, in a transaction of its own (tests and tools). */
export async function createInstagramContact(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: InstagramContactInput,
): Promise<ContactView> {
  return db.transaction().execute(async (tx) => {
    const connection = await findConnection(tx, accountId, input.connectionId);
    if (!connection || connection.channel !== 'instagram')
      throw new Error('not an instagram connection of the account');
    const identity = { channel: 'instagram' as const, instagramId: input.instagramId, username: input.username };
    const row = await insertChannelContact(
      tx,
      accountId,
      connection.id,
      identity,
      input.name,
      clock.now().toISOString(),
    );
    return contactViewOf(tx, accountId, row);
  });
}

/**
 * Activity of the contact: a message either way, or an edit in the console. Moves `updated_at` (and, for a
 * message, `last_interaction_at`), which sends the contact to the end of the sync order.
 */
export async function recordActivity(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
  kind: 'message' | 'console_edit',
): Promise<void> {
  const now = clock.now().toISOString();
  await updateContact(db, accountId, contactId, {
    updated_at: now,
    ...(kind === 'message' ? { last_interaction_at: now } : {}),
  });
}

/** A console edit of the contact's name: recorded in the history, and it moves `updated_at`. */
export async function editContactInConsole(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
  changes: { name: string },
  actor: ContactActor,
): Promise<ContactView> {
  const name = requireContactName(changes.name);
  return db.transaction().execute(async (tx) => {
    const row = await findContact(tx, accountId, contactId, { forUpdate: true });
    if (!row) throw contactNotFound();
    const now = clock.now().toISOString();
    const updated = await updateContact(tx, accountId, contactId, { name, updated_at: now });
    if (!updated) throw contactNotFound();
    await recordHistory(tx, [historyEntry(accountId, contactId, 'contact.edited', actor, { name }, now)]);
    return contactViewOf(tx, accountId, updated);
  });
}

/**
 * Deletes the contact (console): it answers 404, loses its tags and values, and keeps its id and phone so that
 * it comes back under the same id. No event (Part C has none for a deletion).
 */
export async function deleteContactInConsole(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const row = await findContact(tx, accountId, contactId, { forUpdate: true });
    if (!row) throw contactNotFound();
    await dropContactData(tx, accountId, contactId);
    await updateContact(tx, accountId, contactId, { deleted_at: clock.now().toISOString() });
  });
}

/**
 * The same person found on a second channel (Part B's multichannel handoff): `contactId` joins the person of
 * `samePersonAs`, with every contact of its former person. Refused (`two_on_one_connection`, nothing changed)
 * when the person would then have two live contacts on one connection. The rule is checked in the transaction
 * that merges, with the account's persons locked, so two concurrent links cannot both pass it.
 */
export async function linkSamePerson(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  samePersonAs: string,
): Promise<'linked' | 'two_on_one_connection'> {
  return db.transaction().execute((tx) => linkSamePersonIn(tx, accountId, contactId, samePersonAs));
}

/** `linkSamePerson` in the caller's transaction (the whatsapp handoff joins the contacts in its inbound job's). */
export async function linkSamePersonIn(
  tx: Transaction<DB>,
  accountId: string,
  contactId: string,
  samePersonAs: string,
): Promise<'linked' | 'two_on_one_connection'> {
  await lockPersonsOfAccount(tx, accountId);
  const contact = await findContact(tx, accountId, contactId, { forUpdate: true });
  const other = await findContact(tx, accountId, samePersonAs, { forUpdate: true });
  if (!contact || !other) throw contactNotFound();
  if (contact.person_id === other.person_id) return 'linked';
  const persons = await contactsOfPersons(tx, accountId, [contact.person_id, other.person_id]);
  if (new Set(persons.map((c) => c.connection_id)).size < persons.length) return 'two_on_one_connection';
  await mergePersons(tx, accountId, contact.person_id, other.person_id);
  return 'linked';
}

/** The person's contact on a connection (the person's other channels: a multichannel block), if it has one. */
export async function personContactOn(
  db: Kysely<DB>,
  accountId: string,
  personId: string,
  connectionId: string,
): Promise<ContactRow | undefined> {
  const contacts = await selectPersonContacts(db, accountId, personId);
  return contacts.find((contact) => contact.connection_id === connectionId);
}
