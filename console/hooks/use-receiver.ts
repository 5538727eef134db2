// The requests the built-in receiver of an endpoint kept, then each as it arrives: its stream (server-sent
// events, read with fetch since an EventSource cannot send the admin token), reconnected when it drops.
import { useEffect, useState } from 'preact/hooks';
import type { ReceivedRequest } from '../../server/console/received.js';
import type { Schemas } from '../api.js';
import type { Session } from '../session.js';
import { receiverPrefix } from './use-endpoints.js';

export type ReceiverState = 'connecting' | 'listening' | 'reconnecting';

/** How many of the received requests the page keeps (newest first). */
const KEPT = 50;

function isReceived(value: unknown): value is ReceivedRequest {
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

/** The `data:` of each whole block of `buffer` (blocks without data left out), and what is left of it. */
function takeBlocks(buffer: string): { data: string[]; rest: string } {
  const data: string[] = [];
  let rest = buffer;
  let end: number;
  while ((end = rest.indexOf('\n\n')) >= 0) {
    const block = rest
      .slice(0, end)
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    rest = rest.slice(end + 2);
    if (block) data.push(block);
  }
  return { data, rest };
}

/** Reads the receiver's stream until it ends (or fails), each request it sends to `onRequest`. */
async function readReceiver(
  path: string,
  token: string,
  signal: AbortSignal,
  on: { listening: () => void; request: (request: ReceivedRequest) => void },
): Promise<void> {
  const response = await fetch(path, {
    headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
    signal,
    cache: 'no-store',
  });
  if (!response.ok || !response.body) throw new Error(`receiver stream: HTTP ${response.status}`);
  on.listening();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const { data, rest } = takeBlocks(buffer + value);
    buffer = rest;
    for (const block of data) {
      const parsed: unknown = JSON.parse(block);
      if (isReceived(parsed)) on.request(parsed);
    }
  }
}

export function useReceiver(session: Session, endpoint: Schemas['WebhookEndpoint']) {
  const account = session.account.id;
  const id = endpoint.url.slice(receiverPrefix(account).length);
  const [requests, setRequests] = useState<ReceivedRequest[]>([]);
  const [state, setState] = useState<ReceiverState>('connecting');

  useEffect(() => {
    const abort = new AbortController();
    const path = `/console/receiver/${encodeURIComponent(account)}/${encodeURIComponent(id)}/stream`;
    const run = async () => {
      while (!abort.signal.aborted) {
        try {
          await readReceiver(path, session.token, abort.signal, {
            listening: () => {
              setState('listening');
              setRequests([]); // the stream sends every kept request first
            },
            request: (request) => setRequests((list) => [request, ...list].slice(0, KEPT)),
          });
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

  return { requests, state };
}
