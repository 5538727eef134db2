// Probes for the orchestrator, outside the public API (no key, not in the public spec):
//   GET /healthz  the process answers: 200 {status: "ok"} (liveness; never touches the database, so a slow
//                 database does not get a healthy process restarted)
//   GET /readyz   the database answers `select 1` within READY_TIMEOUT_MS: 200, else 503 (readiness: take
//                 the instance out of the load balancer until its database is back)
import express, { type Router } from 'express';
import { ping, type Database } from '../store/database.js';

export const READY_TIMEOUT_MS = 1000;

/** Resolves true when `ping` succeeds within `timeoutMs`, false when it fails or takes longer. */
export async function answersWithin(ping: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((ok) => {
    timer = setTimeout(() => ok(false), timeoutMs);
  });
  try {
    return await Promise.race([ping().then(() => true as const), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(database: Database, readyTimeoutMs = READY_TIMEOUT_MS): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res, next) => {
    answersWithin(() => ping(database), readyTimeoutMs)
      .then((ready) => {
        res.setHeader('Cache-Control', 'no-store');
        if (ready) res.status(200).json({ status: 'ok' });
        else res.status(503).json({ status: 'unavailable', checks: { database: 'no answer' } });
      })
      .catch(next);
  });
  return router;
}
