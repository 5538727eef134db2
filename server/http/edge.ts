// What the edge and the gateway answer before a request reaches the API (Part A, Authentication and Limits):
// - more than EDGE_IP_LIMIT_PER_MINUTE calls in a minute from one IP, over all accounts → 403 with no body;
// - more than GLOBAL_RPS_CEILING calls in a second over the whole API → 429 with no body and no Retry-After.
// Both run before authentication, so a flood of bad keys is stopped too.
//
// They count in this process's memory, not in the database: they exist to shield the servers and the
// database, and a database write per call before authentication (one hot row for the ceiling) would defeat
// that. With several processes behind a load balancer each one enforces the numbers on the calls it receives;
// the balancer in front is where a fleet-wide edge rule belongs.
import type { RequestHandler } from 'express';
import type { AppContext } from './context.js';

/** Probes of the operators are never refused: an instance under load must still report its health. */
const exempt = /^\/(healthz|readyz|metrics)(\/|$)/;

export function edgeGuard(ctx: AppContext): RequestHandler {
  const perIp = new Map<string, number>();
  let minute = -1;
  let second = -1;
  let inSecond = 0;

  return (req, res, next) => {
    if (exempt.test(req.path)) return next();
    const now = ctx.clock.now().getTime();

    // Fixed minute windows: the whole map is dropped when the minute turns, which also bounds its size.
    const thisMinute = Math.floor(now / 60_000);
    if (thisMinute !== minute) {
      minute = thisMinute;
      perIp.clear();
    }
    // req.ip follows Express's `trust proxy`: behind a balancer it must be set, or the balancer is the one IP.
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const calls = (perIp.get(ip) ?? 0) + 1;
    perIp.set(ip, calls);
    if (calls > ctx.config.edgeIpLimitPerMinute) {
      res.status(403).end();
      return;
    }

    const thisSecond = Math.floor(now / 1000);
    if (thisSecond !== second) {
      second = thisSecond;
      inSecond = 0;
    }
    inSecond += 1;
    if (inSecond > ctx.config.globalRpsCeiling) {
      res.status(429).end();
      return;
    }
    next();
  };
}
