// `npm run bench:profile`: where the server's CPU goes under load. Starts the HTTP bench server (scripts/bench/
// http.ts in child mode: the real app, production settings, the account limit counted but never refusing) with
// V8's sampling profiler, loads one route with autocannon (10 connections, 10 s after 5 s of warm-up), stops it
// and prints the busy time by where it was spent: each dependency, the project's own files, V8's garbage
// collector and the engine's internals. Embedded PGlite by default; with DATABASE_URL, PostgreSQL.
//   --route /v1/me (default) | '/v1/contacts?limit=50' (the bench account holds 60 contacts)   --duration 10
//   --connections 10   --save FILE (the .cpuprofile too, for Chrome's DevTools or /tmp/prof-*.mjs)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { argInt, argValue, root } from './common.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The part of the program a sample was in: a package, a project folder, or V8's own bucket. */
function placeOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node core';
  const own = /\/(server|scripts|generated)\/(.*)$/.exec(url);
  if (own) return `${own[1]}/${own[2]!.split('/')[0]}`;
  return url;
}

async function main(): Promise<void> {
  const route = argValue('route') ?? '/v1/me';
  const duration = argInt('duration', 10);
  const connections = argInt('connections', 10);
  const dir = mkdtempSync(join(tmpdir(), 'ep-profile-'));
  const base = process.env.DATABASE_URL;
  let scratch: string | undefined;
  if (base) {
    scratch = `ep_profile_${process.pid}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${scratch}`);
    await admin.end();
  }
  const url = base ? Object.assign(new URL(base), { pathname: `/${scratch}` }).toString() : undefined;
  const { DATABASE_URL: _base, ...childEnv }: NodeJS.ProcessEnv = {
    ...process.env,
    ...(url ? { DATABASE_URL: url } : {}),
  };
  if (url) childEnv.DATABASE_URL = url;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/http.ts', '--serve'], {
    cwd: root,
    env: { ...childEnv, APP_ENV: 'development', RESPONSE_VALIDATION: 'false', DATA_DIR: dir },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const ready = await new Promise<{ url: string; apiKey: string }>((ok) =>
      child.once('message', (m) => ok(m as never)),
    );
    const load = (seconds: number) =>
      autocannon({
        url: ready.url + route,
        connections,
        duration: seconds,
        headers: { Authorization: `Bearer ${ready.apiKey}` },
      });
    await load(5);
    const reply = <T>(field: string) =>
      new Promise<T>((ok) => {
        const on = (m: Record<string, unknown>) => {
          if (!(field in m)) return;
          child.off('message', on);
          ok(m[field] as T);
        };
        child.on('message', on);
      });
    const started = reply<boolean>('profiling');
    child.send({ profile: 'start' });
    await started;
    const result = await load(duration);
    const stopped = reply<Profile>('profile');
    child.send({ profile: 'stop' });
    const profile = await stopped;
    const save = argValue('save');
    if (save) writeFileSync(save, JSON.stringify(profile));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const places = new Map<string, number>();
    const functions = new Map<string, number>();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const node = byId.get(id)!;
      const us = profile.timeDeltas[i] ?? 0;
      const place = placeOf(node);
      if (place === '(idle)') return;
      total += us;
      places.set(place, (places.get(place) ?? 0) + us);
      const line = place.startsWith('server/')
        ? `${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber + 1}`
        : place;
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${line}`;
      functions.set(fn, (functions.get(fn) ?? 0) + us);
    });
    const engine = url ? 'PostgreSQL' : 'embedded PGlite';
    console.log(
      `\nCPU profile of GET ${route} on ${engine}, ${duration} s under load (${connections} connections): ` +
        `${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms; the server was busy ` +
        `${((total / 1e6 / duration) * 100).toFixed(0)}% of one core, ${(total / result.requests.total).toFixed(0)} µs ` +
        `a request.\n`,
    );
    const top = (m: Map<string, number>, n: number) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `  ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
        .join('\n');
    console.log(`Busy time by place:\n${top(places, 18)}\n\nBusiest functions (self time):\n${top(functions, 25)}`);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    if (base && scratch) {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`drop database if exists ${scratch} with (force)`);
      await admin.end();
    }
  }
}

await main();
