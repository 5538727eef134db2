// GET /metrics with WEB_CONCURRENCY=2 (issue 33): the server as `npm start` runs it, two server processes on one
// PostgreSQL; whichever process takes the scrape answers the counters summed over both (the primary gathers them,
// server/http/cluster-metrics.ts) and the jobs' gauges read once. PostgreSQL only (a cluster needs it).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startNpmStart } from './npm-start.js';

/** Polls `probe` until it gives a value (or fails with the server's output). */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, output: () => string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** The value of the series `name{labels}` in a Prometheus text answer, or undefined. */
function series(text: string, name: string, labels: string): number | undefined {
  const escaped = `${name}{${labels}}`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

describe.runIf(process.env.DATABASE_URL)('/metrics with WEB_CONCURRENCY=2', () => {
  it('answers the counters summed over both server processes and the jobs gauges counted once', async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const name = `ep_test_metrics_${randomBytes(4).toString('hex')}`;
    await admin.query(`create database ${name}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'ep-metrics-'));
    const server = startNpmStart({ DATABASE_URL: url.toString(), DATA_DIR: dataDir, WEB_CONCURRENCY: '2' });
    const db = new pg.Client({ connectionString: url.toString() });
    try {
      const baseUrl = await until(
        'the banner',
        () => /listening on (http:\/\/\S+)/.exec(server.output())?.[1],
        server.output,
      );
      const apiKey = /demo API key \(every scope\): (\S+)/.exec(server.output())![1]!;
      // The banner comes with the first process; the second may still be starting (a loaded machine).
      await until(
        'both server processes listening',
        () => (server.output().includes('"serving":2') ? true : undefined),
        server.output,
      );

      // Jobs of a kind no process runs, in each state (on the database's clock, which the server's follows).
      await db.connect();
      await db.query(`
        insert into jobs (kind, account_id, payload, run_at, created_at, locked_by, locked_until, attempts,
                          waiting_for, wait_until, failed_at)
        values ('metrics.test', null, '{}', now() - interval '1 minute', now(), null, null, 0, null, null, null),
               ('metrics.test', null, '{}', now() - interval '1 minute', now(), null, null, 0, null, null, null),
               ('metrics.test', null, '{}', now() - interval '1 minute', now(), null, null, 0, 'slot:x', now() + interval '1 hour', null),
               ('metrics.test', null, '{}', now() - interval '1 minute', now(), null, null, 10, null, null, now()),
               ('metrics.test', null, '{}', now() - interval '1 minute', now(), null, null, 10, null, null, now()),
               ('metrics.test', null, '{}', now() - interval '1 minute', now(), null, null, 10, null, null, now()),
               ('metrics.test', null, '{}', now() + interval '1 hour', now(), null, null, 0, null, null, null)`);

      // 60 reads at once, on fresh connections: the two processes share them.
      const answers = await Promise.all(
        Array.from({ length: 60 }, () =>
          fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${apiKey}`, Connection: 'close' } }).then(
            (r) => r.status,
          ),
        ),
      );
      expect(answers.every((s) => s === 200)).toBe(true);
      const pids = await until(
        'the request log of both processes',
        () => {
          const lines = server
            .output()
            .split('\n')
            .filter((line) => line.includes('"route":"/v1/me"'));
          return lines.length === 60 ? new Set(lines.map((l) => (JSON.parse(l) as { pid: number }).pid)) : undefined;
        },
        server.output,
      );
      expect(pids.size).toBe(2);

      // Every scrape, whichever process takes it, counts the 60 (each process alone answered fewer).
      const route = 'method="GET",route="/v1/me",status="200"';
      for (let scrape = 0; scrape < 4; scrape++) {
        const text = await until(
          'the jobs gauges to settle',
          async () => {
            const res = await fetch(`${baseUrl}/metrics`, { headers: { Connection: 'close' } });
            const body = await res.text();
            // Jobs the service runs itself (the hourly retention job at start) may be due a moment.
            return series(body, 'jobs', 'state="due"') === 2 ? body : undefined;
          },
          server.output,
        );
        expect(series(text, 'http_requests_total', route)).toBe(60);
        expect(series(text, 'http_request_duration_seconds_count', route)).toBe(60);
        expect(['parked', 'failed', 'running'].map((state) => series(text, 'jobs', `state="${state}"`))).toEqual([
          1, 3, 0,
        ]);
        expect(series(text, 'webhook_delivery_outcomes_total', 'outcome="succeeded"')).toBe(0);
        expect(text).toContain('nodejs_eventloop_lag_seconds');
      }
    } finally {
      server.child.kill('SIGTERM');
      const code = await server.exited;
      await db.end().catch(() => undefined);
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
      expect(code).toBe(0);
    }
  }, 90_000);
});
