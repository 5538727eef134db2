// Operations view of the HTTP pipeline: one JSON log line per request and Prometheus metrics by route
// template, method and status.
//
// What a line holds is chosen field by field (method, route template, status, duration, request id, account
// id): never the raw URL, a header or a body, so a key, a secret or a message text cannot reach the logs.
// Labels use the route template (`/v1/contacts/{contactId}`), never the path, so the metric series stay few.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Route label of a request no operation matched (404): one series, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

// Process metrics (CPU, memory, event loop, GC) are per process: registered once, whatever the number of
// apps a process builds (the tests build many).
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface Observability {
  /** Logs and measures every request that passes it; mount it before the public pipeline. */
  middleware: RequestHandler;
  /** GET /metrics in the Prometheus text format. */
  metrics: RequestHandler;
}

export function createObservability(logger: Logger): Observability {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by method, route template and status.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const middleware = (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // What the pipeline (app.ts, context.ts `Locals`) has left in res.locals by now.
      const locals = res.locals;
      const route = locals.route ?? locals.operation?.path ?? UNMATCHED_ROUTE;
      // A client that hung up before the answer: logged with the status the answer would have had.
      const aborted = !res.writableFinished;
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, seconds);
      const line = {
        request_id: locals.requestId,
        method: req.method,
        route,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        account_id: locals.caller?.account.id ?? null,
        ...(aborted ? { aborted: true } : {}),
      };
      if (res.statusCode >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };

  const metrics = (_req: Request, res: Response, next: NextFunction) => {
    Promise.all([processMetrics().metrics(), registry.metrics()])
      .then(([process, http]) => {
        res.setHeader('Content-Type', registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.status(200).send(`${process}\n${http}`);
      })
      .catch(next);
  };

  return { middleware, metrics };
}
