// `npm run bench` (first part): requests per second and p50/p99 latency of GET /v1/me and GET /v1/contacts on
//   (a) this server with full validation (request and response validation on, as in development and tests),
//   (b) the same server with production settings (response validation off, the production default),
//   (e) the server with no validation at all (REQUEST_VALIDATION=false, benchmark only), to price validation,
// each on embedded PGlite and on PostgreSQL (--engine pglite|postgres|both, default both; PostgreSQL is
// DATABASE_URL or the local server, in a scratch database the run creates and drops), then
//   (c) the mock as `npm run mock` serves it (mock/server.ts in front of Prism),
//   (d) Prism alone (`prism mock generated/openapi.yaml`), the raw baseline,
//   (f) bare Express (its own child process, loaded in turns with (b)) answering the bodies (b) sent, from memory,
//   (g) on PostgreSQL, GET /v1/contacts only, the floor: Express and one pg pool reading (b)'s own database for the
//       same page in one hand-written statement, mapped to the view, res.json; none of Part A's per-call rules (key,
//       scope, limits, validation, request log), no ORM: what any server of that page pays, in the same rounds,
// and the goals of issue 37: (b) ÷ (f) at least 0.6 on GET /v1/me and 0.35 on GET /v1/contacts?limit=50 (an
// account of 60 contacts), with each target's CPU µs and the server's database round trips per request; and the
// goal of issue 12: (b) at least twice Prism's requests per second on both routes and engines, with a
// p99 under 15 ms. Each target runs in its own process; the load comes from autocannon in this one: 10
// connections; per target a first answer, then 8 s of load to warm it up (the validator compiles the spec at
// the first request, V8 and PGlite's WebAssembly reach full speed after several seconds of load); then per case
// 1 s of warm-up and 5 s measured. (b) and (f) run side by side and are loaded in turns, --rounds N (3) pairs per
// route, and the ratio is the median round's. Change with --connections, --target-warmup, --warmup, --duration;
// --quick runs only (b) and (f).
//
// The server cases run the real pipeline (edge guard, request id, logging to /dev/null, auth with the key
// cache, scope, the account rate limit counted as in production, validation, handler), except that the account
// limit never refuses and the edge and per-second ceilings are raised: otherwise a benchmark would measure 429s.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Express } from 'express';
import { DEFAULT_POSTGRES, engineOption, openBenchServer, scratchPostgres } from './common.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const self = fileURLToPath(import.meta.url);

interface Ready {
  url: string;
  apiKey: string;
  /** The bench account (--serve only): the floor (g) reads its contacts. */
  accountId?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Child mode: one server, started like main.ts, that tells the parent its URL and key over IPC.
// ---------------------------------------------------------------------------------------------------------
async function serve(): Promise<void> {
  const { createAccount } = await import('../../server/domain/accounts/accounts.js');
  const { createApiKey, SCOPES } = await import('../../server/domain/accounts/keys.js');
  const { keyActor } = await import('../../server/domain/accounts/actor.js');
  const { createConnection } = await import('../../server/domain/console/connections.js');
  const { createCustomField } = await import('../../server/domain/console/custom-fields.js');
  const { createOrUpdateWhatsappContact } = await import('../../server/domain/contacts/contacts.js');
  const { createTag } = await import('../../server/domain/tags/tags.js');
  // The app as every bench serves it (common.ts): edge and per-second ceilings raised, the account rate limit
  // counted but never refusing, stopped on SIGTERM or when the parent goes.
  const server = await openBenchServer();
  const account = await createAccount(server.db, server.clock, {
    name: 'Bench',
    alias: `bench-${randomBytes(4).toString('hex')}`,
  });
  const { key, secret } = await createApiKey(server.db, server.clock, {
    accountId: account.id,
    name: 'bench key',
    scopes: SCOPES,
    validityDays: 30,
  });
  // The contacts the page of GET /v1/contacts?limit=50 shows, through POST /v1/contacts's own function: one
  // in three holds a tag or two, one in four a custom-field value, as a real account's contacts do.
  const connection = await createConnection(server.db, server.clock, account.id, {
    channel: 'whatsapp',
    name: 'Atendimento',
    phone: '+5511930001234',
  });
  const tags = [];
  for (const name of ['cliente', 'lead', 'vip']) tags.push(await createTag(server.db, server.clock, account.id, name));
  const city = await createCustomField(server.db, server.clock, account.id, { label: 'Cidade', type: 'text' });
  for (let i = 0; i < CONTACTS; i++)
    await createOrUpdateWhatsappContact(
      server.db,
      server.clock,
      account.id,
      {
        phone: `+55119${String(40_000_000 + i).padStart(8, '0')}`,
        name: `Contato ${i}`,
        connection_id: connection.id,
        consent: true,
        tag_ids: i % 3 === 0 ? tags.slice(0, 1 + (i % 2)).map((t) => t.id) : [],
        custom_fields: i % 4 === 0 ? [{ field_id: city.id, value: 'São Paulo' }] : [],
      },
      keyActor(key),
    );
  await server.listen((url): Ready => ({ url, apiKey: secret, accountId: account.id }));
}

/** Contacts seeded in the server's account: more than the page of 50 the bench reads. */
const CONTACTS = 60;

// ---------------------------------------------------------------------------------------------------------
// Bare mode: Express alone, answering the bodies the server answered (the parent hands them over IPC), held in
// memory and serialised per request as the server's res.json does: what any Express app pays, no database.
// ---------------------------------------------------------------------------------------------------------
async function serveBare(): Promise<void> {
  const { default: express } = await import('express');
  const bodies = await new Promise<Record<string, unknown>>((ok) =>
    process.once('message', (m) => ok(m as Record<string, unknown>)),
  );
  const app = bareApp(express);
  for (const [path, body] of Object.entries(bodies)) app.get(path, (_req, res) => void res.json(body));
  serveForParent(app);
}

/** An Express app as bare as (f) and (g) are, with the process's CPU time in the server's /metrics form. */
function bareApp(express: () => Express): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/metrics', (_req, res) => {
    const { user, system } = process.cpuUsage();
    res.type('text/plain').send(`process_cpu_seconds_total ${(user + system) / 1e6}\n`);
  });
  return app;
}

/** Listens on loopback, tells the parent its URL, stops when the parent goes or says so. */
function serveForParent(app: Express, stopping: () => Promise<void> = async () => {}): void {
  const listening = app.listen(0, '127.0.0.1', () => {
    const { port } = listening.address() as AddressInfo;
    process.send!({ url: `http://127.0.0.1:${port}`, apiKey: 'none' } satisfies Ready);
  });
  const stop = () => {
    listening.closeAllConnections();
    listening.close(() => void stopping().finally(() => process.exit(0)));
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {});
}

// ---------------------------------------------------------------------------------------------------------
// Floor mode (g): GET /v1/contacts?limit=50 with the least a server does, on the database of (b) (PostgreSQL).
// ---------------------------------------------------------------------------------------------------------
/** The first page of the account's contacts with their tags and values, as selectContactsPage reads them. */
const FLOOR_PAGE = `
  with page as materialized (
    select id, channel, connection_id, instagram_id, instagram_username, phone, name, person_id,
      last_interaction_at, created_at, updated_at
    from contacts where account_id = $1 and deleted_at is null order by updated_at, id limit 51)
  select 0 as kind, p.id as holder, p.updated_at as sort_at, null::text as sort_label, p.id as item_id,
    p.name as item_name, p.channel, p.connection_id, p.instagram_id, p.instagram_username, p.phone, p.person_id,
    p.last_interaction_at, p.created_at, null::text as field_type, null::jsonb as value
  from page p
  union all
  select 1, ct.contact_id, ct.tagged_at, null, t.id, t.name, null, null, null, null, null, null, null, null, null,
    null
  from contact_tags ct join tags t on t.id = ct.tag_id
  where ct.account_id = $1 and ct.contact_id = any(array(select id from page)) and t.deleted_at is null
  union all
  select 2, v.contact_id, null, f.name collate "C", f.id, f.name, null, null, null, null, null, null, null, null,
    f.type, v.value
  from contact_field_values v join custom_fields f on f.id = v.field_id
  where v.account_id = $1 and v.contact_id = any(array(select id from page))
  order by kind, sort_at, sort_label, item_id`;

interface FloorRow {
  kind: number;
  holder: string;
  item_id: string;
  item_name: string | null;
  sort_at: Date | null;
  channel: string | null;
  connection_id: string | null;
  instagram_id: string | null;
  instagram_username: string | null;
  phone: string | null;
  person_id: string | null;
  last_interaction_at: Date | null;
  created_at: Date | null;
  field_type: string | null;
  value: unknown;
}

/** The page's rows as the list's body, shaped as contactView shapes a contact. */
function floorBody(rows: readonly FloorRow[]) {
  type View = Record<string, unknown> & { tags: unknown[]; custom_fields: unknown[] };
  const data: View[] = [];
  const byId = new Map<string, View>();
  for (const r of rows) {
    if (r.kind === 1) byId.get(r.holder)?.tags.push({ id: r.item_id, name: r.item_name });
    else if (r.kind === 2)
      byId
        .get(r.holder)
        ?.custom_fields.push({ field_id: r.item_id, name: r.item_name, type: r.field_type, value: r.value });
    else {
      const view: View = {
        id: r.item_id,
        channel: { type: r.channel, connection_id: r.connection_id },
        instagram:
          r.channel === 'instagram' ? { id: r.instagram_id ?? '', username: r.instagram_username ?? '' } : null,
        whatsapp: r.channel === 'whatsapp' ? { phone: r.phone ?? '' } : null,
        name: r.item_name,
        person_id: r.person_id,
        tags: [],
        custom_fields: [],
        last_interaction_at: r.last_interaction_at?.toISOString() ?? null,
        created_at: r.created_at?.toISOString() ?? null,
        updated_at: r.sort_at?.toISOString() ?? null,
      };
      data.push(view);
      byId.set(r.item_id, view);
    }
  }
  const hasMore = data.length > 50;
  if (hasMore) data.pop();
  return { data, has_more: hasMore, next_cursor: hasMore ? data.at(-1)?.id : null };
}

async function serveFloor(): Promise<void> {
  const { default: express } = await import('express');
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 5 });
  const values = [process.env.FLOOR_ACCOUNT_ID];
  const app = bareApp(express);
  app.get('/v1/contacts', (_req, res, next) => {
    pool
      .query<FloorRow>({ name: 'page', text: FLOOR_PAGE, values })
      .then(({ rows }) => void res.json(floorBody(rows)), next);
  });
  serveForParent(app, () => pool.end());
}

// ---------------------------------------------------------------------------------------------------------
// Parent mode: start each target, load it, print the table.
// ---------------------------------------------------------------------------------------------------------
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function argNumber(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => ok(port));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  children.delete(child);
}

async function startServer(
  env: Record<string, string>,
  mode: '--serve' | '--bare' | '--floor' = '--serve',
  bodies?: Record<string, unknown>,
): Promise<{ ready: Ready; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', self, mode], {
    cwd: root,
    // An empty value removes the setting (DATABASE_URL for the embedded engine).
    env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== '')),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  if (bodies) child.send(bodies);
  const ready = await new Promise<Ready>((ok, fail) => {
    child.once('message', (m) => ok(m as Ready));
    child.once('exit', (code) => fail(new Error(`the bench server exited with ${code}`)));
  });
  return { ready, child };
}

/** Starts a process that serves HTTP on `port` and waits until it answers. */
async function startListening(command: string, args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const until = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { Authorization: 'Bearer test' } });
      return child;
    } catch {
      if (Date.now() > until) throw new Error(`${command} did not answer on port ${port}`);
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }
}

interface Route {
  name: string;
  path: string;
  expected: string;
}

interface Measure {
  target: string;
  route: string;
  rps: number;
  p50: number;
  p99: number;
  statuses: string;
  errors: number;
  /** Database round trips per request served (the server's `db_round_trips_total{work="request"}`). */
  roundTrips?: number;
  /** The target's CPU time (user + system) per request served, µs: less sensitive to the machine's load. */
  cpuMicros?: number;
}

async function load(url: string, apiKey: string, seconds: number, connections: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
  });
}

/** Waits for the target's first answer (the validator compiles the spec then), then loads it for a while. */
async function warmUp(base: string, apiKey: string, seconds: number, connections: number): Promise<void> {
  await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${apiKey}` } }).then((r) => r.arrayBuffer());
  await load(`${base}/v1/me`, apiKey, seconds, connections);
}

/** The target's counters so far (GET /metrics, no key): round trips sent for API requests, CPU seconds. */
async function counters(base: string): Promise<{ roundTrips: number; cpuSeconds: number }> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    roundTrips: value(/^db_round_trips_total\{work="request"\} (\S+)/m),
    cpuSeconds: value(/^process_cpu_seconds_total (\S+)/m),
  };
}

async function measure(
  target: string,
  base: string,
  apiKey: string,
  route: Route,
  options: { warmup: number; duration: number; connections: number; counted: boolean },
): Promise<Measure> {
  await load(base + route.path, apiKey, options.warmup, options.connections);
  const before = options.counted ? await counters(base) : undefined;
  const r = await load(base + route.path, apiKey, options.duration, options.connections);
  const after = options.counted ? await counters(base) : undefined;
  const served = Math.max(1, r.requests.total);
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .map(([code, s]) => `${code}×${s.count ?? 0}`)
    .join(' ');
  process.stderr.write(`  ${target.padEnd(28)} ${route.name.padEnd(22)} ${Math.round(r.requests.average)} req/s\n`);
  return {
    target,
    route: route.name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    statuses,
    errors: r.errors,
    ...(before && after
      ? {
          roundTrips: (after.roundTrips - before.roundTrips) / served,
          cpuMicros: ((after.cpuSeconds - before.cpuSeconds) * 1e6) / served,
        }
      : {}),
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => '| ' + r.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  return [line(rows[0]!), '| ' + widths.map((w) => '-'.repeat(w)).join(' | ') + ' |', ...rows.slice(1).map(line)].join(
    '\n',
  );
}

/** One round of issue 37's pairs: (b) and bare Express, and on PostgreSQL's contacts page the floor (g). */
interface Round {
  server: Measure;
  bare: Measure;
  floor?: Measure;
}

const FLOOR = '(g) floor: Express + pg';
const FLOOR_PATH = '/v1/contacts';

/**
 * Starts the floor (g) on (b)'s database and checks that it answers the page (b) answered: the same contacts in the
 * same order, with the same tags and values (the timestamps' spelling aside).
 */
async function startFloor(
  databaseUrl: string,
  server: Ready,
  bodies: Record<string, unknown>,
  warmup: { seconds: number; connections: number },
): Promise<Ready & { child: ChildProcess }> {
  const floor = await startServer(
    { FLOOR_DATABASE_URL: databaseUrl, FLOOR_ACCOUNT_ID: server.accountId ?? '' },
    '--floor',
  );
  const answered = await fetch(floor.ready.url + FLOOR_PATH).then((r) => r.json());
  const sameContacts = (body: unknown) =>
    JSON.stringify(
      (body as { data: { id: string; tags: unknown; custom_fields: unknown }[] }).data.map((c) => [
        c.id,
        c.tags,
        c.custom_fields,
      ]),
    );
  if (sameContacts(answered) !== sameContacts(bodies[FLOOR_PATH]))
    throw new Error('the floor (g) does not answer the page (b) answered: the bench would compare different work');
  process.stderr.write(`${FLOOR} on (b)'s database, in turns with (b) and (f)\n`);
  await load(floor.ready.url + FLOOR_PATH, 'none', warmup.seconds, warmup.connections);
  return { ...floor.ready, child: floor.child };
}

/** Issue 37's goals: the server with production settings (b) ÷ bare Express on the same route, same run. */
const BARE_GOALS: Record<string, number> = { 'GET /v1/me': 0.6, 'GET /v1/contacts': 0.35 };
const BARE = '(f) bare Express';

async function bench(): Promise<void> {
  const options = {
    targetWarmup: argNumber('target-warmup', 8),
    warmup: argNumber('warmup', 1),
    duration: argNumber('duration', 5),
    connections: argNumber('connections', 10),
    rounds: argNumber('rounds', 3),
  };
  // --quick: only (b) and bare Express, the figures of issue 37 (for a short run while developing).
  const quick = process.argv.includes('--quick');
  const engineArg = engineOption();
  const engines: ('pglite' | 'postgres')[] = engineArg === 'both' ? ['pglite', 'postgres'] : [engineArg];
  const postgresBase = process.env.DATABASE_URL ?? DEFAULT_POSTGRES;
  const results: Measure[] = [];
  /** Issue 37's rounds of (b) and bare Express, by engine label and route. */
  const paired = new Map<string, Round[]>();
  const routes: Route[] = [
    { name: 'GET /v1/me', path: '/v1/me', expected: '200' },
    { name: 'GET /v1/contacts', path: '/v1/contacts?limit=50', expected: '200' },
  ];
  const cases = [
    ['(a) server, full validation', 'true', 'true'],
    ['(b) server, production', 'false', 'true'],
    ['(e) server, no validation', 'false', 'false'],
  ] as const;
  const cleanups: (() => Promise<void>)[] = [];

  try {
    for (const engine of engines) {
      const label = engine === 'pglite' ? 'PGlite' : 'PostgreSQL';
      const dataDir = mkdtempSync(join(tmpdir(), 'ep-bench-'));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const scratch = engine === 'postgres' ? await scratchPostgres(postgresBase) : undefined;
      if (scratch) cleanups.push(scratch.drop);
      const serverEnv = {
        APP_ENV: 'development',
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        DATABASE_URL: scratch?.url ?? '',
      };
      for (const [target, responseValidation, requestValidation] of cases) {
        if (quick && !target.startsWith('(b)')) continue;
        const { ready, child } = await startServer({
          ...serverEnv,
          RESPONSE_VALIDATION: responseValidation,
          REQUEST_VALIDATION: requestValidation,
        });
        process.stderr.write(`${target} on ${label}\n`);
        await warmUp(ready.url, ready.apiKey, options.targetWarmup, options.connections);
        if (!target.startsWith('(b)')) {
          for (const route of routes)
            results.push(
              await measure(`${target} · ${label}`, ready.url, ready.apiKey, route, { ...options, counted: true }),
            );
          await stopChild(child);
          continue;
        }
        // Bare Express beside (b), serving the bodies (b) sends. The two are loaded in turns (b f, f b, …), each
        // round a pair measured within seconds of each other: this shared machine's speed drifts by a third
        // over a minute, so one run of each, a minute apart, measured the drift as much as the code.
        const bodies: Record<string, unknown> = {};
        for (const route of routes)
          bodies[route.path.split('?')[0]!] = await fetch(ready.url + route.path, {
            headers: { Authorization: `Bearer ${ready.apiKey}` },
          }).then((r) => r.json());
        const bare = await startServer({}, '--bare', bodies);
        process.stderr.write(`${BARE} (${label}'s answers), in turns with (b)\n`);
        await warmUp(bare.ready.url, 'none', options.targetWarmup, options.connections);
        const floor = scratch
          ? await startFloor(scratch.url, ready, bodies, {
              seconds: options.targetWarmup,
              connections: options.connections,
            })
          : undefined;
        for (const route of routes) {
          const rounds: Round[] = [];
          const withFloor = floor && route.path.startsWith(FLOOR_PATH) ? floor : undefined;
          for (let round = 0; round < options.rounds; round++) {
            const counted = { ...options, counted: true };
            const measures = [
              () => measure(`${target} · ${label}`, ready.url, ready.apiKey, route, counted),
              () => measure(`${BARE} · ${label}`, bare.ready.url, 'none', route, counted),
              ...(withFloor ? [() => measure(`${FLOOR} · ${label}`, withFloor.url, 'none', route, counted)] : []),
            ];
            // In turns: (b) first in one round, last in the next, so the machine's drift falls on each.
            const order = round % 2 === 0 ? measures : [...measures].reverse();
            const measured = new Map<(typeof measures)[number], Measure>();
            for (const run of order) measured.set(run, await run());
            const [server, bareMeasure, floorMeasure] = measures.map((run) => measured.get(run)!);
            rounds.push({ server: server!, bare: bareMeasure!, ...(floorMeasure ? { floor: floorMeasure } : {}) });
          }
          const middle = medianRound(rounds);
          results.push(middle.server, middle.bare, ...(middle.floor ? [middle.floor] : []));
          paired.set(`${label} ${route.name}`, rounds);
        }
        if (floor) await stopChild(floor.child);
        await stopChild(bare.child);
        await stopChild(child);
      }
    }

    if (!quick) {
      const mockPort = await freePort();
      const mock = await startListening(
        process.execPath,
        ['--import', 'tsx', 'mock/server.ts', '--port', String(mockPort)],
        mockPort,
      );
      process.stderr.write('(c) mock (npm run mock)\n');
      await warmUp(`http://127.0.0.1:${mockPort}`, 'test', options.targetWarmup, options.connections);
      for (const route of routes)
        results.push(
          await measure('(c) mock (npm run mock)', `http://127.0.0.1:${mockPort}`, 'test', route, {
            ...options,
            counted: false,
          }),
        );
      await stopChild(mock);

      const prismPort = await freePort();
      const prism = await startListening(
        join(root, 'node_modules/.bin/prism'),
        [
          'mock',
          'generated/openapi.yaml',
          '--host',
          '127.0.0.1',
          '--port',
          String(prismPort),
          '--cors=false',
          '--dynamic=false',
          '--errors=false',
        ],
        prismPort,
      );
      process.stderr.write('(d) Prism alone\n');
      await warmUp(`http://127.0.0.1:${prismPort}`, 'test', options.targetWarmup, options.connections);
      for (const route of routes)
        results.push(
          await measure('(d) Prism alone', `http://127.0.0.1:${prismPort}`, 'test', route, {
            ...options,
            counted: false,
          }),
        );
      await stopChild(prism);
    }

    const fixed = (n: number, digits = 2) => n.toFixed(digits);
    console.log(
      `\nHTTP benchmark: ${options.connections} connections; per target ${options.targetWarmup} s of warm-up; ` +
        `per case ${options.warmup} s of warm-up then ${options.duration} s measured; Node ${process.version}, ` +
        `${cpus().length} cores, load average ${loadavg()
          .map((n) => n.toFixed(2))
          .join(' ')} at the end; the load generator runs on the same machine.\n`,
    );
    console.log(
      table([
        ['target', 'route', 'req/s', 'p50 ms', 'p99 ms', 'answers', 'errors', 'CPU µs/req', 'round trips/req'],
        ...results.map((r) => [
          r.target,
          r.route,
          fixed(r.rps, 0),
          String(Number(r.p50.toFixed(2))),
          String(Number(r.p99.toFixed(2))),
          r.statuses,
          String(r.errors),
          r.cpuMicros === undefined ? '' : fixed(r.cpuMicros, 0),
          r.roundTrips === undefined || r.target.startsWith(BARE) ? '' : fixed(r.roundTrips),
        ]),
      ]),
    );
    console.log(
      `\nGET /v1/contacts: limit=50, the first page of an account with ${CONTACTS} contacts (a third hold tags, a ` +
        'quarter a custom-field value). Round trips: db_round_trips_total{work="request"} over the requests ' +
        "served (the account limit's counter is written once per batch of calls that arrive together).",
    );

    const find = (target: string, route: string) =>
      results.find((r) => r.target.startsWith(target) && r.route === route);
    const ratio = (a: number, b: number) => `${fixed(a / b)}×`;
    // Issue 37: the server with production settings against bare Express serving the same bodies.
    const bareRows = engines.flatMap((engine) => {
      const label = engine === 'pglite' ? 'PGlite' : 'PostgreSQL';
      return routes.map((route) => {
        const server = find(`(b) server, production · ${label}`, route.name)!;
        const bare = find(`${BARE} · ${label}`, route.name)!;
        const goal = BARE_GOALS[route.name]!;
        const rounds = (paired.get(`${label} ${route.name}`) ?? []).map((r) => fixed(r.server.rps / r.bare.rps));
        return [
          label,
          route.name,
          fixed(server.rps, 0),
          fixed(bare.rps, 0),
          fixed(server.rps / bare.rps),
          rounds.join(' '),
          `≥ ${goal}`,
          server.rps / bare.rps >= goal ? 'met' : 'NOT met',
          `${fixed(server.cpuMicros ?? 0, 0)} / ${fixed(bare.cpuMicros ?? 0, 0)}`,
          fixed((bare.cpuMicros ?? 0) / (server.cpuMicros ?? 1)),
          fixed(server.roundTrips ?? 0),
        ];
      });
    });
    console.log(
      `\nIssue 37: the server with production settings (b) ÷ bare Express (f) on the same route, in ${options.rounds} ` +
        'rounds of the two in turns (the median round shown).\n',
    );
    console.log(
      table([
        [
          'engine',
          'route',
          '(b) req/s',
          '(f) req/s',
          '(b)/(f), median round',
          'each round',
          'goal',
          '',
          'CPU µs/req (b) / (f)',
          '(f)/(b) CPU',
          'round trips/req',
        ],
        ...bareRows,
      ]),
    );

    // The floor (g): what Express and pg alone reach on the same page, in the same rounds.
    const floorRows = [...paired].flatMap(([key, rounds]) => {
      const middle = medianRound(rounds);
      if (!middle.floor) return [];
      const { server, bare, floor } = middle;
      return [
        [
          key,
          fixed(floor.rps / bare.rps),
          rounds.map((r) => fixed((r.floor?.rps ?? 0) / r.bare.rps)).join(' '),
          fixed(server.rps / floor.rps),
          `${fixed(floor.cpuMicros ?? 0, 0)} / ${fixed(server.cpuMicros ?? 0, 0)} / ${fixed(bare.cpuMicros ?? 0, 0)}`,
        ],
      ];
    });
    if (floorRows.length > 0) {
      console.log(
        `\nThe floor ${FLOOR} (no key, limits, validation, request log or ORM; the same page from (b)'s database) ` +
          'in the same rounds: what any server of the page pays.\n',
      );
      console.log(
        table([
          ['route', "(g)/(f), (b)'s median round", 'each round', '(b)/(g)', 'CPU µs/req (g) / (b) / (f)'],
          ...floorRows,
        ]),
      );
    }

    if (!quick) {
      // The goal (issue 12): the server with production settings at least twice as fast as Prism, p99 under 15 ms.
      const goalRows = engines.flatMap((engine) => {
        const label = engine === 'pglite' ? 'PGlite' : 'PostgreSQL';
        return routes.map((route) => {
          const server = find(`(b) server, production · ${label}`, route.name)!;
          const prismRps = find('(d)', route.name)!.rps;
          const met = server.rps / prismRps >= 2 && server.p99 < 15;
          return [
            label,
            route.name,
            fixed(server.rps, 0),
            fixed(prismRps, 0),
            ratio(server.rps, prismRps),
            String(server.p99),
            met ? 'met' : 'MISSED',
          ];
        });
      });
      console.log('\nIssue 12: the server with production settings (b) ≥ 2.0× Prism alone (d), p99 under 15 ms.\n');
      console.log(
        table([['engine', 'route', '(b) req/s', 'Prism req/s', '(b)/(d)', '(b) p99 ms', 'goal'], ...goalRows]),
      );
      for (const engine of engines) {
        const label = engine === 'pglite' ? 'PGlite' : 'PostgreSQL';
        const me = routes[0]!.name;
        const a = find(`(a) server, full validation · ${label}`, me)!.rps;
        const b = find(`(b) server, production · ${label}`, me)!.rps;
        const e = find(`(e) server, no validation · ${label}`, me)!.rps;
        console.log(
          `\n${label}: request validation costs ${fixed((1 - b / e) * 100, 0)}% of ${me} (1 − (b)/(e)); response ` +
            `validation ${fixed((1 - a / b) * 100, 0)}% (1 − (a)/(b)); (a)/(c) full vs mock ` +
            `${ratio(a, find('(c)', me)!.rps)}.`,
        );
      }
    }
    const unexpected = results.filter(
      (r) => r.errors > 0 || !r.statuses.split(' ').every((s) => s.startsWith(expectedFor(r, routes))),
    );
    if (unexpected.length)
      console.log(
        `\nWarning: unexpected answers in ${unexpected.map((r) => `${r.target} ${r.route}`).join(', ')} (see the table).`,
      );
  } finally {
    for (const child of children) await stopChild(child);
    for (const cleanup of cleanups) await cleanup();
  }
}

/** The round whose (b)/(f) ratio of requests per second is the median of the rounds'. */
function medianRound<R extends { server: Measure; bare: Measure }>(rounds: readonly R[]): R {
  const byRatio = [...rounds].sort((a, b) => a.server.rps / a.bare.rps - b.server.rps / b.bare.rps);
  const middle = byRatio[Math.floor((byRatio.length - 1) / 2)];
  if (!middle) throw new Error('no round measured');
  return middle;
}

/** Prism alone answers limit=0 with the route's own 400 or 422 example: a 4xx is what is expected there. */
function expectedFor(r: Measure, routes: Route[]): string {
  const expected = routes.find((route) => route.name === r.route)!.expected;
  return r.target.startsWith('(d)') && expected === '400' ? '4' : expected;
}

if (process.argv.includes('--serve')) await serve();
else if (process.argv.includes('--bare')) await serveBare();
else if (process.argv.includes('--floor')) await serveFloor();
else await bench();
