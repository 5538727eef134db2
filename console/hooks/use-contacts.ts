// The contacts of the chosen connection: the account's contacts a page of 100 at a time with the API's cursor
// (the API lists them across connections; those of this connection are offered), read again when the connection
// changes, and the ones found, made or come since added (`contact.created`: someone new wrote, on the sandbox or
// from their own phone to a real channel's number).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { LiveEvent } from '../live.js';
import type { Session } from '../session.js';
import { toProblem } from '../ui.js';

type Contact = Schemas['Contact'];

/** `more` added after `list`, each contact once (a newer copy replaces the one listed). */
function addContacts(list: Contact[], more: Contact[]): Contact[] {
  const ids = new Set(more.map((c) => c.id));
  return [...list.filter((c) => !ids.has(c.id)), ...more];
}

/** The contact a `contact.created` event carries (its data is the contact as the API reads it). */
function createdContact(event: LiveEvent): Contact | undefined {
  const data = event.data;
  if (event.type !== 'contact.created' || typeof data !== 'object' || data === null) return undefined;
  return isContact(data) ? data : undefined;
}

function isContact(data: object): data is Contact {
  return 'id' in data && 'channel' in data && 'person_id' in data && 'custom_fields' in data;
}

export function useContacts(session: Session, connectionId: string, onProblem: (problem: Problem) => void) {
  const { api } = session;
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const asked = useRef(0);

  /** A page of the account's contacts (the first, or the one after `after`). */
  const load = async (after?: string) => {
    if (!connectionId) {
      setContacts([]);
      setCursor(null);
      return;
    }
    const ask = ++asked.current;
    try {
      const page = ok(
        await api.GET('/v1/contacts', { params: { query: { limit: 100, ...(after ? { cursor: after } : {}) } } }),
      );
      if (ask !== asked.current) return; // a later load answers for now
      const mine = page.data.filter((c) => c.channel.connection_id === connectionId);
      setContacts((old) => (after ? addContacts(old, mine) : mine));
      setCursor(page.next_cursor);
    } catch (error) {
      onProblem(toProblem(error));
    }
  };
  useEffect(() => void load(), [connectionId]);
  useEffect(
    () =>
      session.subscribe((event) => {
        const contact = createdContact(event);
        if (contact?.channel.connection_id === connectionId) setContacts((old) => addContacts(old, [contact]));
      }),
    [session, connectionId],
  );

  /** A contact found (past the listed pages) joins the list. */
  const add = (contact: Contact) => setContacts((old) => addContacts(old, [contact]));
  return { contacts, cursor, load, add };
}
