// The contacts of the chosen connection: the account's contacts a page of 100 at a time with the API's cursor
// (the API lists them across connections; those of this connection are offered), read again when the connection
// changes, and the ones found or made since added.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type Api, type Problem, type Schemas } from '../api.js';
import { toProblem } from '../ui.js';

type Contact = Schemas['Contact'];

/** `more` added after `list`, each contact once (a newer copy replaces the one listed). */
function addContacts(list: Contact[], more: Contact[]): Contact[] {
  const ids = new Set(more.map((c) => c.id));
  return [...list.filter((c) => !ids.has(c.id)), ...more];
}

export function useContacts(api: Api, connectionId: string, onProblem: (problem: Problem) => void) {
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

  /** A contact found (past the listed pages) joins the list. */
  const add = (contact: Contact) => setContacts((old) => addContacts(old, [contact]));
  return { contacts, cursor, load, add };
}
