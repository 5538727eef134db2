// Tags and custom-field values on a contact (Part A; events of Part C).
//
// - Putting on (a tag, values) acts on this contact only; taking off (a tag, a value) acts on every contact of
//   the person, and runs even when this contact lacks it, so a retry finishes a removal that failed halfway.
// - Each contact that changed gets a history entry named after the key and one event; a contact that did not
//   change gets neither. None of this moves `updated_at`.
// - The contact rows are locked first, so concurrent changes of one contact are serialised and each sees
//   what the other wrote (the "what changed" of the events stays exact).
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import {
  addContactTags,
  clearFieldValue,
  findContact,
  lockPersonContacts,
  removeContactTag,
  tagsOfContacts,
  valuesOfContacts,
  type ContactRow,
} from '../../store/contacts.js';
import { findCustomFieldsByIds } from '../../store/contacts.js';
import { inTransaction } from '../../store/database.js';
import type { DB } from '../../store/schema.js';
import { findActiveTag, type TagRow } from '../../store/tags.js';
import { notFound } from '../../errors.js';
import { recordEvents, type OutboxEvent } from '../events/outbox.js';
import { contactEvent, contactNotFound, writeValues } from './contacts.js';
import { historyEntry, recordHistory, type ContactActor, type HistoryKind } from './history.js';
import { checkValues, type ValueInput } from './values.js';
import { contactViews, tagSummary, type ContactView, type TagSummary } from './view.js';
import type { HeldValue } from '../../store/contacts.js';

export interface ContactTags {
  contact_id: string;
  tags: TagSummary[];
}

export interface ContactValues {
  contact_id: string;
  custom_fields: HeldValue[];
}

const tagNotFound = () => notFound('No such tag.');
const fieldNotFound = () => notFound('No such custom field.');

async function lockContact(db: Kysely<DB>, accountId: string, contactId: string): Promise<ContactRow[]> {
  const contact = await findContact(db, accountId, contactId, { forUpdate: true });
  if (!contact) throw contactNotFound();
  return [contact];
}

/** How many times the person is read again when it changed under the lock; each change is a concurrent link. */
const LOCK_PERSON_ATTEMPTS = 5;

/**
 * Locks every active contact of the contact's person, in id order and nothing before them: two removals on
 * two contacts of one person lock in the same order and cannot deadlock. Reads the person again if it changed
 * (a link of two persons) between the lookup and the lock, a bounded number of times. The contact is found by
 * the row's own id, so the check never depends on how the caller spelled it.
 */
async function lockPerson(db: Kysely<DB>, accountId: string, contactId: string): Promise<ContactRow[]> {
  for (let attempt = 1; attempt <= LOCK_PERSON_ATTEMPTS; attempt++) {
    const contact = await findContact(db, accountId, contactId);
    if (!contact) throw contactNotFound();
    const person = await lockPersonContacts(db, accountId, contact.person_id);
    if (person.some((c) => c.id === contact.id)) return person;
  }
  throw new Error(`the person of contact ${contactId} kept changing: gave up after ${LOCK_PERSON_ATTEMPTS} attempts`);
}

async function ownTags(db: Kysely<DB>, accountId: string, contactId: string): Promise<ContactTags> {
  const tags = (await tagsOfContacts(db, accountId, [contactId])).get(contactId) ?? [];
  return { contact_id: contactId, tags: tags.map(tagSummary) };
}

async function ownValues(db: Kysely<DB>, accountId: string, contactId: string): Promise<ContactValues> {
  return {
    contact_id: contactId,
    custom_fields: (await valuesOfContacts(db, accountId, [contactId])).get(contactId) ?? [],
  };
}

async function requireTag(db: Kysely<DB>, accountId: string, tagId: string): Promise<TagRow> {
  const tag = await findActiveTag(db, accountId, tagId);
  if (!tag) throw tagNotFound();
  return tag;
}

/** What a change did: the contacts it changed, and what each one's history and event say. */
interface HoldingChange {
  changed: readonly ContactRow[];
  history: (contact: ContactRow) => { kind: HistoryKind; details: Record<string, unknown> }[];
  event: (view: ContactView) => OutboxEvent;
}

interface Holding<Answer> {
  accountId: string;
  contactId: string;
  actor: ContactActor;
  /** Putting on locks the contact alone (it acts on it only); taking off locks every contact of its person. */
  locks: 'contact' | 'person';
  /** Under the lock: finds what the change is about (404), writes, and says which contacts changed. */
  change(tx: Kysely<DB>, locked: ContactRow[], now: string): Promise<HoldingChange>;
  /** The answer, read after the change. */
  answer(tx: Kysely<DB>): Promise<Answer>;
}

/**
 * The sequence of every change of what contacts hold, in the caller's transaction when given one (an
 * automation's stretch), else in its own: lock, change, then for the contacts that changed (only them) the
 * history entries and one event each, with their views as of after the change.
 */
async function changeHolding<Answer>(db: Kysely<DB>, clock: Clock, holding: Holding<Answer>): Promise<Answer> {
  const { accountId, contactId, actor } = holding;
  return inTransaction(db, async (tx) => {
    const locked =
      holding.locks === 'contact'
        ? await lockContact(tx, accountId, contactId)
        : await lockPerson(tx, accountId, contactId);
    const now = clock.now().toISOString();
    const { changed, history, event } = await holding.change(tx, locked, now);
    if (changed.length > 0) {
      await recordHistory(
        tx,
        changed.flatMap((contact) =>
          history(contact).map(({ kind, details }) => historyEntry(accountId, contact.id, kind, actor, details, now)),
        ),
      );
      const views = await contactViews(tx, accountId, changed);
      await recordEvents(tx, accountId, now, views.map(event));
    }
    return holding.answer(tx);
  });
}

/** PUT /v1/contacts/{contactId}/tags/{tagId}: puts the tag on; a contact that has it changes nothing. */
export async function putTag(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
  tagId: string,
  actor: ContactActor,
): Promise<ContactTags> {
  return changeHolding(db, clock, {
    accountId,
    contactId,
    actor,
    locks: 'contact',
    change: async (tx, locked, now) => {
      const tag = await requireTag(tx, accountId, tagId);
      const added = await addContactTags(tx, accountId, contactId, [tagId], now);
      return {
        changed: added.length > 0 ? locked : [],
        history: () => [{ kind: 'tag.added', details: { tag_id: tag.id, tag_name: tag.name } }],
        event: (view) => contactEvent('contact.tagged', view, { contact: view, tags: [tagSummary(tag)] }),
      };
    },
    answer: (tx) => ownTags(tx, accountId, contactId),
  });
}

/** DELETE /v1/contacts/{contactId}/tags/{tagId}: takes the tag off every contact of the person. */
export async function removeTag(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
  tagId: string,
  actor: ContactActor,
): Promise<ContactTags> {
  return changeHolding(db, clock, {
    accountId,
    contactId,
    actor,
    locks: 'person',
    change: async (tx, person) => {
      const tag = await requireTag(tx, accountId, tagId);
      const ids = person.map((c) => c.id);
      const removedFrom = new Set(await removeContactTag(tx, accountId, ids, tagId));
      return {
        changed: person.filter((c) => removedFrom.has(c.id)),
        history: () => [{ kind: 'tag.removed', details: { tag_id: tag.id, tag_name: tag.name } }],
        event: (view) => contactEvent('contact.untagged', view, { contact: view, tags: [tagSummary(tag)] }),
      };
    },
    answer: (tx) => ownTags(tx, accountId, contactId),
  });
}

/** PATCH /v1/contacts/{contactId}/custom-fields: sets the values given; one refused value writes none. */
export async function setValues(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
  entries: readonly ValueInput[],
  actor: ContactActor,
): Promise<ContactValues> {
  return changeHolding(db, clock, {
    accountId,
    contactId,
    actor,
    locks: 'contact',
    change: async (tx, locked, now) => {
      const values = await checkValues(tx, accountId, entries);
      const written = await writeValues(tx, accountId, contactId, values, now);
      return {
        changed: written.length > 0 ? locked : [],
        history: () =>
          written.map((v) => ({
            kind: 'custom_field.set',
            details: { field_id: v.field_id, name: v.name, value: v.value },
          })),
        event: (view) => contactEvent('contact.custom_fields_updated', view, { contact: view, custom_fields: written }),
      };
    },
    answer: (tx) => ownValues(tx, accountId, contactId),
  });
}

/** DELETE /v1/contacts/{contactId}/custom-fields/{fieldId}: clears the value on every contact of the person. */
export async function clearValue(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  contactId: string,
  fieldId: string,
  actor: ContactActor,
): Promise<ContactValues> {
  return changeHolding(db, clock, {
    accountId,
    contactId,
    actor,
    locks: 'person',
    change: async (tx, person) => {
      const [field] = await findCustomFieldsByIds(tx, accountId, [fieldId]);
      if (!field) throw fieldNotFound();
      const ids = person.map((c) => c.id);
      const clearedOn = new Set(await clearFieldValue(tx, accountId, ids, fieldId));
      const cleared = { field_id: field.id, name: field.name, type: field.type, value: null };
      return {
        changed: person.filter((c) => clearedOn.has(c.id)),
        history: () => [{ kind: 'custom_field.cleared', details: { field_id: field.id, name: field.name } }],
        event: (view) =>
          contactEvent('contact.custom_fields_updated', view, { contact: view, custom_fields: [cleared] }),
      };
    },
    answer: (tx) => ownValues(tx, accountId, contactId),
  });
}
