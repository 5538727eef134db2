// The account's events as they happen: GET /admin/v1/accounts/{accountId}/event-stream (server-sent events)
// read with fetch and its body's reader, since an EventSource cannot send the admin token in a header. The
// page never polls: when the stream drops it reconnects with the last event's id, so nothing is missed.

/**
 * One event of the stream: the envelope a webhook endpoint would receive. A webhook delivery that changed comes
 * as `webhook_delivery.updated` with no sequence and the delivery (or `{}`: read the list again) as `data`.
 */
export interface LiveEvent {
  sequence: string;
  id: string;
  type: string;
  created_at: string;
  data: unknown;
}

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

export interface LiveOptions {
  token: string;
  accountId: string;
  onEvent: (event: LiveEvent) => void;
  onStatus: (status: LiveStatus) => void;
  /** Start after this sequence (the events since then come first), instead of with the next event. */
  after?: string;
}

/** Opens the stream; the function it returns closes it. */
export function followEvents(options: LiveOptions): () => void {
  const abort = new AbortController();
  let after = options.after;
  const run = async () => {
    while (!abort.signal.aborted) {
      try {
        await readStream(options, after, abort.signal, (sequence) => (after = sequence));
      } catch {
        // Dropped (server restart, network): try again shortly, from the last event received.
      }
      if (abort.signal.aborted) return;
      options.onStatus('reconnecting');
      await new Promise((ok) => setTimeout(ok, 1000));
    }
  };
  options.onStatus('connecting');
  void run();
  return () => abort.abort();
}

async function readStream(
  options: LiveOptions,
  after: string | undefined,
  signal: AbortSignal,
  seen: (sequence: string) => void,
): Promise<void> {
  const query = after ? `?after=${encodeURIComponent(after)}` : '';
  const url = `/admin/v1/accounts/${encodeURIComponent(options.accountId)}/event-stream${query}`;
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${options.token}`, Accept: 'text/event-stream' },
    signal,
    cache: 'no-store',
  });
  if (!response.ok || !response.body) throw new Error(`event stream: HTTP ${response.status}`);
  options.onStatus('live');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseBlock(block);
      if (event) {
        if (event.sequence) seen(event.sequence);
        options.onEvent(event);
      }
    }
  }
}

/** One `id:`/`event:`/`data:` block; comments (`: keep-alive`) and blocks without data give nothing. */
function parseBlock(block: string): LiveEvent | undefined {
  let sequence = '';
  let name = '';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) sequence = line.slice(3).trim();
    else if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return undefined;
  const envelope: unknown = JSON.parse(data.join('\n'));
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  if (!sequence) return { sequence, id: '', type: name, created_at: '', data: envelope }; // not an event
  const field = (name: string) => (name in envelope ? String(Reflect.get(envelope, name)) : '');
  return {
    sequence,
    id: field('id'),
    type: field('type'),
    created_at: field('created_at'),
    data: 'data' in envelope ? envelope.data : null,
  };
}
