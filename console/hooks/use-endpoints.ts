// The account's webhook endpoints, the one chosen, and the built-in receiver's: one click registers an endpoint
// for every event type whose URL is this server (`/console/receiver/{accountId}/{id}`).
import { useEffect, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { Session } from '../session.js';
import { toProblem } from '../ui.js';

type Endpoint = Schemas['WebhookEndpoint'];
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
export const receiverPrefix = (accountId: string) => `${location.origin}/console/receiver/${accountId}/`;
const RECEIVER_DESCRIPTION = 'Sandbox console: built-in receiver';

export function useEndpoints(session: Session) {
  const { api } = session;
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const [selected, setSelected] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [busy, setBusy] = useState(false);

  /** The endpoints, keeping the one chosen while it is listed (or choosing `choose`). */
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

  const prefix = receiverPrefix(session.account.id);
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

  const receiverEndpoint = endpoints.find((e) => e.url.startsWith(prefix));
  const endpoint = endpoints.find((e) => e.id === selected);
  return { endpoints, endpoint, selected, setSelected, receiverEndpoint, startReceiver, problem, busy };
}
