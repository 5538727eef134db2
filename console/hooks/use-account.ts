// The account the page shows: opened through the admin API (with this tab's key for the public API), and its
// live events, followed once per account and handed to every pane that subscribed.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { adminClient, ok, publicClient, sessionKey, type Problem } from '../api.js';
import { followEvents, type LiveEvent, type LiveStatus } from '../live.js';
import type { Session } from '../session.js';
import { toProblem } from '../ui.js';

/** How many of the account's events the page keeps (newest first). */
const EVENTS_KEPT = 200;

export function useAccount(props: { token: string; initialAccount: string }) {
  const admin = useMemo(() => adminClient(props.token), [props.token]);
  const [session, setSession] = useState<Session | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [events, setEvents] = useState<LiveEvent[]>([]);
  const listeners = useRef(new Set<(event: LiveEvent) => void>());

  const open = async (accountId: string) => {
    setProblem(undefined);
    try {
      const account = ok(await admin.GET('/admin/v1/accounts/{accountId}', { params: { path: { accountId } } }));
      const api = publicClient(await sessionKey(admin, account.id));
      sessionStorage.setItem('console-account', account.id);
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
    const kept = keptEvents(accountId);
    return followEvents({
      token: props.token,
      accountId,
      after: kept.from,
      onStatus: setStatus,
      onEvent: (event) => {
        if (event.sequence) {
          setEvents((list) => [event, ...list].slice(0, EVENTS_KEPT)); // events, not delivery changes
          // An event the tab saw before a reload is listed again, not handed to the panes: they read anew.
          if (kept.seen(event.sequence)) return;
        }
        for (const listener of listeners.current) listener(event);
      },
    });
  }, [accountId]);

  return { session, problem, status, events, open };
}

/**
 * The events this tab saw of an account, kept across a reload (the tab's session storage): the stream starts again
 * after the sequence before the first of them, so the Events pane shows them again. `seen` records a sequence and
 * says whether the tab had seen it before the reload.
 */
function keptEvents(accountId: string): { from: string | undefined; seen: (sequence: string) => boolean } {
  const key = `console-events:${accountId}`;
  const [from, last] = (sessionStorage.getItem(key) ?? '').split(':');
  let first = from || undefined;
  const before = last ? BigInt(last) : undefined;
  return {
    from: first,
    seen: (sequence) => {
      first ??= (BigInt(sequence) - 1n).toString();
      sessionStorage.setItem(key, `${first}:${sequence}`);
      return before !== undefined && BigInt(sequence) <= before;
    },
  };
}
