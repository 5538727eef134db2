// Time and failures: the sandbox clock with its moves, what of the account waits on it (runs asleep or waiting
// for an answer, webhook and invoke retries, arranged failures) with when each falls due, and the failures the
// sandbox can cause: the next send's outcome, a whatsapp message failing later, the connection disconnecting
// and reconnecting, the contact blocked. The waits are read again when the account's stream tells something
// happened (a job that ran leaves its trace there), never on a timer.
import { useState } from 'preact/hooks';
import type { AdminSchemas } from '../api.js';
import { OUTCOMES, useFailures, type Outcome } from '../hooks/use-failures.js';
import { useSandboxClock } from '../hooks/use-sandbox-clock.js';
import { PROVIDER_LABELS, type Player, type Session } from '../session.js';
import { ChoiceSelect, Field, ProblemNote } from '../ui.js';

type Wait = AdminSchemas['SandboxWait'];

const KIND_LABEL: Record<Wait['kind'], string> = {
  run_start: 'Run starts',
  run_sleep: 'Run wakes from a sleep',
  run_question_timeout: 'Question times out',
  run_call_bound: 'Run stops waiting for its call',
  run_continue: 'Run goes on',
  webhook_attempt: 'Webhook delivery attempt',
  invoke_attempt: 'Invoke call attempt',
  message_failure: 'whatsapp reports a failure',
  other: 'Internal work',
};

const UNITS = { minutes: 60, hours: 3600, days: 86_400 } as const;
const UNIT_LABELS: Record<keyof typeof UNITS, string> = { minutes: 'minutes', hours: 'hours', days: 'days' };

/** "in 59 min", "in 3 d", "due now". */
function dueIn(dueAt: string, now: number): string {
  const s = Math.round((Date.parse(dueAt) - now) / 1000);
  if (s <= 0) return 'due now';
  if (s <= 3600) return `in ${Math.ceil(s / 60)} min`;
  if (s < 86_400) return `in ${(s / 3600).toFixed(1)} h`;
  return `in ${(s / 86_400).toFixed(1)} d`;
}

export function ClockPane(props: { session: Session; player: Player | undefined }) {
  const { clock, waits, problem, busy, advance } = useSandboxClock(props.session);
  const now = clock ? Date.parse(clock.now) : Date.now();
  return (
    <section class="pane clock" aria-labelledby="clock-title">
      <h2 id="clock-title">Time and failures</h2>
      <p class="clock-now" role="status" aria-label="Sandbox clock">
        {clock ? new Date(clock.now).toLocaleString() : '…'}
        {clock && clock.offset_seconds > 0 && (
          <span class="note"> (+{(clock.offset_seconds / 3600).toFixed(1)} h from real time)</span>
        )}
      </p>
      <div class="row" role="group" aria-label="Move the clock">
        <button type="button" disabled={busy} onClick={() => void advance(60)}>
          +1 minute
        </button>
        <button type="button" disabled={busy} onClick={() => void advance(3600)}>
          +1 hour
        </button>
        <button type="button" disabled={busy} onClick={() => void advance(86_400)}>
          +1 day
        </button>
      </div>
      <AdvanceForm busy={busy} onAdvance={(seconds) => void advance(seconds)} />
      <ProblemNote problem={problem} />

      <h3>Waiting on the clock</h3>
      {waits.length === 0 ? (
        <p class="note">Nothing of the account waits on the clock.</p>
      ) : (
        <ol class="waits" aria-label="Waiting on the clock">
          {waits.map((w, i) => (
            <li key={`${w.kind}:${w.subject.id}:${i}`}>
              <span>{KIND_LABEL[w.kind]}</span>
              <time dateTime={w.due_at} title={new Date(w.due_at).toLocaleString()}>
                {dueIn(w.due_at, now)}
              </time>
              <code class="note">
                {w.subject.type} {w.subject.id.slice(0, 8)}
              </code>
            </li>
          ))}
        </ol>
      )}
      <Failures session={props.session} player={props.player} />
    </section>
  );
}

function AdvanceForm(props: { busy: boolean; onAdvance: (seconds: number) => void }) {
  const [amount, setAmount] = useState('2');
  const [unit, setUnit] = useState<keyof typeof UNITS>('hours');
  const [invalid, setInvalid] = useState<string | undefined>();
  return (
    <form
      class="row"
      aria-label="Advance the clock"
      onSubmit={(e) => {
        e.preventDefault();
        const seconds = Math.round(Number(amount) * UNITS[unit]);
        // The API moves the clock by 1 second at least: said here, beside the field, rather than as its 400.
        if (!(seconds >= 1))
          return setInvalid(`Amount: move the clock by at least 1 second (${amount} ${unit} is less).`);
        setInvalid(undefined);
        props.onAdvance(seconds);
      }}
    >
      <Field id="advance-amount" label="Amount">
        <input
          id="advance-amount"
          type="number"
          min="0"
          step="any"
          aria-invalid={invalid ? true : undefined}
          aria-describedby={invalid ? 'advance-invalid' : undefined}
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
          required
        />
      </Field>
      <Field id="advance-unit" label="Unit">
        <ChoiceSelect id="advance-unit" value={unit} choices={UNIT_LABELS} onChoose={setUnit} />
      </Field>
      <button type="submit" disabled={props.busy}>
        Advance
      </button>
      {invalid && (
        <p class="problem" role="alert" id="advance-invalid">
          {invalid}
        </p>
      )}
    </form>
  );
}

/** The failures the sandbox can cause, on the connection and contact played. */
function Failures(props: { session: Session; player: Player | undefined }) {
  const player = props.player;
  const failures = useFailures(props.session, player);
  const [outcome, setOutcome] = useState<Outcome>('provider_rejected');
  const [messageId, setMessageId] = useState('');
  if (!player)
    return (
      <div class="group">
        <h3>Failures</h3>
        <p class="note">Choose a connection and a contact in “Where to play” to cause failures.</p>
      </div>
    );
  const whatsapp = player.connection.channel === 'whatsapp';
  const sandbox = player.connection.provider === 'sandbox';
  return (
    <div class="group">
      <h3>Failures</h3>
      {!sandbox && (
        <p class="note" aria-label="Channel failures">
          {PROVIDER_LABELS[player.connection.provider]} answers this connection's sends and reports their failures: the
          sandbox arranges no outcome and fails no message on it.
        </p>
      )}
      {sandbox && (
        <form
          class="row"
          aria-label="Next send's outcome"
          onSubmit={(e) => {
            e.preventDefault();
            void failures.arrangeOutcome(outcome);
          }}
        >
          <Field id="send-outcome" label="Next send's outcome">
            <ChoiceSelect id="send-outcome" value={outcome} choices={OUTCOMES} onChoose={setOutcome} />
          </Field>
          <button type="submit">Arrange</button>
        </form>
      )}
      {sandbox && whatsapp && (
        <form
          class="row"
          aria-label="Message fails later"
          onSubmit={(e) => {
            e.preventDefault();
            void failures.failLater(messageId);
          }}
        >
          <Field id="failing-message" label="Outbound id (whatsapp)">
            <input
              id="failing-message"
              value={messageId}
              onInput={(e) => setMessageId(e.currentTarget.value)}
              required
            />
          </Field>
          <button type="submit">Report undelivered</button>
        </form>
      )}
      <FailureButtons player={player} failures={failures} />
      {failures.done && (
        <p class="note" role="status" aria-label="Failure arranged">
          {failures.done}
        </p>
      )}
      <ProblemNote problem={failures.problem} />
    </div>
  );
}

/** Disconnect and reconnect the connection; block and unblock the contact (once there is one). */
function FailureButtons(props: { player: Player; failures: ReturnType<typeof useFailures> }) {
  const { setConnected, setBlocked } = props.failures;
  return (
    <>
      <div class="row">
        <button type="button" onClick={() => void setConnected(false)}>
          Disconnect
        </button>
        <button type="button" onClick={() => void setConnected(true)}>
          Reconnect
        </button>
      </div>
      {props.player.contactId && (
        <div class="row">
          {[true, false].map((blocked) => (
            <button key={String(blocked)} type="button" onClick={() => void setBlocked(blocked)}>
              {blocked ? 'Block the contact' : 'Unblock the contact'}
            </button>
          ))}
        </div>
      )}
    </>
  );
}
