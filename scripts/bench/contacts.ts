// `npm run bench:contacts` (also the second half of `npm run bench`): the contacts routes on an account with
// 100,000 contacts, on embedded PGlite and on PostgreSQL:
//   1. seeding: the account, its key, a whatsapp connection, tags and custom fields through the domain functions
//      (createAccount, createApiKey, createConnection, createTag, createCustomField), then 100,000 whatsapp
//      contacts (distinct valid Brazilian mobiles, one in ten stored in its old 8-digit form), tags on ~30% and
//      custom-field values on ~20%, `updated_at` spread over two years (some sharing one instant) — bulk
//      `INSERT … SELECT FROM unnest(…)` statements through Kysely, 1000 contacts per statement, one transaction
//      per batch (the time printed covers generating and inserting them); then ANALYZE, as autovacuum would soon
//      do on PostgreSQL;
//   2. a full sync pass over HTTP: GET /v1/contacts?limit=100 following next_cursor to the end, checking it read
//      every contact exactly once and in the sync order (updated_at, id);
//   3. p50/p99 of GET /v1/contacts?limit=50 on the first page and on a page at the end (the cursor of the sync
//      pass's last request), sequential requests alternating between the two after a warm-up: keyset pages
//      should cost the same wherever they start;
//   4. POST /v1/contacts upserts for 10 s with autocannon, 8 connections: half new phones (201), half phones of
//      seeded contacts (200; sent in their old 8-digit form half the time they have one), each with 1–2 tags and
//      a custom-field value.
//
// Each engine gets its own server process, started like main.ts (the child mode of this file: migrations at
// open, the real app and pipeline, logging to /dev/null), which also does the seeding (an embedded PGlite can
// only be opened by one process). The HTTP load comes from this process. As in http.ts, the account rate limit
// is counted in the database but never refuses, and the edge and per-second ceilings are raised. Response
// validation is off, the production default (--response-validation turns it on).
//
// PGlite lives in a temporary directory, removed at the end. PostgreSQL: DATABASE_URL, or by default
// postgres://postgres@127.0.0.1:5432/test; the run creates a scratch database `ep_bench_<random>` there and drops
// it at the end, on failure and on Ctrl-C too. With --engine both (the default) and no DATABASE_URL, an
// unreachable default PostgreSQL is skipped with a note.
//
// Flags: --contacts N (100000), --engine pglite|postgres|both (both), --batch N (1000), --runs N (200 latency
// samples per page), --upsert-seconds N (10), --connections N (8), --response-validation.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fakerPT_BR as faker } from '@faker-js/faker';
import autocannon from 'autocannon';
import type { Insertable } from 'kysely';
import type { ContactFieldValuesTable, ContactTagsTable, ContactsTable } from '../../server/store/schema.js';
import type { TagRow } from '../../server/store/tags.js';
import {
  analyze,
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  fmt,
  insertColumns,
  main,
  phoneOf,
  ms,
  openBenchServer,
  progressBar,
  quantile,
  rng,
  table,
  withBenchServer,
  type EngineName,
} from './common.js';

const self = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------------------------------------
const options = {
  contacts: argInt('contacts', 100_000),
  batch: argInt('batch', 1000),
  runs: argInt('runs', 200),
  upsertSeconds: argInt('upsert-seconds', 10),
  connections: argInt('connections', 8),
  responseValidation: process.argv.includes('--response-validation'),
  engine: engineOption(),
};

const SYNC_LIMIT = 100;
const LATENCY_LIMIT = 50;
const LATENCY_WARMUP = 30;

// ---------------------------------------------------------------------------------------------------------
// The data: deterministic phones, names and times
// ---------------------------------------------------------------------------------------------------------
/** Brazilian area codes (DDD). */
/** The phone a seeded contact is stored under: one in ten in its old 8-digit form when it has one. */
const storedPhoneOf = (i: number) => {
  const p = phoneOf(i);
  return i % 10 === 3 && p.eight ? p.eight : p.nine;
};

const TAG_NAMES = [
  'cliente',
  'lead',
  'vip',
  'black-friday',
  'newsletter',
  'suporte',
  'reativar',
  'são-paulo',
  'rio',
  'indicação',
  'risco-churn',
  'evento-2026',
];
const CITIES = ['São Paulo', 'Rio de Janeiro', 'Belo Horizonte', 'Curitiba', 'Recife', 'Salvador', 'Manaus'];
const PLANS = [
  { value: 'basico', label: 'Básico' },
  { value: 'pro', label: 'Pro' },
  { value: 'empresa', label: 'Empresa' },
];

interface Seeded {
  connectionId: string;
  tagIds: string[];
  fields: { city: string; points: string; plan: string };
  contacts: number;
  tagRows: number;
  valueRows: number;
  seedSeconds: number;
  analyzeSeconds: number;
}

interface Ready extends Seeded {
  url: string;
  apiKey: string;
}

/** The columns the seeding writes, with their SQL types (the others keep their defaults: null). */
const CONTACT_COLUMNS: Partial<Record<keyof ContactsTable, string>> = {
  id: 'uuid',
  account_id: 'uuid',
  person_id: 'uuid',
  channel: 'text',
  connection_id: 'uuid',
  name: 'text',
  phone: 'text',
  phone_key: 'text',
  last_interaction_at: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
};
const TAG_COLUMNS: Record<keyof ContactTagsTable, string> = {
  account_id: 'uuid',
  contact_id: 'uuid',
  tag_id: 'uuid',
  tagged_at: 'timestamptz',
};
const VALUE_COLUMNS: Record<keyof ContactFieldValuesTable, string> = {
  account_id: 'uuid',
  contact_id: 'uuid',
  field_id: 'uuid',
  value: 'jsonb',
  updated_at: 'timestamptz',
};

// ---------------------------------------------------------------------------------------------------------
// Child mode: open the database (migrations run at open), seed it, serve it, report over IPC.
// ---------------------------------------------------------------------------------------------------------
async function serve(): Promise<void> {
  const { createAccount } = await import('../../server/domain/accounts/accounts.js');
  const { createApiKey, SCOPES } = await import('../../server/domain/accounts/keys.js');
  const { createConnection } = await import('../../server/domain/console/connections.js');
  const { createCustomField } = await import('../../server/domain/console/custom-fields.js');
  const { parsePhone } = await import('../../server/domain/contacts/phone.js');
  const { createTag } = await import('../../server/domain/tags/tags.js');
  const server = await openBenchServer();
  const { db, clock } = server;

  // The account and what the console sets up, through the domain functions.
  const account = await createAccount(db, clock, {
    name: 'Bench contacts',
    alias: `bench-contacts-${randomBytes(4).toString('hex')}`,
  });
  const { secret } = await createApiKey(db, clock, {
    accountId: account.id,
    name: 'bench key',
    scopes: SCOPES,
    validityDays: 30,
  });
  const connection = await createConnection(db, clock, account.id, {
    channel: 'whatsapp',
    name: 'Atendimento',
    phone: '+5511930001234',
  });
  const tags: TagRow[] = [];
  for (const name of TAG_NAMES) tags.push(await createTag(db, clock, account.id, name));
  const city = await createCustomField(db, clock, account.id, { label: 'Cidade', type: 'text' });
  const points = await createCustomField(db, clock, account.id, { label: 'Pontos', type: 'number' });
  const plan = await createCustomField(db, clock, account.id, { label: 'Plano', type: 'dropdown', options: PLANS });

  // The contacts, in bulk.
  const total = Number(process.env.BENCH_CONTACTS);
  const batch = Number(process.env.BENCH_BATCH);
  const random = rng(20261120);
  faker.seed(20261120);
  const DAY = 86_400_000;
  const end = Date.now() - DAY;
  const start = end - 730 * DAY;
  const iso = (ms: number) => new Date(ms).toISOString();
  let tagRows = 0;
  let valueRows = 0;
  let previousUpdated = start;
  const bar = progressBar('seeding contacts', total);
  const seedStarted = performance.now();
  for (let from = 0; from < total; from += batch) {
    const contacts: Insertable<ContactsTable>[] = [];
    const held: Insertable<ContactTagsTable>[] = [];
    const values: Insertable<ContactFieldValuesTable>[] = [];
    for (let i = from; i < Math.min(total, from + batch); i++) {
      const phone = storedPhoneOf(i);
      const key = phoneOf(i).nine;
      if (i % 97 === 0) {
        // The generator agrees with the server's own phone rules (checked on a sample, off the hot path).
        const parsed = parsePhone(phone);
        if (parsed.e164 !== phone || parsed.key !== key) throw new Error(`phone ${phone} parses as ${parsed.key}`);
      }
      // One contact in twenty shares the previous one's instant (an import, a broadcast): the id breaks the tie.
      const updated = random() < 0.05 ? previousUpdated : start + Math.floor(random() * (end - start));
      previousUpdated = updated;
      const created = updated - Math.floor(random() * 400 * DAY);
      const interaction = random() < 0.8 ? updated : created + Math.floor(random() * (updated - created));
      const id = randomUUID();
      contacts.push({
        id,
        account_id: account.id,
        person_id: randomUUID(),
        channel: 'whatsapp',
        connection_id: connection.id,
        name: faker.person.fullName(),
        phone,
        phone_key: key,
        instagram_id: null,
        instagram_username: null,
        last_interaction_at: iso(interaction),
        created_at: iso(created),
        updated_at: iso(updated),
        deleted_at: null,
      });
      if (random() < 0.3) {
        const count = 1 + Math.floor(random() * 3);
        const first = Math.floor(random() * tags.length);
        for (let t = 0; t < count; t++)
          held.push({
            account_id: account.id,
            contact_id: id,
            tag_id: tags[(first + t * 5) % tags.length]!.id,
            tagged_at: iso(created + Math.floor(random() * (updated - created))),
          });
      }
      if (random() < 0.2) {
        const at = iso(created + Math.floor(random() * (updated - created)));
        const all = [
          { field_id: city.id, value: CITIES[Math.floor(random() * CITIES.length)]! },
          { field_id: points.id, value: Math.floor(random() * 5000) },
          { field_id: plan.id, value: PLANS[Math.floor(random() * PLANS.length)]!.value },
        ];
        const first = Math.floor(random() * 3);
        const count = 1 + Math.floor(random() * 3);
        for (let f = 0; f < count; f++) {
          const v = all[(first + f) % 3]!;
          values.push({
            account_id: account.id,
            contact_id: id,
            field_id: v.field_id,
            value: JSON.stringify(v.value),
            updated_at: at,
          });
        }
      }
    }
    await db.transaction().execute(async (tx) => {
      await insertColumns(tx, 'contacts', CONTACT_COLUMNS, contacts);
      await insertColumns(tx, 'contact_tags', TAG_COLUMNS, held);
      await insertColumns(tx, 'contact_field_values', VALUE_COLUMNS, values);
    });
    tagRows += held.length;
    valueRows += values.length;
    bar.update(from + contacts.length);
  }
  bar.end();
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const analyzeSeconds = await analyze(db, ['contacts', 'contact_tags', 'contact_field_values']);

  await server.listen((url): Ready => ({
    url,
    apiKey: secret,
    connectionId: connection.id,
    tagIds: tags.map((t) => t.id),
    fields: { city: city.id, points: points.id, plan: plan.id },
    contacts: total,
    tagRows,
    valueRows,
    seedSeconds,
    analyzeSeconds,
  }));
}

// ---------------------------------------------------------------------------------------------------------
// Parent mode: per engine, a server process, the sync pass, the page latencies, the upserts; then the table.
// ---------------------------------------------------------------------------------------------------------
interface Result {
  engine: EngineName;
  seed: Seeded;
  sync: { pages: number; seconds: number; distinct: number; read: number };
  first: { p50: number; p99: number };
  last: { p50: number; p99: number; rows: number };
  upsert: {
    rps: number;
    p50: number;
    p99: number;
    total: number;
    created: number;
    updated: number;
    non2xx: number;
    errors: number;
  };
}

interface ContactPage {
  data: { id: string; updated_at: string; tags: unknown[]; custom_fields: unknown[] }[];
  next_cursor: string | null;
}

function runEngine(engine: EngineName, postgresBase: string): Promise<Result> {
  const env = {
    RESPONSE_VALIDATION: String(options.responseValidation),
    BENCH_CONTACTS: String(options.contacts),
    BENCH_BATCH: String(options.batch),
  };
  return withBenchServer<Ready, Result>(engine, postgresBase, self, env, async (ready) => {
    process.stderr.write(
      `  seeded ${fmt(ready.contacts)} contacts (+${fmt(ready.tagRows)} tags held, ${fmt(ready.valueRows)} values) ` +
        `in ${ready.seedSeconds.toFixed(1)} s: ${fmt(ready.contacts / ready.seedSeconds)} contacts/s; ` +
        `ANALYZE ${ready.analyzeSeconds.toFixed(2)} s\n`,
    );

    const headers = { Authorization: `Bearer ${ready.apiKey}`, Accept: 'application/json' };
    const get = async (path: string): Promise<ContactPage> => {
      const res = await fetch(ready.url + path, { headers });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as ContactPage;
    };
    const page = (limit: number, cursor: string | null) =>
      `/v1/contacts?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

    // Warm-up: the validator compiles the spec at the first request; V8 and the database caches need a few more.
    for (let i = 0; i < 20; i++) await get(page(SYNC_LIMIT, null));

    // 2. The full sync pass.
    process.stderr.write(`  sync pass, limit=${SYNC_LIMIT}\n`);
    const ids = new Set<string>();
    let read = 0;
    let tagsRead = 0;
    let valuesRead = 0;
    let pages = 0;
    let cursor: string | null = null;
    let lastPageCursor: string | null = null;
    let previous = '';
    const syncBar = progressBar('sync pass', ready.contacts);
    const syncStarted = performance.now();
    for (;;) {
      const body = await get(page(SYNC_LIMIT, cursor));
      pages++;
      for (const contact of body.data) {
        const position = `${contact.updated_at} ${contact.id}`;
        if (position <= previous) throw new Error(`sync order broken at ${position} (after ${previous})`);
        previous = position;
        ids.add(contact.id);
        tagsRead += contact.tags.length;
        valuesRead += contact.custom_fields.length;
      }
      read += body.data.length;
      if (pages % 20 === 0) syncBar.update(read);
      if (body.next_cursor === null) {
        lastPageCursor = cursor;
        break;
      }
      cursor = body.next_cursor;
    }
    const syncSeconds = (performance.now() - syncStarted) / 1000;
    syncBar.update(read);
    syncBar.end();
    if (ids.size !== ready.contacts || read !== ready.contacts)
      throw new Error(`the sync pass read ${read} contacts, ${ids.size} distinct, of ${ready.contacts}`);
    if (tagsRead !== ready.tagRows || valuesRead !== ready.valueRows)
      throw new Error(
        `the sync pass read ${tagsRead} tags held and ${valuesRead} values, ` +
          `of ${ready.tagRows} and ${ready.valueRows} seeded`,
      );

    // 3. The first page and a page at the end, alternating.
    process.stderr.write(`  page latency, limit=${LATENCY_LIMIT}, ${options.runs} runs each\n`);
    const firstPath = page(LATENCY_LIMIT, null);
    const lastPath = page(LATENCY_LIMIT, lastPageCursor);
    const lastRows = (await get(lastPath)).data.length;
    const timed = async (path: string) => {
      const t = performance.now();
      await get(path);
      return performance.now() - t;
    };
    for (let i = 0; i < LATENCY_WARMUP; i++) {
      await timed(firstPath);
      await timed(lastPath);
    }
    const firstSamples: number[] = [];
    const lastSamples: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      firstSamples.push(await timed(firstPath));
      lastSamples.push(await timed(lastPath));
    }
    firstSamples.sort((a, b) => a - b);
    lastSamples.sort((a, b) => a - b);

    // 4. Upserts: half new phones, half phones of seeded contacts.
    process.stderr.write(`  POST /v1/contacts, ${options.connections} connections, ${options.upsertSeconds} s\n`);
    const random = rng(7);
    let sent = 0;
    let fresh = 0;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const nextBody = () => {
      sent++;
      let phone: string;
      if (sent % 2 === 0) phone = phoneOf(ready.contacts + fresh++).nine;
      else {
        const known = phoneOf(Math.floor(random() * ready.contacts));
        phone = known.eight && random() < 0.5 ? known.eight : known.nine;
      }
      const first = pick(ready.tagIds);
      const second = pick(ready.tagIds);
      return JSON.stringify({
        phone,
        name: faker.person.fullName(),
        connection_id: ready.connectionId,
        consent: true,
        tag_ids: random() < 0.5 ? [first] : [first, second],
        custom_fields: [{ field_id: ready.fields.city, value: pick(CITIES) }],
      });
    };
    const upserts = (seconds: number) =>
      autocannon({
        url: ready.url,
        connections: options.connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/v1/contacts',
            headers: { ...headers, 'Content-Type': 'application/json' },
            setupRequest: (request) => ({ ...request, body: nextBody() }),
          },
        ],
      });
    await upserts(2);
    const r = await upserts(options.upsertSeconds);
    const count = (code: string) => r.statusCodeStats?.[code as `${number}`]?.count ?? 0;

    return {
      engine,
      seed: ready,
      sync: { pages, seconds: syncSeconds, distinct: ids.size, read },
      first: { p50: quantile(firstSamples, 0.5), p99: quantile(firstSamples, 0.99) },
      last: { p50: quantile(lastSamples, 0.5), p99: quantile(lastSamples, 0.99), rows: lastRows },
      upsert: {
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        total: r.requests.total,
        created: count('201'),
        updated: count('200'),
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      },
    };
  });
}

function summary(results: Result[], notes: string[]): void {
  const figures: [string, (r: Result) => string][] = [
    [
      'contacts seeded (+tags held, values)',
      (r) => `${fmt(r.seed.contacts)} (+${fmt(r.seed.tagRows)}, ${fmt(r.seed.valueRows)})`,
    ],
    ['seeding time', (r) => `${r.seed.seedSeconds.toFixed(1)} s (+ANALYZE ${r.seed.analyzeSeconds.toFixed(2)} s)`],
    ['seeding rate', (r) => `${fmt(r.seed.contacts / r.seed.seedSeconds)} contacts/s`],
    [`sync pass, limit=${SYNC_LIMIT}: time`, (r) => `${r.sync.seconds.toFixed(1)} s (${fmt(r.sync.pages)} pages)`],
    [
      'sync pass: rate',
      (r) => `${(r.sync.pages / r.sync.seconds).toFixed(1)} pages/s (${fmt(r.sync.read / r.sync.seconds)} contacts/s)`,
    ],
    [
      'sync pass: distinct ids read',
      (r) => `${fmt(r.sync.distinct)} ${r.sync.distinct === r.seed.contacts ? 'ok' : 'WRONG'}`,
    ],
    [`first page, limit=${LATENCY_LIMIT}: p50 / p99`, (r) => `${ms(r.first.p50)} / ${ms(r.first.p99)} ms`],
    [`last page, limit=${LATENCY_LIMIT}: p50 / p99`, (r) => `${ms(r.last.p50)} / ${ms(r.last.p99)} ms`],
    [
      'last / first: p50 / p99',
      (r) => `${(r.last.p50 / r.first.p50).toFixed(2)}× / ${(r.last.p99 / r.first.p99).toFixed(2)}×`,
    ],
    ['POST /v1/contacts: req/s', (r) => fmt(r.upsert.rps)],
    ['POST /v1/contacts: p50 / p99', (r) => `${r.upsert.p50} / ${r.upsert.p99} ms`],
    ['POST /v1/contacts: 201 new / 200 known', (r) => `${fmt(r.upsert.created)} / ${fmt(r.upsert.updated)}`],
    ['POST /v1/contacts: non-2xx, errors', (r) => `${r.upsert.non2xx}, ${r.upsert.errors}`],
  ];
  console.log(
    `\nContacts benchmark: ${fmt(options.contacts)} contacts, Node ${process.version}, ${cpus().length} cores, ` +
      `response validation ${options.responseValidation ? 'on' : 'off'}; latency: ${options.runs} sequential ` +
      `requests per page after ${LATENCY_WARMUP} warm-up each (the last page is ${results[0]?.last.rows ?? 0} rows at the end of the sync order); ` +
      `upserts: ${options.connections} connections, ${options.upsertSeconds} s after 2 s of warm-up.\n`,
  );
  console.log(
    table([
      ['figure', ...results.map((r) => ENGINE_LABEL[r.engine])],
      ...figures.map(([name, f]) => [name, ...results.map(f)]),
    ]),
  );
  for (const note of notes) console.log(`\n${note}`);
  const wrong = results.filter((r) => r.upsert.non2xx > 0 || r.upsert.errors > 0);
  if (wrong.length)
    console.log(
      `\nWarning: POST /v1/contacts had non-2xx answers or errors on ${wrong.map((r) => ENGINE_LABEL[r.engine]).join(', ')}.`,
    );
}

async function bench(): Promise<void> {
  const { engines, postgresBase, notes } = await enginesToRun(options.engine);
  const results: Result[] = [];
  for (const engine of engines) results.push(await runEngine(engine, postgresBase));
  summary(results, notes);
}

await main(serve, bench);
