// Webhooks: the account's endpoints and their deliveries as they happen, resend and test; and the built-in
// receiver (like `stripe listen`): one click registers an endpoint whose URL is this server
// (`/console/receiver/{accountId}/{id}`, server/http/console-receiver.ts), which verifies each request's signature
// with the secrets of the account's endpoints on it and pushes the verified ones here. Deliveries change live
// through the account's stream (`webhook_delivery.updated`, pushed at each change), never by polling.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { Session } from '../session.js';
import { Field, ProblemNote, toProblem } from '../ui.js';
import type { ReceivedRequest } from '../../server/console/received.js';

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];
type EventType = Schemas['WebhookEventType'];

/** Every type an endpoint may subscribe to (the record makes the compiler check the list is whole). */
const EVENT_TYPES: Record<EventType, true> = {
  'comment.received': true,
  'connection.connected': true,
  'connection.disconnected': true,
  'contact.created': true,
  'contact.custom_fields_updated': true,
  'contact.tagged': true,
  'contact.untagged': true,
  'link.clicked': true,
  'live_comment.received': true,
  'message.deleted': true,
  'message.failed': true,
  'message.received': true,
  'message.sent': true,
  'message.updated': true,
  'workflow_run.ended': true,
};
const isEventType = (type: string): type is EventType => type in EVENT_TYPES;
const ALL_TYPES = Object.keys(EVENT_TYPES).filter(isEventType);

/** Where the account's receivers are: a receiver belongs to the account its path names. */
const receiverPrefix = (accountId: string) => `${location.origin}/console/receiver/${accountId}/`;
const RECEIVER_DESCRIPTION = 'Sandbox console: built-in receiver';
const PAGE = 20;

/** One request the built-in receiver kept. */
type Received = ReceivedRequest;

function isReceived(value: unknown): value is Received {
  return (
    typeof value === 'object' &&
    value !== null &&
    'seq' in value &&
    typeof value.seq === 'number' &&
    'headers' in value &&
    Array.isArray(value.headers) &&
    'verified' in value &&
    typeof value.verified === 'boolean'
  );
}

function isDelivery(value: unknown): value is Delivery {
  return (
    typeof value === 'object' &&
    value !== null &&
    'id' in value &&
    typeof value.id === 'string' &&
    'webhook_id' in value &&
    typeof value.webhook_id === 'string' &&
    'status' in value &&
    'event' in value
  );
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export function WebhooksPane(props: { session: Session }) {
  const { api } = props.session;
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const [selected, setSelected] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [busy, setBusy] = useState(false);

  const loadEndpoints = async (choose?: string) => {
    try {
      const list = ok(await api.GET('/v1/webhooks')).data;
      setEndpoints(list);
      setSelected((id) => choose ?? (list.some((e) => e.id === id) ? id : (list[0]?.id ?? '')));
    } catch (error) {
      setProblem(toProblem(error));
    }
  };
  useEffect(() => void loadEndpoints(), [api]);

  const prefix = receiverPrefix(props.session.account.id);
  const receiverEndpoint = endpoints.find((e) => e.url.startsWith(prefix));
  const startReceiver = async () => {
    setProblem(undefined);
    setBusy(true);
    try {
      const created = ok(
        await api.POST('/v1/webhooks', {
          body: {
            url: `${prefix}${crypto.randomUUID()}`,
            event_types: ALL_TYPES,
            description: RECEIVER_DESCRIPTION,
          },
        }),
      );
      // The secret stays with the server (which verifies); the page does not keep it.
      await loadEndpoints(created.id);
    } catch (error) {
      setProblem(toProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const endpoint = endpoints.find((e) => e.id === selected);
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
  const account = props.session.account.id;
  const id = props.endpoint.url.slice(receiverPrefix(account).length);
  const [requests, setRequests] = useState<Received[]>([]);
  const [state, setState] = useState<'connecting' | 'listening' | 'reconnecting'>('connecting');

  useEffect(() => {
    const abort = new AbortController();
    const run = async () => {
      while (!abort.signal.aborted) {
        try {
          const path = `/console/receiver/${encodeURIComponent(account)}/${encodeURIComponent(id)}/stream`;
          const response = await fetch(path, {
            headers: { Authorization: `Bearer ${props.session.token}`, Accept: 'text/event-stream' },
            signal: abort.signal,
            cache: 'no-store',
          });
          if (!response.ok || !response.body) throw new Error(`receiver stream: HTTP ${response.status}`);
          setState('listening');
          setRequests([]); // the stream sends every kept request first
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const data = buffer
                .slice(0, end)
                .split('\n')
                .filter((l) => l.startsWith('data:'))
                .map((l) => l.slice(5).replace(/^ /, ''))
                .join('\n');
              buffer = buffer.slice(end + 2);
              if (!data) continue;
              const parsed: unknown = JSON.parse(data);
              if (isReceived(parsed)) setRequests((list) => [parsed, ...list].slice(0, 50));
            }
          }
        } catch {
          // Dropped: again in a second.
        }
        if (abort.signal.aborted) return;
        setState('reconnecting');
        await new Promise((ok) => setTimeout(ok, 1000));
      }
    };
    void run();
    return () => abort.abort();
  }, [account, id]);

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

function ReceivedItem({ request }: { request: Received }) {
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
  const { api } = props.session;
  const webhookId = props.endpoint.id;
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [tested, setTested] = useState<string | undefined>();
  const asked = useRef(0);

  const load = async (after?: string) => {
    const ask = ++asked.current;
    try {
      const page = ok(
        await api.GET('/v1/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { limit: PAGE, ...(after ? { cursor: after } : {}) } },
        }),
      );
      if (ask !== asked.current) return;
      setDeliveries((list) =>
        after ? [...list, ...page.data.filter((d) => !list.some((l) => l.id === d.id))] : page.data,
      );
      setCursor(page.next_cursor);
    } catch (error) {
      setProblem(toProblem(error));
    }
  };
  useEffect(() => void load(), [webhookId]);

  useEffect(
    () =>
      props.session.subscribe((event) => {
        if (event.type !== 'webhook_delivery.updated') return;
        const changed = event.data;
        if (!isDelivery(changed)) return void load(); // changes went unheard: read the list again
        if (changed.webhook_id !== webhookId) return;
        setDeliveries((list) =>
          list.some((d) => d.id === changed.id)
            ? list.map((d) => (d.id === changed.id ? changed : d))
            : [changed, ...list],
        );
      }),
    [webhookId],
  );

  const act = async (what: () => Promise<void>) => {
    setProblem(undefined);
    try {
      await what();
    } catch (error) {
      setProblem(toProblem(error));
    }
  };
  const test = () =>
    act(async () => {
      setTested('Sending a test event…');
      const result = ok(await api.POST('/v1/webhooks/{webhookId}/test', { params: { path: { webhookId } } }));
      setTested(
        result.delivered
          ? `Test event delivered (HTTP ${result.response_status}, ${result.duration_ms} ms).`
          : `Test event not delivered: ${result.error ?? 'error'}${result.response_status ? ` (HTTP ${result.response_status})` : ''}.`,
      );
    });
  const resend = (deliveryId: string) =>
    act(async () => {
      const delivery = ok(
        await api.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
          params: { path: { webhookId, deliveryId } },
        }),
      );
      // The stream may have told of the resent attempt before this answer came back: the one with more
      // attempts is the newer (a requeue keeps the count, an attempt adds one).
      setDeliveries((list) =>
        list.map((d) => (d.id === delivery.id && d.attempts <= delivery.attempts ? delivery : d)),
      );
    });

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
            <li key={d.id} class={`delivery delivery-${d.status}`}>
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
                <button
                  type="button"
                  class="small"
                  onClick={() => void resend(d.id)}
                  aria-label={`Retry ${d.event.type}`}
                >
                  Retry
                </button>
              )}
            </li>
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
