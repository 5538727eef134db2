// The console's layout: the account form, the live status, and the panes side by side. The account and its live
// events come from useAccount; the page keeps the contact the user plays. Each pane is its own module under
// panes/, takes the session (session.ts) and subscribes to the same events.
import { useState } from 'preact/hooks';
import type { Problem } from './api.js';
import { useAccount } from './hooks/use-account.js';
import type { LiveStatus } from './live.js';
import { ChatPane } from './panes/chat.js';
import { ClockPane } from './panes/clock.js';
import { EventsPane } from './panes/events.js';
import { RunsPane } from './panes/runs.js';
import { SetupPane } from './panes/setup.js';
import { WebhooksPane } from './panes/webhooks.js';
import type { Player, Session } from './session.js';
import { ProblemNote } from './ui.js';

export function App(props: { token: string; initialAccount: string }) {
  const [player, setPlayer] = useState<Player | undefined>();
  const { session, problem, status, events, open } = useAccount({ ...props, onOpen: () => setPlayer(undefined) });
  // The contact whose newest page the chat has answered (or found nothing to read): the runs pane reads after
  // it, so the page the user is waiting for is the first the server answers (on an embedded database every
  // read waits for the one before it).
  const [chatRead, setChatRead] = useState<string | undefined>();

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
        <AccountForm initialAccount={props.initialAccount} problem={problem} onOpen={(id) => void open(id)} />
        {session && <LiveNote session={session} status={status} />}
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

function AccountForm(props: { initialAccount: string; problem: Problem | undefined; onOpen: (id: string) => void }) {
  const [accountInput, setAccountInput] = useState(props.initialAccount);
  return (
    <form
      class="account-form"
      aria-label="Account"
      onSubmit={(e) => {
        e.preventDefault();
        props.onOpen(accountInput.trim());
      }}
    >
      <label>
        <span>Account id</span>
        <input value={accountInput} onInput={(e) => setAccountInput(e.currentTarget.value)} required />
      </label>
      <button type="submit">Open account</button>
      <ProblemNote problem={props.problem} />
    </form>
  );
}

function LiveNote(props: { session: Session; status: LiveStatus }) {
  return (
    <p class={`live live-${props.status}`} role="status" aria-label="Live events">
      {props.session.account.name} · {props.status === 'live' ? 'live' : props.status}
    </p>
  );
}
