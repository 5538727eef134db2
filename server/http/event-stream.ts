// GET /admin/v1/accounts/{accountId}/event-stream: the account's events as server-sent events, on a response
// that stays open (what the console page shows live). Each event is the envelope a webhook endpoint would get.
//
// Pushed, not polled: recording events notifies EVENTS_CHANNEL at the commit of their transaction, and each
// open stream then reads the account's events after the last one it sent. Without LISTEN (a database handle
// that has none), a stream looks every second instead.
//
// Webhook deliveries change without an event (an attempt's outcome, a retry scheduled, a resend): each change
// notifies DELIVERIES_CHANGED_CHANNEL with `<account>:<delivery>` at its commit, and the stream of that account
// pushes the delivery as `event: webhook_delivery.updated` with no `id` (not an event: the position does not
// move). A lost notification (the listening connection dropped) is told as `data: {}`: read the list again.
//
// The stream outlives its request's deadline: its reads run outside the request's context (the deadline would
// refuse them), and a stopping server ends every open stream first (endEventStreams) so its drain does not wait
// for them.
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { getAccount } from '../domain/accounts/accounts.js';
import { ApiError } from '../errors.js';
import { EVENTS_CHANNEL, feedAfter, feedStart } from '../domain/events/feed.js';
import { deliveryOfAccount } from '../domain/webhooks/deliveries-log.js';
import { DELIVERIES_CHANGED_CHANNEL } from '../store/webhook-deliveries.js';
import { requestContext } from '../request-context.js';
import { publicBaseUrl } from './base-url.js';
import type { AppContext } from './context.js';

/** A comment line this often keeps idle proxies from closing the connection. */
const KEEP_ALIVE_MS = 15_000;
/** Events read per query. */
const PAGE = 100;
/**
 * Sequences are taken at insert and transactions may commit out of that order: each read looks this far back
 * and skips what it sent, so an event committed a little after a later one is not lost.
 */
const LOOK_BACK = 100n;

/**
 * Streams an account may hold open at once in this process: each open stream reads the database at every event
 * of its account, so more would multiply the reads of one burst (a page opened in many tabs, a client in a loop).
 */
export const MAX_STREAMS_PER_ACCOUNT = 10;

/** The streams open in this process, so a stopping server can end them, and the limit count them. */
const openStreams = new Set<EventStream>();

/** Ends every open event stream (a stopping server, before it waits for its connections). */
export function endEventStreams(): number {
  const count = openStreams.size;
  for (const stream of [...openStreams]) stream.end();
  return count;
}

const SEQUENCE = /^[0-9]{1,18}$/;

/** The stream's message for a changed webhook delivery (not an event type: no `id`). */
export const DELIVERY_UPDATED = 'webhook_delivery.updated';

export async function streamAccountEvents(app: AppContext, req: Request, res: Response, accountId: string) {
  await getAccount(app.database.db, accountId); // 404 not_found before the stream opens
  const fromQuery = typeof req.query.after === 'string' ? req.query.after : undefined;
  const fromHeader = req.get('Last-Event-ID');
  const given = fromQuery ?? (fromHeader && SEQUENCE.test(fromHeader) ? fromHeader : undefined);
  const baseUrl = publicBaseUrl(app, req);
  const logger = app.logger.child({ route: 'event-stream', account_id: accountId });
  // Outside the request's context from here: its deadline must not refuse the reads of a long-lived stream.
  await requestContext.exit(async () => {
    const floor = given !== undefined ? BigInt(given) : await feedStart(app.database.db, accountId);
    const stream = new EventStream(app, res, { accountId, floor, baseUrl, logger });
    await stream.open();
  });
}

class EventStream {
  /** The highest sequence sent (or the floor: nothing at or before it is sent). */
  private last: bigint;
  /** The sequences sent that a look back may read again. */
  private readonly sent = new Set<bigint>();
  private closed = false;
  private reading = false;
  private again = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private unlisten: (() => Promise<void>) | undefined;
  private unlistenDeliveries: (() => Promise<void>) | undefined;
  /** Deliveries changed and not pushed yet (a burst of changes to one is pushed once, as it is then). */
  private readonly changed = new Set<string>();
  private pushing = false;

  constructor(
    private readonly app: AppContext,
    private readonly res: Response,
    private readonly at: { accountId: string; floor: bigint; baseUrl: string; logger: Logger },
  ) {
    this.last = at.floor;
  }

  get accountId(): string {
    return this.at.accountId;
  }

  async open(): Promise<void> {
    // Counted and added with no await between, so concurrent opens cannot pass the limit together.
    const open = [...openStreams].filter((stream) => stream.accountId === this.at.accountId).length;
    if (open >= MAX_STREAMS_PER_ACCOUNT)
      throw new ApiError(
        429,
        'too_many_streams',
        `This account has ${MAX_STREAMS_PER_ACCOUNT} event streams open on this server; end one first.`,
        { limit: MAX_STREAMS_PER_ACCOUNT },
      );
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    if (this.res.locals.head === true) return void this.res.end(); // HEAD: the headers only, no stream
    this.res.write(': stream open\n\n');
    openStreams.add(this);
    this.res.once('close', () => this.end());
    this.timers.push(setInterval(() => this.res.write(': keep-alive\n\n'), KEEP_ALIVE_MS));
    const { database } = this.app;
    if (database.listen) {
      this.unlisten = await database.listen(EVENTS_CHANNEL, () => void this.read());
      this.unlistenDeliveries = await database.listen(DELIVERIES_CHANGED_CHANNEL, (payload) =>
        this.deliveryChanged(payload),
      );
    } else this.timers.push(setInterval(() => void this.read(), 1000));
    if (this.closed) {
      // closed while it started listening
      await this.unlisten?.();
      await this.unlistenDeliveries?.();
    }
    await this.read(); // what was recorded before the LISTEN
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    openStreams.delete(this);
    for (const timer of this.timers) clearInterval(timer);
    for (const unlisten of [this.unlisten, this.unlistenDeliveries])
      void unlisten?.().catch((error: unknown) => this.at.logger.warn({ err: error }, 'event stream: unlisten'));
    this.res.end();
  }

  /** A delivery changed (`<account>:<delivery>`), or, without a payload, changes may have gone unheard. */
  private deliveryChanged(payload: string | undefined): void {
    if (this.closed) return;
    if (payload === undefined) return void this.res.write(`event: ${DELIVERY_UPDATED}\ndata: {}\n\n`);
    const prefix = `${this.at.accountId}:`;
    if (!payload.startsWith(prefix)) return; // another account's
    this.changed.add(payload.slice(prefix.length));
    void this.pushDeliveries();
  }

  private async pushDeliveries(): Promise<void> {
    if (this.pushing) return;
    this.pushing = true;
    try {
      while (this.changed.size > 0 && !this.closed) {
        const [id] = this.changed;
        if (id === undefined) break;
        this.changed.delete(id);
        const delivery = await deliveryOfAccount(this.app.database.db, this.at.accountId, id);
        if (delivery && !this.closed)
          this.res.write(`event: ${DELIVERY_UPDATED}\ndata: ${JSON.stringify(delivery)}\n\n`);
      }
    } catch (error) {
      this.at.logger.warn({ err: error }, 'event stream: reading a delivery failed');
    } finally {
      this.pushing = false;
    }
  }

  /** Sends what is new; a call while one runs makes that one read again. */
  private async read(): Promise<void> {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.again = false;
        const { floor, accountId, baseUrl } = this.at;
        const after = this.last - LOOK_BACK > floor ? this.last - LOOK_BACK : floor;
        const limit = PAGE + this.sent.size;
        const known = (sequence: bigint) => this.sent.has(sequence);
        const page = await feedAfter(this.app.database.db, accountId, { after, limit, known }, baseUrl);
        for (const event of page.events) {
          if (this.closed) return;
          this.res.write(`id: ${event.sequence}\nevent: ${event.type}\ndata: ${event.body}\n\n`);
          this.sent.add(event.sequence);
          if (event.sequence > this.last) this.last = event.sequence;
        }
        for (const sequence of this.sent) if (sequence <= this.last - LOOK_BACK) this.sent.delete(sequence);
        if (page.read >= limit) this.again = true;
      } while (this.again && !this.closed);
    } catch (error) {
      this.at.logger.warn({ err: error }, 'event stream: reading the events failed');
    } finally {
      this.reading = false;
    }
  }
}
