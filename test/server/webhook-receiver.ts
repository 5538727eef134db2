// Fixtures of the delivery tests: a webhook receiver on loopback that records every request, answers what
// `respond` says ('hold': not until `answerHeld`) and counts the requests it holds open at once; and an endpoint
// row written straight to the database (past the URL rules, which the delivery tests do not exercise).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely, Selectable } from 'kysely';
import type { DB, WebhookEndpointsTable } from '../../server/store/schema.js';
import { newWebhookSecret } from '../../server/webhooks/signing.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** Inserts an enabled endpoint of `accountId` on `url` for `types` (any column overridden by `extra`). */
export async function insertEndpoint(
  db: Kysely<DB>,
  endpoint: {
    accountId: string;
    url: string;
    types: EndpointRow['event_types'];
    now: Date;
    extra?: Partial<EndpointRow>;
  },
): Promise<EndpointRow> {
  const now = endpoint.now.toISOString();
  const row: EndpointRow = {
    id: randomUUID(),
    account_id: endpoint.accountId,
    url: endpoint.url,
    description: null,
    event_types: [...endpoint.types].sort(),
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    ...endpoint.extra,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  return row;
}

export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export class Receiver {
  readonly requests: Received[] = [];
  readonly held: ServerResponse[] = [];
  active = 0;
  maxActive = 0;
  respond: (r: Received) => number | 'hold' | Promise<number | 'hold'> = () => 200;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(r);
        this.active += 1;
        this.maxActive = Math.max(this.maxActive, this.active);
        void Promise.resolve(this.respond(r)).then((status) => {
          if (status === 'hold') {
            this.held.push(res);
            res.on('close', () => (this.active -= 1));
            return;
          }
          this.active -= 1;
          res.statusCode = status;
          res.end('{"ok":true}');
        });
      });
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  reset(respond: Receiver['respond'] = () => 200): void {
    this.requests.length = 0;
    this.held.length = 0;
    this.active = 0;
    this.maxActive = 0;
    this.respond = respond;
  }

  /** Answers up to `count` of the requests held open (the oldest first); returns how many. */
  answerHeld(count = Infinity, status = 200): number {
    let answered = 0;
    while (answered < count && this.held.length > 0) {
      const res = this.held.shift()!;
      res.statusCode = status;
      res.end('{"ok":true}');
      answered++;
    }
    return answered;
  }

  envelopes(): { id: string; type: string; api_version: string; created_at: string; data: unknown }[] {
    return this.requests.map((r) => JSON.parse(r.body) as never);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}
