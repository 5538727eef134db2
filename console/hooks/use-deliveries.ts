// An endpoint's deliveries, newest first, paged with the API's cursor; changes arrive on the account's stream
// (`webhook_delivery.updated`, pushed at each change), never by polling. And the endpoint tested, a delivery
// resent.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { Session } from '../session.js';
import { toProblem } from '../ui.js';

type Delivery = Schemas['WebhookDelivery'];

const PAGE = 20;

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

export function useDeliveries(session: Session, webhookId: string) {
  const { api } = session;
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | undefined>();
  const asked = useRef(0);

  /** The first page, or the one after `after` added below the list. */
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
      session.subscribe((event) => {
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

  const actions = useDeliveryActions(session, webhookId, { setDeliveries, setProblem });
  return { deliveries, cursor, problem, load, ...actions };
}

/** The endpoint tested (`tested` says how it went) and a delivery resent. */
function useDeliveryActions(
  session: Session,
  webhookId: string,
  list: {
    setDeliveries: (update: (list: Delivery[]) => Delivery[]) => void;
    setProblem: (problem: Problem | undefined) => void;
  },
) {
  const { api } = session;
  const [tested, setTested] = useState<string | undefined>();
  const act = async (what: () => Promise<void>) => {
    list.setProblem(undefined);
    try {
      await what();
    } catch (error) {
      list.setProblem(toProblem(error));
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
      list.setDeliveries((shown) =>
        shown.map((d) => (d.id === delivery.id && d.attempts <= delivery.attempts ? delivery : d)),
      );
    });
  return { tested, test, resend };
}
