// A webhook receiver for your machine (node:http, no framework): it reads the raw body, checks
// `Service-Signature` with the client's verifier, drops repeats by event id, answers 2xx at once and then
// prints the event. It can be told to fail (answer 500) to watch the retries, and to accept several secrets
// while a rotation is under way.
//
//   WEBHOOK_SECRET=whsec_… npm run webhook-receiver             # listens on http://127.0.0.1:4242/webhooks
//   WEBHOOK_SECRET=whsec_old,whsec_new PORT=4343 npm run webhook-receiver
//
// Then type on its terminal: `fail` (answer 500 from now on), `ok` (answer 2xx again), `secrets whsec_a,whsec_b`
// (the secrets accepted from now on), `offset <seconds>` (how far the sandbox clock was advanced: `t` is checked
// against this machine's clock plus that, within 5 minutes). The server must allow local receivers
// (WEBHOOK_DEV_TARGETS, on by default with `npm start`). examples/webhooks-walkthrough.ts drives one in-process.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { checkWebhookSignature, parseSignatureHeader, type WebhookSignatureFailure } from '../client/webhooks.js';

/** A body larger than this is refused (413) without reading on. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Every request the receiver got, in order of arrival. */
export interface ReceivedRequest {
  /** `Service-Event-Id`, `Service-Event-Type` and `Service-Delivery-Attempt` (attempt 0 when absent). */
  eventId: string;
  type: string;
  attempt: number;
  /** What the receiver answered: 200 (new), 200 (repeat), 400 (signature refused), 500 (told to fail). */
  status: number;
  outcome: 'accepted' | 'repeat' | 'refused' | 'failing';
  /** Why the signature was refused (outcome `refused`). */
  reason?: WebhookSignatureFailure | 'bad_request';
  /** The `Service-Signature` header and how many `v1` values it carries. */
  signature: string;
  v1Count: number;
  /** The receiver's secrets that each verify the signature alone (both during a rotation's overlap). */
  verifiedWith: string[];
  /** The raw body as received. */
  body: string;
}

/** The envelope of an accepted event (Part C): `data` is the resource as the API returns it. */
export interface ReceivedEvent {
  id: string;
  type: string;
  api_version: string;
  created_at: string;
  data: unknown;
  /** The attempt that brought it first. */
  attempt: number;
}

/** What a program (the walkthrough, a test) controls on a running receiver. */
export interface ReceiverControls {
  readonly requests: readonly ReceivedRequest[];
  /** The first arrival of each event id, accepted (repeats are answered 200 and not added). */
  readonly events: readonly ReceivedEvent[];
  /** True: answer every delivery 500 (nothing is recorded as received). */
  setFailing(failing: boolean): void;
  /** The secrets accepted from now on (one is enough; two during a rotation). */
  setSecrets(secrets: readonly string[]): void;
  /**
   * How far the service's clock is ahead of this machine's (the sandbox clock can be advanced): signature
   * timestamps are checked against this machine's time plus this, with the usual 5-minute tolerance.
   */
  setClockOffset(ms: number): void;
}

export interface WebhookReceiver extends ReceiverControls {
  /** The URL to register: `http://127.0.0.1:<port>/webhooks`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Default 0: a free port. */
  port?: number;
  host?: string;
  secrets: readonly string[];
  failing?: boolean;
  /** Where each line goes; default console.log. */
  log?: (line: string) => void;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        ok(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => ok(Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

const header = (req: IncomingMessage, name: string): string => {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

export async function startReceiver(options: ReceiverOptions): Promise<WebhookReceiver> {
  let secrets = [...options.secrets];
  let failing = options.failing ?? false;
  let clockOffsetMs = 0;
  const log = options.log ?? ((line: string) => console.log(line));
  const requests: ReceivedRequest[] = [];
  const events: ReceivedEvent[] = [];
  // Processed event ids. A real receiver keeps them at least 7 days, in its database.
  const seen = new Set<string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number) => {
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json');
      res.end(status < 300 ? '{"ok":true}' : '{"ok":false}');
    };
    if (req.method !== 'POST') return answer(405);
    // 1. The raw bytes, before any JSON parsing: the signature covers them exactly.
    const raw = await readBody(req);
    if (!raw) return answer(413);
    const signature = header(req, 'service-signature');
    const record: ReceivedRequest = {
      eventId: header(req, 'service-event-id'),
      type: header(req, 'service-event-type'),
      attempt: Number(header(req, 'service-delivery-attempt')) || 0,
      status: 0,
      outcome: 'refused',
      signature,
      v1Count: parseSignatureHeader(signature)?.signatures.length ?? 0,
      verifiedWith: [],
      body: raw.toString('utf8'),
    };
    requests.push(record);
    const finish = (status: number, outcome: ReceivedRequest['outcome'], note = '') => {
      record.status = status;
      record.outcome = outcome;
      answer(status);
      log(`${status} ${outcome.padEnd(8)} ${record.type} ${record.eventId} attempt ${record.attempt}${note}`);
    };
    // Told to fail: the service keeps the delivery pending and tries again on its schedule.
    if (failing) return finish(500, 'failing');

    // 2. The signature, with every secret accepted now (the old and the new one during a rotation).
    const now = new Date(Date.now() + clockOffsetMs);
    let failure: WebhookSignatureFailure = 'signature_mismatch';
    for (const secret of secrets) {
      const check = checkWebhookSignature({ payload: raw, header: signature, secret, now });
      if (check.ok) record.verifiedWith.push(secret);
      else failure = check.reason;
    }
    if (record.verifiedWith.length === 0) {
      record.reason = failure;
      return finish(400, 'refused', ` (${failure})`);
    }

    // 3. Parse only now. The body's id is the one that counts (the header repeats it).
    let envelope: Omit<ReceivedEvent, 'attempt'>;
    try {
      envelope = JSON.parse(record.body) as Omit<ReceivedEvent, 'attempt'>;
      if (typeof envelope.id !== 'string' || typeof envelope.type !== 'string') throw new Error('not an event');
    } catch {
      record.reason = 'bad_request';
      return finish(400, 'refused', ' (not an event)');
    }

    // 4. At least once: a repeat (a resend, or an attempt whose answer was lost) is answered 2xx and dropped.
    if (seen.has(envelope.id)) return finish(200, 'repeat');
    seen.add(envelope.id);
    // 5. Answer at once; the processing (here: keeping and printing the event) comes after the answer.
    finish(200, 'accepted', record.v1Count > 1 ? ` (${record.v1Count} v1 signatures)` : '');
    events.push({ ...envelope, attempt: record.attempt });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    port,
    requests,
    events,
    setFailing(value) {
      failing = value;
    },
    setSecrets(value) {
      secrets = [...value];
    },
    setClockOffset(ms) {
      clockOffsetMs = ms;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

const splitSecrets = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secrets = splitSecrets(process.env.WEBHOOK_SECRET ?? '');
  if (secrets.length === 0) {
    console.error('Set WEBHOOK_SECRET to the endpoint secret (whsec_…); during a rotation, old,new.');
    process.exit(2);
  }
  const receiver = await startReceiver({
    port: Number(process.env.PORT ?? 4242),
    secrets,
    failing: process.env.WEBHOOK_FAIL === 'true',
  });
  console.log(`receiving on ${receiver.url} with ${secrets.length} secret(s)`);
  console.log('type `fail` (answer 500), `ok` (answer 2xx), `secrets whsec_a,whsec_b`; Ctrl-C to stop');
  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    const [command, arg = ''] = line.trim().split(/\s+/, 2);
    if (command === 'fail' || command === 'ok') {
      receiver.setFailing(command === 'fail');
      console.log(command === 'fail' ? 'answering 500 from now on' : 'answering 2xx again');
    } else if (command === 'offset' && Number.isFinite(Number(arg))) {
      receiver.setClockOffset(Number(arg) * 1000);
      console.log(`checking signature times against this clock + ${Number(arg)} s`);
    } else if (command === 'secrets' && splitSecrets(arg).length > 0) {
      receiver.setSecrets(splitSecrets(arg));
      console.log(`accepting ${splitSecrets(arg).length} secret(s)`);
    } else if (command) console.log('commands: fail, ok, secrets whsec_a[,whsec_b], offset <seconds>');
  });
  process.on('SIGINT', () => {
    input.close();
    void receiver.close().then(() => process.exit(0));
  });
}
