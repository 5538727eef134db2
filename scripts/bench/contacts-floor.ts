// `npm run bench:contacts-floor`: the floor under issue 37's goal for GET /v1/contacts?limit=50 on PostgreSQL
// (≥ 0.35 of bare Express). Two Express apps in child processes of their own, loaded in turns with autocannon
// (10 connections, --rounds N (4) pairs of --duration S (5) seconds each, after 5 s of warm-up each):
//   (floor) the least a server can do for that page: Express, one pg pool, the page read in one named statement
//           (51 contacts with the view's 11 columns, their tags and values as flat rows, as selectContactsPage
//           reads them), mapped into the view's shape and answered with res.json; no authentication, rate
//           limit, validation, request log, ORM or audit;
//   (bare)  bare Express answering the same body from memory (bench:http's (f)).
// It prints each round's requests per second and CPU µs per request of both, and their ratio. The tables are a
// stand-in of the project's (same columns, 60 contacts, about half tagged and half with a value), in a scratch
// database (`ep_floor_<random>`) of DATABASE_URL or the local server, dropped at the end.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import pg from 'pg';
import { argInt, DEFAULT_POSTGRES, main, scratchPostgres } from './common.js';

const ACCOUNT = '00000000-0000-0000-0000-000000000001';
const PAGE = `with page as materialized (
    select id, name, phone, email, instagram_username, whatsapp_id, language, subscribed, created_at, updated_at,
      last_interaction_at
    from contacts where account_id = $1 order by updated_at desc, id desc limit 51)
  select 0 as kind, p.*, null::uuid as ref, null::text as label, null::timestamptz as at from page p
  union all
  select 1, t.contact_id, null, null, null, null, null, null, null, null, null, null, t.tag_id, t.name, t.tagged_at
  from contact_tags t where t.contact_id = any(array(select id from page))
  union all
  select 2, v.contact_id, null, null, null, null, null, null, null, null, null, null, v.field_id, v.value, null
  from contact_values v where v.contact_id = any(array(select id from page))`;

/** The view's columns that the row and the view share as they are. */
interface ContactColumns {
  id: string;
  name: string | null;
  phone: string | null;
  email: string | null;
  instagram_username: string | null;
  whatsapp_id: string | null;
  language: string | null;
  subscribed: boolean | null;
}

interface PageRow extends ContactColumns {
  kind: number;
  created_at: Date | null;
  updated_at: Date | null;
  last_interaction_at: Date | null;
  ref: string | null;
  label: string | null;
  at: Date | null;
}

interface ContactView extends ContactColumns {
  tags: { id: string | null; name: string | null; tagged_at: string | null }[];
  custom_fields: Record<string, string | null>;
  created_at: string | null;
  updated_at: string | null;
  last_interaction_at: string | null;
}

/** The page's rows as the list's body: the contacts in order, each with its tags and values. */
function pageBody(rows: readonly PageRow[]) {
  const byId = new Map<string, ContactView>();
  const data: ContactView[] = [];
  for (const r of rows) {
    const contact = byId.get(r.id);
    if (r.kind === 1) contact?.tags.push({ id: r.ref, name: r.label, tagged_at: r.at?.toISOString() ?? null });
    else if (r.kind === 2 && contact && r.ref) contact.custom_fields[r.ref] = r.label;
    else if (r.kind === 0) {
      const view: ContactView = {
        id: r.id,
        name: r.name,
        phone: r.phone,
        email: r.email,
        instagram_username: r.instagram_username,
        whatsapp_id: r.whatsapp_id,
        language: r.language,
        subscribed: r.subscribed,
        tags: [],
        custom_fields: {},
        created_at: r.created_at?.toISOString() ?? null,
        updated_at: r.updated_at?.toISOString() ?? null,
        last_interaction_at: r.last_interaction_at?.toISOString() ?? null,
      };
      byId.set(r.id, view);
      data.push(view);
    }
  }
  const hasMore = data.length > 50;
  if (hasMore) data.pop();
  return { data, has_more: hasMore, next_cursor: hasMore ? (data.at(-1)?.id ?? null) : null };
}

async function seed(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`
      create table contacts (id uuid primary key default gen_random_uuid(), account_id uuid not null, name text,
        phone text, email text, instagram_username text, whatsapp_id text, language text, subscribed boolean,
        created_at timestamptz, updated_at timestamptz, last_interaction_at timestamptz);
      create index on contacts (account_id, updated_at desc, id desc);
      create table contact_tags (contact_id uuid, tag_id uuid, name text, tagged_at timestamptz,
        primary key (contact_id, tag_id));
      create table contact_values (contact_id uuid, field_id uuid, value text, primary key (contact_id, field_id));
      insert into contacts (account_id, name, phone, email, instagram_username, whatsapp_id, language, subscribed,
          created_at, updated_at, last_interaction_at)
        select '${ACCOUNT}', 'Contato ' || i, '+5511999' || lpad(i::text, 6, '0'), 'c' || i || '@example.com',
          'user' || i, '5511999' || lpad(i::text, 6, '0'), 'pt_BR', true, now() - i * interval '1 minute',
          now() - i * interval '1 minute', now()
        from generate_series(1, 60) i;
      insert into contact_tags select id, gen_random_uuid(), 'vip', now() from contacts where random() < 0.5;
      insert into contact_values select id, gen_random_uuid(), 'valor de ' || name from contacts
        where random() < 0.5;
      analyze;`);
  } finally {
    await client.end();
  }
}

/** Child mode `--app floor|bare`: one Express app; tells the parent its port and body size. */
async function serveApp(): Promise<void> {
  const kind = process.argv[process.argv.indexOf('--app') + 1];
  const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 5 });
  const read = async () => pageBody((await pool.query<PageRow>({ name: 'page', text: PAGE, values: [ACCOUNT] })).rows);
  const body = await read();
  const app = express();
  if (kind === 'bare') {
    await pool.end();
    app.get('/v1/contacts', (_req, res) => void res.json(body));
  } else app.get('/v1/contacts', (_req, res, next) => void read().then((page) => res.json(page), next));
  const server = app.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send?.({ port, bytes: Buffer.byteLength(JSON.stringify(body)) });
  });
}

interface App {
  child: ChildProcess;
  port: number;
  bytes: number;
}

function startApp(kind: 'floor' | 'bare', url: string): Promise<App> {
  const child = fork(fileURLToPath(import.meta.url), ['--app', kind], {
    env: { ...process.env, FLOOR_DATABASE_URL: url },
  });
  return new Promise((ok, fail) => {
    child.once('message', (m: { port: number; bytes: number }) => ok({ child, ...m }));
    child.once('exit', (code) => fail(new Error(`the ${kind} app exited with ${code}`)));
  });
}

/** User + system CPU of `pid` so far, in µs (/proc; clock ticks of 10 ms). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function load(app: App, seconds: number): Promise<{ rps: number; cpuUs: number }> {
  const pid = app.child.pid ?? 0;
  const before = cpuUs(pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${app.port}/v1/contacts`,
    connections: 10,
    duration: seconds,
  });
  return { rps: result.requests.average, cpuUs: (cpuUs(pid) - before) / Math.max(1, result.requests.total) };
}

async function bench(): Promise<void> {
  const rounds = argInt('rounds', 4);
  const duration = argInt('duration', 5);
  const scratch = await scratchPostgres(process.env.DATABASE_URL ?? DEFAULT_POSTGRES, 'ep_floor');
  const apps: App[] = [];
  try {
    await seed(scratch.url);
    const floor = await startApp('floor', scratch.url);
    apps.push(floor);
    const bare = await startApp('bare', scratch.url);
    apps.push(bare);
    await load(floor, 5);
    await load(bare, 5);
    console.log(`GET /v1/contacts?limit=50 floor on PostgreSQL: a body of ${floor.bytes} bytes; 10 connections\n`);
    console.log('| round | floor req/s | floor CPU µs/req | bare req/s | bare CPU µs/req | floor ÷ bare |');
    console.log('| ----- | ----------- | ---------------- | ---------- | --------------- | ------------ |');
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      // Alternate which goes first, so the machine's drift falls on both.
      const first = round % 2 === 1 ? floor : bare;
      const second = first === floor ? bare : floor;
      const a = await load(first, duration);
      const b = await load(second, duration);
      const [f, e] = first === floor ? [a, b] : [b, a];
      ratios.push(f.rps / e.rps);
      console.log(
        `| ${round} | ${f.rps.toFixed(0)} | ${f.cpuUs.toFixed(0)} | ${e.rps.toFixed(0)} | ${e.cpuUs.toFixed(0)} | ` +
          `${(f.rps / e.rps).toFixed(2)} |`,
      );
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    console.log(`\nfloor ÷ bare, median round: ${median.toFixed(2)} (issue 37's goal for the API's route: ≥ 0.35)`);
  } finally {
    for (const app of apps) app.child.kill();
    await scratch.drop();
  }
}

await main(async () => {}, bench, { app: serveApp });
