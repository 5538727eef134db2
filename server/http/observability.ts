// Operations view of the HTTP pipeline: one JSON log line per request and Prometheus metrics by route
// template, method and status.
//
// What a line holds is chosen field by field (method, route template, status, duration, request id, account
// id): never the raw URL, a header or a body, so a key, a secret or a message text cannot reach the logs.
// Labels use the route template (`/v1/contacts/{contactId}`), never the path, so the metric series stay few.
//
// GET /metrics answers this process's registries (the process metrics, the delivery outcomes of server/metrics.ts,
// this app's HTTP metrics) or, in a cluster (WEB_CONCURRENCY > 1), their sum over every server process, which the
// primary gathers (./cluster-metrics.ts). The jobs' gauges are read then, in one statement, by the process that
// answers: the jobs table is shared, so its counts are counted once, never once per process.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { processMetrics, serviceRegistry } from '../metrics.js';
import { countJobsByState } from '../store/jobs.js';
import { runInBackground } from '../store/priority.js';
import type { DB } from '../store/schema.js';
import { unredacted } from '../logger.js';
import { clusterMetricsOf, inCluster } from './cluster-metrics.js';

/** Route label of a request no operation matched (404): one series, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface Observability {
  /** Logs and measures every request that passes it; mount it before the public pipeline. */
  middleware: RequestHandler;
  /** GET /metrics in the Prometheus text format. */
  metrics: RequestHandler;
}

export interface ObservabilityContext {
  logger: Logger;
  /** The jobs' gauges read it at scrape time. */
  db: Kysely<DB>;
  /** What "due" means: the service's clock (the sandbox may have moved it). */
  clock: Clock;
  /** Server processes (config.webConcurrency): above 1, a server process of a cluster answers their sum. */
  webConcurrency: number;
}

/** The jobs' gauges, in a registry of their own: read once per scrape, by the process that answers it. */
function jobGauges(ctx: ObservabilityContext): Registry {
  const registry = new Registry();
  new Gauge({
    name: 'jobs',
    help: 'Jobs by state, read at scrape time: due (may run now), running (under a lease), parked (waiting for a resource), failed (gave up; kept FAILED_JOB_RETENTION_DAYS).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        // A scrape yields the database to the API's requests, as the job workers do.
        const counts = await runInBackground(() => countJobsByState(ctx.db, ctx.clock.now()));
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      } catch (error) {
        // The scrape still answers the rest; the series are missing until the database answers.
        ctx.logger.warn({ err: error }, 'the jobs gauges could not be read');
      }
    },
  });
  return registry;
}

/** A request's counter and timer in a series. */
interface RequestSeries {
  count(): void;
  observe(seconds: number): void;
}

/**
 * The request series of a method, route and status, their children kept: prom-client hashes a label object on
 * every `inc` and `observe`. Routes are templates and statuses few, so the map stays small; the bound is a guard.
 */
function requestSeries(
  requests: Counter<'method' | 'route' | 'status'>,
  duration: Histogram<'method' | 'route' | 'status'>,
): (method: string, route: string, status: string) => RequestSeries {
  const series = new Map<string, RequestSeries>();
  return (method, route, status) => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      const counted = requests.labels(method, route, status);
      const timed = duration.labels(method, route, status);
      found = { count: () => counted.inc(), observe: (seconds) => timed.observe(seconds) };
      if (series.size > 10_000) series.clear();
      series.set(key, found);
    }
    return found;
  };
}

export function createObservability(ctx: ObservabilityContext): Observability {
  // The request line's fields are chosen one by one (no header, body or URL): it skips the redaction list.
  const logger = unredacted(ctx.logger);
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

  const seriesOf = requestSeries(requests, duration);

  const middleware = (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    // 'close' follows every answer, finished or not (Node emits it after 'finish', or when the client hangs up),
    // and only once: `on` spares the wrapper `once` makes per request.
    res.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // What the pipeline (app.ts, context.ts `Locals`) has left in res.locals by now.
      const locals = res.locals;
      const route = locals.route ?? locals.operation?.path ?? UNMATCHED_ROUTE;
      // A client that hung up before the answer: logged with the status the answer would have had.
      const aborted = !res.writableFinished;
      const counted = seriesOf(req.method, route, String(res.statusCode));
      counted.count();
      counted.observe(seconds);
      const line = {
        request_id: locals.requestId,
        method: req.method,
        route,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        account_id: locals.caller?.account.id ?? null,
        aborted: aborted ? true : undefined,
      };
      if (res.statusCode >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };

  // This process's counters: alone, or summed with the other server processes' by the primary.
  const counters = [processMetrics(), serviceRegistry, registry];
  const summed =
    ctx.webConcurrency > 1 && inCluster()
      ? clusterMetricsOf(counters)
      : () => Promise.all(counters.map((r) => r.metrics())).then((texts) => texts.join('\n'));
  const gauges = jobGauges(ctx);
  const metrics = (_req: Request, res: Response, next: NextFunction) => {
    Promise.all([summed(), gauges.metrics()])
      .then(([counted, read]) => {
        res.setHeader('Content-Type', registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.status(200).send(`${counted}\n${read}`);
      })
      .catch(next);
  };

  return { middleware, metrics };
}
