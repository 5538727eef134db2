// "Where to play": the account's connection, the contact to be (one of the connection's contacts, or a new one
// by phone or username and name), and the demo automation in one click. The contacts are listed a page of 100
// at a time with the API's cursor ("More contacts"); one past the pages is found by phone or username.
import { useEffect, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import { DEMO_KEYWORD, ensureDemoAutomation } from '../demo.js';
import { useConnections } from '../hooks/use-connections.js';
import { useContacts } from '../hooks/use-contacts.js';
import { PROVIDER_LABELS, type PlayedConnection, type Player, type Sender, type Session } from '../session.js';
import { Field, ProblemNote, toProblem, useAction } from '../ui.js';

type Connection = PlayedConnection;
type Contact = Schemas['Contact'];

export function senderOf(contact: Contact): Sender | undefined {
  if (contact.whatsapp) return { phone: contact.whatsapp.phone, name: contact.name };
  if (contact.instagram)
    return { instagram_id: contact.instagram.id, username: contact.instagram.username, name: contact.name };
  return undefined;
}

const describe = (c: Contact) => `${c.name} (${c.whatsapp?.phone ?? `@${c.instagram?.username ?? '?'}`})`;

export function SetupPane(props: {
  session: Session;
  player: Player | undefined;
  onPlayer: (p: Player) => void;
  /** An automation was made or published here (the Runs pane reads its list again: no event says so). */
  onAutomation: () => void;
}) {
  const [problem, setProblem] = useState<Problem | undefined>();
  const { connections, connectionId, connection, setConnectionId } = useConnections(props.session, setProblem);
  const contacts = useContacts(props.session, connectionId, setProblem);
  // A number attached or detached while one of its contacts is played: the player follows the connection's provider.
  const { player, onPlayer } = props;
  useEffect(() => {
    const fresh = player && connections.find((c) => c.id === player.connection.id);
    if (player && fresh && fresh.provider !== player.connection.provider) onPlayer({ ...player, connection: fresh });
  }, [connections]);

  // Open until a contact is chosen, then a bar that says who is played (a click opens it again).
  const playing = player?.contactId;
  const [open, setOpen] = useState(!playing);
  useEffect(() => setOpen(!playing), [playing]);

  return (
    <section class="pane setup" aria-labelledby="setup-title">
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <h2 id="setup-title">Where to play</h2>
          {player && (
            <span class="note playing-note">
              Playing {player.name} on {player.connection.name}
            </span>
          )}
        </summary>
        <Field id="connection" label="Connection">
          <select id="connection" value={connectionId} onChange={(e) => setConnectionId(e.currentTarget.value)}>
            <option value="">Choose a connection</option>
            {connections.map((c) => (
              <option key={c.id} value={c.id}>
                {connectionLabel(c)}
              </option>
            ))}
          </select>
        </Field>
        {connection && <ProviderNote connection={connection} />}
        <ProblemNote problem={problem} />
        {connection && (
          <>
            <ContactChooser
              connection={connection}
              contacts={contacts.contacts}
              player={props.player}
              onPlayer={props.onPlayer}
              session={props.session}
            />
            <MoreContacts count={contacts.contacts.length} cursor={contacts.cursor} onMore={contacts.load} />
            <FindContact
              connection={connection}
              session={props.session}
              onFound={contacts.add}
              onPlayer={props.onPlayer}
            />
            <NewContact
              connection={connection}
              session={props.session}
              onPlayer={props.onPlayer}
              reload={() => contacts.load()}
            />
          </>
        )}
      </details>
      {connection && <DemoAutomation connection={connection} session={props.session} onMade={props.onAutomation} />}
    </section>
  );
}

/** A connection in the list: its name, the channel unless the name says it, a real channel's provider, its state. */
export function connectionLabel(c: Connection): string {
  const channel = c.name.toLowerCase().includes(c.channel) ? '' : ` · ${c.channel}`;
  // The sandbox's connections keep their short label; a real channel says so.
  const provider = c.provider === 'sandbox' ? '' : ` · ${PROVIDER_LABELS[c.provider]}`;
  return `${c.name}${channel}${provider}${c.status === 'connected' ? '' : ` (${c.status})`}`;
}

/** Who carries the chosen connection's messages, and what that means for playing its contacts here. */
function ProviderNote(props: { connection: Connection }) {
  const { provider } = props.connection;
  return (
    <p class="note provider" aria-label="Provider">
      Provider: <strong>{PROVIDER_LABELS[provider]}</strong>
      {provider === 'sandbox'
        ? ' (this page plays its contacts and its channel).'
        : '. Its contacts write from their phones and Meta reports on its sends: all of it shows here live, and ' +
          'the sandbox does not act as the contact or the channel.'}
    </p>
  );
}

/** How many contacts are listed, and "More contacts" while the API has another page. */
function MoreContacts(props: { count: number; cursor: string | null; onMore: (cursor: string) => Promise<void> }) {
  const { count, cursor } = props;
  return (
    <div class="contact-more">
      {cursor && (
        <button type="button" class="secondary" onClick={() => void props.onMore(cursor)}>
          More contacts
        </button>
      )}
      <span class="note">
        {count} contact{count === 1 ? '' : 's'} of this connection listed
        {cursor ? '; more on the next pages' : ''}
      </span>
    </div>
  );
}

/**
 * A contact past the listed pages, found through the API by phone (whatsapp) or username (instagram), and
 * played at once.
 */
function FindContact(props: {
  session: Session;
  connection: Connection;
  onFound: (contact: Contact) => void;
  onPlayer: (p: Player) => void;
}) {
  const whatsapp = props.connection.channel === 'whatsapp';
  const [handle, setHandle] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [note, setNote] = useState<string | undefined>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    setNote(undefined);
    try {
      const value = handle.trim();
      const query = whatsapp ? { phone: value } : { instagram_username: value };
      const page = ok(await props.session.api.GET('/v1/contacts', { params: { query: { ...query, limit: 100 } } }));
      const contact = page.data.find((c) => c.channel.connection_id === props.connection.id);
      const sender = contact && senderOf(contact);
      if (!contact || !sender) return setNote(`No contact of ${props.connection.name} has ${value}.`);
      props.onFound(contact);
      const conversationId = await conversationOf(props.session, contact.id);
      props.onPlayer({
        connection: props.connection,
        sender,
        name: contact.name,
        contactId: contact.id,
        conversationId,
      });
      setHandle('');
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  return (
    <form class="group" aria-label="Find a contact" onSubmit={(e) => void submit(e)}>
      <Field id="find-contact" label={whatsapp ? 'Find by number' : 'Find by handle'}>
        <input
          id="find-contact"
          value={handle}
          onInput={(e) => setHandle(e.currentTarget.value)}
          placeholder={whatsapp ? '+5511987654321' : 'carla.dias'}
          required
        />
      </Field>
      <button type="submit">Find contact</button>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      <ProblemNote problem={problem} />
    </form>
  );
}

function ContactChooser(props: {
  session: Session;
  connection: Connection;
  contacts: Contact[];
  player: Player | undefined;
  onPlayer: (p: Player) => void;
}) {
  const [problem, setProblem] = useState<Problem | undefined>();
  const choose = async (id: string) => {
    const contact = props.contacts.find((c) => c.id === id);
    const sender = contact && senderOf(contact);
    if (!contact || !sender) return;
    setProblem(undefined);
    try {
      const conversationId = await conversationOf(props.session, contact.id);
      props.onPlayer({
        connection: props.connection,
        sender,
        name: contact.name,
        contactId: contact.id,
        conversationId,
      });
    } catch (error) {
      setProblem(toProblem(error));
    }
  };
  const playing =
    props.player?.contactId && props.player.connection.id === props.connection.id ? props.player : undefined;
  return (
    <div class="group">
      <Field id="contact" label="Contact">
        <select id="contact" onChange={(e) => void choose(e.currentTarget.value)}>
          {/* `selected` per option: a select's value set before its option exists would be lost. */}
          <option value="" selected={!props.player?.contactId}>
            Choose a contact
          </option>
          {props.contacts.map((c) => (
            <option key={c.id} value={c.id} selected={c.id === props.player?.contactId}>
              {describe(c)}
            </option>
          ))}
          {/* The contact played, even when the list's page does not hold it (a new one, or past the page). */}
          {playing && !props.contacts.some((c) => c.id === playing.contactId) && (
            <option value={playing.contactId} selected>
              {playing.name}
            </option>
          )}
        </select>
      </Field>
      <ProblemNote problem={problem} />
    </div>
  );
}

/**
 * The contact's conversation, one request: the list's `contact_id` lookup answers that contact's conversation
 * alone, wherever it stands in the inbox (none before the contact has one).
 */
async function conversationOf(session: Session, contactId: string): Promise<string | undefined> {
  const list = ok(await session.api.GET('/v1/conversations', { params: { query: { contact_id: contactId } } }));
  return list.data[0]?.id;
}

/** A random instagram-scoped id for someone new (the sandbox plays instagram: any 17 digits). */
const newInstagramId = () => `1784${String(Math.floor(Math.random() * 1e13)).padStart(13, '0')}`;

function NewContact(props: {
  session: Session;
  connection: Connection;
  onPlayer: (p: Player) => void;
  reload: () => Promise<void>;
}) {
  const whatsapp = props.connection.channel === 'whatsapp';
  const [handle, setHandle] = useState('');
  const [name, setName] = useState('');
  const { problem, busy, run } = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      if (whatsapp) {
        // A whatsapp contact is made by the API (the business adds a number, with consent).
        const contact = ok(
          await props.session.api.POST('/v1/contacts', {
            body: { phone: handle.trim(), name: name.trim(), connection_id: props.connection.id, consent: true },
          }),
        );
        await props.reload();
        const sender = senderOf(contact);
        if (sender) props.onPlayer({ connection: props.connection, sender, name: contact.name, contactId: contact.id });
      } else {
        // On instagram a person becomes a contact by writing first: their first message makes them.
        const username = handle.trim().replace(/^@/, '');
        props.onPlayer({
          connection: props.connection,
          sender: { instagram_id: newInstagramId(), username, name: name.trim() },
          name: name.trim(),
        });
      }
      setHandle('');
      setName('');
    });
  };

  return (
    <form class="group" aria-label="New contact" onSubmit={(e) => void submit(e)}>
      <h3>New contact</h3>
      <Field id="new-contact-handle" label={whatsapp ? 'Phone' : 'Username'}>
        <input
          id="new-contact-handle"
          value={handle}
          onInput={(e) => setHandle(e.currentTarget.value)}
          placeholder={whatsapp ? '+5511987654321' : 'carla.dias'}
          required
        />
      </Field>
      <Field id="new-contact-name" label="Name">
        <input
          id="new-contact-name"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="Carla Dias"
          required
        />
      </Field>
      <button type="submit" disabled={busy}>
        Create contact
      </button>
      <ProblemNote problem={problem} />
    </form>
  );
}

function DemoAutomation(props: { session: Session; connection: Connection; onMade: () => void }) {
  const { problem, busy, run } = useAction();
  const [done, setDone] = useState<string | undefined>();
  const create = () =>
    run(async () => {
      const { admin, api, account } = props.session;
      const workflow = await ensureDemoAutomation(api, admin, account.id, props.connection);
      // The receiver gets the events from its start on: said here, since the demo is the first thing made.
      setDone(
        `“${workflow.title}” is live: write “${DEMO_KEYWORD}” to start it; start the receiver first to see its events.`,
      );
      props.onMade();
    });
  return (
    <div class="demo">
      <button type="button" class="secondary" onClick={() => void create()} disabled={busy}>
        Create the demo automation
      </button>
      {busy && <p class="note">Creating the demo automation…</p>}
      {done && !busy && (
        <p class="note" role="status">
          {done}
        </p>
      )}
      <ProblemNote problem={problem} />
    </div>
  );
}
