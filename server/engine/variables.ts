// The variables of a run (Part B, "Variables"), read from the database once per stretch and kept in step with
// what the run itself writes: contact fields and fallbacks, tags (the run's changes included), message and
// conversation variables, system time in the account's zone, custom fields by key, the run's answers, and the
// account's variables (`account.<name>`). `secret.<name>` is empty text here: a secret is read only where an
// invoke request to its domain is built, never through this lookup.
import type { Kysely } from 'kysely';
import type { AccountRow } from '../store/accounts.js';
import { selectFieldValuesOfContact, tagsOfContacts, type ContactRow } from '../store/contacts.js';
import { selectAccountVariables } from '../store/console-variables.js';
import type { DB, RunTriggerContext } from '../store/schema.js';
import { selectRecentMessagesOfContact } from '../store/workflow-runs.js';
import { conversationVariables, joinTags, systemVariables } from './evaluate/variables.js';
import type { RunVariables } from './context.js';

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);

const ALL_READS = { messages: true, tags: true, fields: true, account: true };
const ACCOUNT = 'account.';
const SECRET = 'secret.';

export async function runVariables(
  db: Kysely<DB>,
  account: AccountRow,
  contact: ContactRow,
  trigger: RunTriggerContext,
  own: Record<string, string | null>,
  now: Date,
  /** What the graph reads (else those rows are not read): the recent messages, `contact.tags`, custom fields,
   * the account's variables. */
  reads: { messages: boolean; tags: boolean; fields: boolean; account: boolean } = ALL_READS,
): Promise<RunVariables> {
  let tags: string[] | undefined;
  const loadTags = async () =>
    (tags ??= ((await tagsOfContacts(db, account.id, [contact.id])).get(contact.id) ?? []).map((t) => t.name));
  if (reads.tags) await loadTags();
  // Every field of the account is known: one the contact holds no value in reads as the text `null`.
  const fields = new Map<string, string | null>(
    reads.fields
      ? (await selectFieldValuesOfContact(db, account.id, contact.id)).map((v) => [v.name, text(v.value)])
      : [],
  );
  // A variable the account defined without value is known: it reads as the text `null`.
  const accountVariables = new Map<string, string | null>(
    reads.account ? (await selectAccountVariables(db, account.id)).map((v) => [ACCOUNT + v.name, v.value]) : [],
  );
  const since = new Date(now.getTime() - 86_400_000).toISOString();
  const messages = reads.messages ? await selectRecentMessagesOfContact(db, account.id, contact.id, since) : [];
  const last = [...messages].reverse();
  const lastContact = last.find((m) => m.direction === 'inbound');
  const alias =
    contact.channel === 'instagram' ? contact.instagram_username : (contact.phone?.replace(/^\+/, '') ?? null);
  const firstName = contact.name.trim().split(/\s+/)[0] || null;
  const fixed: Record<string, string | null> = {
    'contact.id': contact.id,
    'contact.name': contact.name || alias,
    'contact.first_name': firstName ?? alias,
    'contact.alias': alias,
    'contact.score': null,
    'contact.is_verified': 'false',
    'contact.follower_count': null,
    'contact.picture_url': null,
    'contact.picture_url_base64': null,
    'message.trigger': trigger.text ?? '',
    'message.last_contact': lastContact?.text ?? null,
    'message.last_sender': last[0] ? (last[0].direction === 'inbound' ? 'contact' : 'user') : null,
    'message.interaction_type': trigger.interaction_type ?? '',
    'message.post_id': trigger.post_id ?? null,
    'message.post_url': trigger.post_url ?? null,
    'message.collaborator_email': '',
    ...systemVariables(now, account.time_zone),
    ...conversationVariables(
      messages.map((m) => ({ at: m.created_at, fromContact: m.direction === 'inbound', text: m.text })),
      now,
    ),
  };
  const written = new Map<string, string | null>(Object.entries(own));
  return {
    lookup: (name) => {
      if (name.startsWith(SECRET)) return undefined;
      if (name.startsWith(ACCOUNT)) return accountVariables.get(name);
      if (name === 'contact.tags') return joinTags(tags ?? []);
      if (written.has(name)) return written.get(name) ?? null;
      if (name in fixed) return fixed[name] ?? null;
      if (fields.has(name)) return fields.get(name) ?? null;
      return undefined;
    },
    set: (name, value) => {
      written.set(name, value);
    },
    tagsChanged: async () => {
      tags = undefined;
      await loadTags();
    },
    tagNames: loadTags,
  };
}
