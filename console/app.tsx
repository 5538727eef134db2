// The console's layout: the account form, the live status, and the panes. On a laptop screen "Where to play" is a
// bar across the top (collapsed once a contact is chosen) and the chat, the run and the clock sit side by side in
// one screen, the events and webhooks below; on a narrow screen one pane shows at a time, chosen by tabs (each
// pane stays mounted, so its state and live updates carry on while another shows). The account and its live
// events come from useAccount; the page keeps the contact the user plays. Each pane is its own module under
// panes/, takes the session (session.ts) and subscribes to the same events.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Problem } from './api.js';
import { useAccount } from './hooks/use-account.js';
import { usePlayer } from './hooks/use-player.js';
import type { LiveStatus } from './live.js';
import { ChatPane } from './panes/chat.js';
import { ClockPane } from './panes/clock.js';
import { EventsPane } from './panes/events.js';
import { RunsPane } from './panes/runs.js';
import { SetupPane } from './panes/setup.js';
import { WebhooksPane } from './panes/webhooks.js';
import type { Session } from './session.js';
import { ProblemNote } from './ui.js';

/** The panes, in the order of the tabs a narrow screen shows. */
const PANES = {
  setup: 'Where to play',
  chat: 'Chat',
  runs: 'Runs',
  clock: 'Time',
  webhooks: 'Webhooks',
  events: 'Events',
} as const;
type PaneName = keyof typeof PANES;
const PANE_NAMES: PaneName[] = ['setup', 'chat', 'runs', 'clock', 'webhooks', 'events'];

export function App(props: { token: string; initialAccount: string }) {
  // Another account open: the page shows what the tab kept of that one (its contact, its events).
  const { session, problem, status, events, open } = useAccount(props);
  const [player, setPlayer] = usePlayer(session?.account.id);
  const [tab, setTab] = useState<PaneName>('setup');
  // Which buttons messages still answer a waiting run, as the Runs pane read the runs: the chat greys the others.
  const [answering, setAnswering] = useState<Record<string, boolean>>({});
  // Counts the automations made from the page: the Runs pane lists the connection's automations again.
  const [automations, setAutomations] = useState(0);
  // A contact chosen: on a narrow screen the chat is what comes next.
  useEffect(() => {
    if (player?.contactId) setTab((t) => (t === 'setup' ? 'chat' : t));
  }, [player?.contactId]);
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
        <>
          <Tabs tab={tab} onTab={setTab} />
          <div class={`panes${player?.contactId ? ' playing' : ''}`}>
            <Slot name="setup" tab={tab}>
              <SetupPane
                session={session}
                player={player}
                onPlayer={setPlayer}
                onAutomation={() => setAutomations((n) => n + 1)}
              />
            </Slot>
            <Slot name="chat" tab={tab}>
              <ChatPane
                session={session}
                player={player}
                onPlayer={setPlayer}
                onRead={setChatRead}
                answering={answering}
              />
            </Slot>
            <Slot name="runs" tab={tab}>
              <RunsPane
                session={session}
                player={player}
                chatRead={player?.contactId !== undefined && chatRead === player.contactId}
                onAnswering={setAnswering}
                automations={automations}
              />
            </Slot>
            <Slot name="clock" tab={tab}>
              <ClockPane session={session} player={player} />
            </Slot>
            <Slot name="events" tab={tab}>
              <EventsPane events={events} />
            </Slot>
            <Slot name="webhooks" tab={tab}>
              <WebhooksPane session={session} />
            </Slot>
          </div>
        </>
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

/** The tabs a narrow screen chooses its one pane with (hidden on a wide one, where every pane shows). */
function Tabs(props: { tab: PaneName; onTab: (name: PaneName) => void }) {
  return (
    <div class="tabs" role="tablist" aria-label="Panes">
      {PANE_NAMES.map((name) => (
        <button
          key={name}
          type="button"
          role="tab"
          id={`tab-${name}`}
          aria-selected={props.tab === name}
          aria-controls={`slot-${name}`}
          onClick={() => props.onTab(name)}
        >
          {PANES[name]}
        </button>
      ))}
    </div>
  );
}

/** A pane's place in the grid; on a narrow screen only the chosen tab's shows. */
function Slot(props: { name: PaneName; tab: PaneName; children: ComponentChildren }) {
  return (
    <div class={`slot slot-${props.name}${props.tab === props.name ? ' active' : ''}`} id={`slot-${props.name}`}>
      {props.children}
    </div>
  );
}
