// The console's layout and the state the panes share: the account (and this tab's key for it), the connection
// and the contact the user plays, and the live events of the account. Each pane is its own module under
// panes/; later panes (runs, webhooks, clock) take the same props and subscribe to the same events.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { adminClient, ok, publicClient, sessionKey, type AdminApi, type AdminSchemas, type Api } from './api.js';
import { followEvents, type LiveEvent, type LiveStatus } from './live.js';
import { ChatPane } from './panes/chat.js';
import { ClockPane } from './panes/clock.js';
import { EventsPane } from './panes/events.js';
import { RunsPane } from './panes/runs.js';
import { SetupPane, type Player } from './panes/setup.js';
import { WebhooksPane } from './panes/webhooks.js';
import { ProblemNote, toProblem } from './ui.js';
import type { Problem } from './api.js';

/** What every pane receives. */
export interface Session {
  admin: AdminApi;
  api: Api;
  token: string;
  account: AdminSchemas['AdminAccount'];
  /** Calls `listener` for each live event of the account until the returned function is called. */
  subscribe: (listener: (event: LiveEvent) => void) => () => void;
}

export function App(props: { token: string; initialAccount: string }) {
  const admin = useMemo(() => adminClient(props.token), [props.token]);
  const [accountInput, setAccountInput] = useState(props.initialAccount);
  const [session, setSession] = useState<Session | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [events, setEvents] = useState<LiveEvent[]>([]);
  const [player, setPlayer] = useState<Player | undefined>();
  // The contact whose newest page the chat has answered (or found nothing to read): the runs pane reads after
  // it, so the page the user is waiting for is the first the server answers (on an embedded database every
  // read waits for the one before it).
  const [chatRead, setChatRead] = useState<string | undefined>();
  const listeners = useRef(new Set<(event: LiveEvent) => void>());

  const open = async (accountId: string) => {
    setProblem(undefined);
    try {
      const account = ok(await admin.GET('/admin/v1/accounts/{accountId}', { params: { path: { accountId } } }));
      const api = publicClient(await sessionKey(admin, account.id));
      sessionStorage.setItem('console-account', account.id);
      setPlayer(undefined);
      setEvents([]);
      setSession({
        admin,
        api,
        token: props.token,
        account,
        subscribe: (listener) => {
          listeners.current.add(listener);
          return () => listeners.current.delete(listener);
        },
      });
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  useEffect(() => {
    if (props.token && props.initialAccount) void open(props.initialAccount);
  }, []);

  const accountId = session?.account.id;
  useEffect(() => {
    if (!accountId) return;
    return followEvents({
      token: props.token,
      accountId,
      onStatus: setStatus,
      onEvent: (event) => {
        if (event.sequence) setEvents((list) => [event, ...list].slice(0, 200)); // events, not delivery changes
        for (const listener of listeners.current) listener(event);
      },
    });
  }, [accountId]);

  if (!props.token)
    return (
      <main class="empty">
        <h1>Sandbox console</h1>
        <p>
          Open the link <code>npm start</code> prints (<code>/console#token=…</code>): the page needs the admin token.
        </p>
      </main>
    );

  return (
    <div class="console">
      <header class="top">
        <h1>Sandbox console</h1>
        <form
          class="account-form"
          aria-label="Account"
          onSubmit={(e) => {
            e.preventDefault();
            void open(accountInput.trim());
          }}
        >
          <label>
            <span>Account id</span>
            <input value={accountInput} onInput={(e) => setAccountInput(e.currentTarget.value)} required />
          </label>
          <button type="submit">Open account</button>
          <ProblemNote problem={problem} />
        </form>
        {session && (
          <p class={`live live-${status}`} role="status" aria-label="Live events">
            {session.account.name} · {status === 'live' ? 'live' : status}
          </p>
        )}
      </header>
      {session && (
        <div class="panes">
          <SetupPane session={session} player={player} onPlayer={setPlayer} />
          <ChatPane session={session} player={player} onPlayer={setPlayer} onRead={setChatRead} />
          <EventsPane events={events} />
          <RunsPane
            session={session}
            player={player}
            chatRead={player?.contactId !== undefined && chatRead === player.contactId}
          />
          <WebhooksPane session={session} />
          <ClockPane session={session} player={player} />
        </div>
      )}
    </div>
  );
}
