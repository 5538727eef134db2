// Webhooks: the account's endpoints and their deliveries as they happen, resend and test; and the built-in
// receiver (like `stripe listen`): one click registers an endpoint whose URL is this server
// (`/console/receiver/{accountId}/{id}`, server/http/console-receiver.ts), which verifies each request's signature
// with the secrets of the account's endpoints on it and pushes the verified ones here. Deliveries change live
// through the account's stream (`webhook_delivery.updated`, pushed at each change), never by polling.
import type { ReceivedRequest } from '../../server/console/received.js';
import type { Schemas } from '../api.js';
import { useDeliveries } from '../hooks/use-deliveries.js';
import { useEndpoints } from '../hooks/use-endpoints.js';
import { useReceiver } from '../hooks/use-receiver.js';
import type { Session } from '../session.js';
import { Field, ProblemNote } from '../ui.js';

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export function WebhooksPane(props: { session: Session }) {
  const { endpoints, endpoint, selected, setSelected, receiverEndpoint, startReceiver, problem, busy } = useEndpoints(
    props.session,
  );
  return (
    <section class="pane webhooks" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <div class="group receiver">
        <h3>Built-in receiver</h3>
        {receiverEndpoint ? (
          <Receiver session={props.session} endpoint={receiverEndpoint} />
        ) : (
          <>
            <p class="note">
              An endpoint of this console for every event type: each request signed with this account's endpoint secret
              is shown here (anything else is answered 404 and not kept).
            </p>
            <button type="button" onClick={() => void startReceiver()} disabled={busy}>
              Start the built-in receiver
            </button>
          </>
        )}
        <ProblemNote problem={problem} />
      </div>
      <div class="group">
        <Field id="webhook-endpoint" label="Endpoint">
          <select id="webhook-endpoint" value={selected} onChange={(e) => setSelected(e.currentTarget.value)}>
            {endpoints.length === 0 && <option value="">No endpoint yet</option>}
            {endpoints.map((e) => (
              <option key={e.id} value={e.id}>
                {e.description ?? e.url} ({e.status})
              </option>
            ))}
          </select>
        </Field>
        {endpoint && <p class="note endpoint-url">{endpoint.url}</p>}
      </div>
      {endpoint && <Deliveries key={endpoint.id} session={props.session} endpoint={endpoint} />}
    </section>
  );
}

/** The requests the built-in receiver of `endpoint` kept, then each as it arrives (its stream, admin token). */
function Receiver(props: { session: Session; endpoint: Endpoint }) {
  const { requests, state } = useReceiver(props.session, props.endpoint);
  return (
    <>
      <p class="note" role="status" aria-label="Receiver">
        {state === 'listening' ? 'Listening' : state} on <code>{props.endpoint.url}</code>
      </p>
      {requests.length === 0 ? (
        <p class="note">No request yet: trigger an event, or test the endpoint below.</p>
      ) : (
        <ol class="received" aria-label="Received requests">
          {requests.map((r) => (
            <ReceivedItem key={r.seq} request={r} />
          ))}
        </ol>
      )}
    </>
  );
}

function ReceivedItem({ request }: { request: ReceivedRequest }) {
  const header = (name: string) => request.headers.find(([n]) => n === name)?.[1];
  let payload = request.body ?? `(${request.size} bytes: over the receiver's cap, not kept)`;
  try {
    if (request.body) payload = JSON.stringify(JSON.parse(request.body), null, 2);
  } catch {
    // not JSON: shown as received
  }
  return (
    <li class={request.verified ? 'verified' : 'invalid'}>
      <span class="badge">{request.verified ? 'verified' : `invalid: ${request.failure ?? 'unknown'}`}</span>
      <code>{header('service-event-type') ?? '(no event type)'}</code>
      <time dateTime={request.received_at}>{new Date(request.received_at).toLocaleTimeString()}</time>
      <details>
        <summary>Headers and payload</summary>
        <dl class="headers" aria-label="Headers">
          {request.headers.map(([name, value], i) => (
            <div key={i}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        <pre class="payload" aria-label="Payload">
          {payload}
        </pre>
      </details>
    </li>
  );
}

/** The endpoint's deliveries, newest first, paged with the API's cursor; changes arrive on the account's stream. */
function Deliveries(props: { session: Session; endpoint: Endpoint }) {
  const { deliveries, cursor, problem, load, tested, test, resend } = useDeliveries(props.session, props.endpoint.id);
  return (
    <div class="group">
      <div class="row">
        <button type="button" onClick={() => void test()}>
          Test the endpoint
        </button>
      </div>
      {tested && (
        <p class="note" role="status" aria-label="Test event">
          {tested}
        </p>
      )}
      <ProblemNote problem={problem} />
      <h3>Deliveries</h3>
      {deliveries.length === 0 ? (
        <p class="note">No delivery yet: the endpoint's events appear here as they are sent.</p>
      ) : (
        <ol class="deliveries" aria-label="Deliveries">
          {deliveries.map((d) => (
            <DeliveryItem key={d.id} delivery={d} onResend={() => void resend(d.id)} />
          ))}
        </ol>
      )}
      {cursor && (
        <button type="button" onClick={() => void load(cursor)}>
          Older deliveries
        </button>
      )}
    </div>
  );
}

/** What the resend does to this delivery ("Resend" would read as the chat's Send to a search by name). */
const again = (d: Delivery) => (d.status === 'failed' ? 'Retry' : 'Deliver again');

function DeliveryItem({ delivery: d, onResend }: { delivery: Delivery; onResend: () => void }) {
  return (
    <li class={`delivery delivery-${d.status}`}>
      <code>{d.event.type}</code>
      <span class="status">{d.status}</span>
      <span>
        {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
        {d.last_response_status !== null && ` · HTTP ${d.last_response_status}`}
        {d.last_error && ` · ${d.last_error}`}
      </span>
      <span class="note">
        {d.status === 'pending' ? `next attempt ${when(d.next_attempt_at)}` : `last ${when(d.last_attempt_at)}`}
      </span>
      {d.status !== 'pending' && (
        // The API's resend: a failed delivery is tried again, a succeeded one delivered again (same event id).
        <button type="button" class="small" onClick={onResend} aria-label={`${again(d)} ${d.event.type}`}>
          {again(d)}
        </button>
      )}
    </li>
  );
}
