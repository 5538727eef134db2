// What the edge and the gateway answer before a request reaches the API (Part A, Authentication and Limits):
// - more than EDGE_IP_LIMIT_PER_MINUTE calls in a minute from one client, over all accounts → 403 with no body.
//   A client is an IPv4 address, or an IPv6 /64: one subscriber is handed a whole /64 and picks any address in
//   it, so counting IPv6 per address would give anyone with a /64 no limit (issue 33). An IPv4-mapped IPv6
//   address (::ffff:a.b.c.d, as a dual-stack socket reports an IPv4 caller) counts as its IPv4 address;
// - more than GLOBAL_RPS_CEILING calls in a second over the whole API → 429 with no body and no Retry-After;
// - more than CHANNEL_WEBHOOK_RPS_CEILING of Meta's webhook posts (/channels/…) in a second → 429 too, counted apart:
//   a number at Meta's 1,000 messages a second does not take the partners' API budget, nor they its.
// Both run before authentication, so a flood of bad keys is stopped too.
//
// They count in this process's memory, not in the database: they exist to shield the servers and the
// database, and a database write per call before authentication (one hot row for the ceiling) would defeat
// that. With several processes behind a load balancer each one enforces the numbers on the calls it receives;
// the balancer in front is where a fleet-wide edge rule belongs.
import type { RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import type { AppContext } from './context.js';

/** Probes of the operators are never refused: an instance under load must still report its health. */
const exempt = /^\/(healthz|readyz|metrics)(\/|$)/;
/** Meta posts a number's webhooks from a few addresses, up to 1,000 a second: a ceiling of their own counts them. */
const noClientLimit = /^\/channels\//;

/**
 * The key the edge counts a caller's address under: an IPv4 address as itself (in its dotted form, whatever
 * form it came in), an IPv4-mapped IPv6 address as its IPv4 address, any other IPv6 address as its /64
 * (`2001:db8:1:2::/64`). Text that is no address (a proxy's odd X-Forwarded-For) is its own key.
 */
export function edgeClientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  // process(): an IPv4-mapped IPv6 address comes back as its IPv4 address.
  const ip = ipaddr.process(address);
  if (ip instanceof ipaddr.IPv4) return ip.toString();
  const prefix = new ipaddr.IPv6([...ip.parts.slice(0, 4), 0, 0, 0, 0]);
  return `${prefix.toString()}/64`;
}

export function edgeGuard(ctx: AppContext): RequestHandler {
  const perClient = new Map<string, number>();
  let minute = -1;
  const api = new SecondCount();
  const channelWebhooks = new SecondCount();

  const trustsProxy = ctx.config.trustProxy > 0;
  // The key of each address seen this minute: parsing an address each request cost more than counting it.
  const keyOf = new Map<string, string>();

  return (req, res, next) => {
    if (exempt.test(req.path)) return next();
    const now = ctx.clock.now().getTime();

    // Fixed minute windows: the whole map is dropped when the minute turns, which also bounds its size.
    const thisMinute = Math.floor(now / 60_000);
    if (thisMinute !== minute) {
      minute = thisMinute;
      perClient.clear();
      keyOf.clear();
    }
    // req.ip follows Express's `trust proxy`: behind a balancer it must be set, or the balancer is the one IP.
    // With no proxy trusted it is the socket's address, read here without Express parsing X-Forwarded-For.
    const address = (trustsProxy ? req.ip : req.socket.remoteAddress) ?? 'unknown';
    let client = keyOf.get(address);
    if (client === undefined) {
      client = edgeClientKey(address);
      keyOf.set(address, client);
    }
    const calls = (perClient.get(client) ?? 0) + 1;
    perClient.set(client, calls);
    if (calls > ctx.config.edgeIpLimitPerMinute && !noClientLimit.test(req.path)) {
      res.status(403).end();
      return;
    }

    const over = noClientLimit.test(req.path)
      ? channelWebhooks.add(now) > ctx.config.channelWebhookRpsCeiling
      : api.add(now) > ctx.config.globalRpsCeiling;
    if (over) {
      res.status(429).end();
      return;
    }
    next();
  };
}

/** Calls in the current one-second window (fixed windows). */
class SecondCount {
  private second = -1;
  private count = 0;

  /** Counts one call at `now` (ms); returns the calls of its second so far. */
  add(now: number): number {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.count = 0;
    }
    return ++this.count;
  }
}
