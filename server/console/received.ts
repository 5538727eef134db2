// What the console's built-in webhook receiver keeps of one request and pushes to the page
// (server/http/console-receiver.ts): the one shape the server writes and the page reads
// (console/hooks/use-receiver.ts, shown by console/panes/webhooks.tsx).
// The receiver keeps only the requests an endpoint of its account verifies (issue 33): `verified` is true,
// `failure` null and `body` the raw body in what it keeps today; the fields stay so the page reads one shape.
export interface ReceivedRequest {
  /** 1, 2, … per receiver. */
  seq: number;
  received_at: string;
  /** The request's headers as received (names in lower case). */
  headers: [string, string][];
  /** The raw body as text; null when it was larger than MAX_BODY_BYTES. */
  body: string | null;
  size: number;
  /** Verified with the secret of `webhook_id`; else why not. */
  verified: boolean;
  webhook_id: string | null;
  failure: string | null;
  /** What the receiver answered. */
  status: number;
}
