// `npm run bench:messaging` (also the last part of `npm run bench`): the messaging routes, on embedded PGlite and
// on PostgreSQL:
//   1. seeding: the account, its key and a whatsapp connection through the domain functions (createAccount,
//      createApiKey, createConnection); a pool of conversations with an open reply window, each opened by a
//      contact writing through the sandbox (contactWrites, as POST /admin/v1/sandbox/connections/{id}/inbound
//      does); one more conversation opened the same way, then filled with 50,000 messages in all — bulk
//      `INSERT … SELECT FROM unnest(…)` statements, older than the contact's opening message, both directions,
//      one in ten with an image, one in twenty sharing the previous one's instant (to the microsecond); ANALYZE;
//   2. a walk of that conversation over HTTP: GET /v1/conversations/{id}/messages?limit=50 (newest first, the
//      default order) following next_cursor to the end, checking it read every message once and in order;
//   3. p50/p99 of that route on the first page and on the last page (the cursor of the walk's last request),
//      sequential requests alternating between the two after a warm-up: keyset pages should cost the same
//      wherever they start;
//   4. sends through the sandbox channel, POST /v1/conversations/{id}/messages with autocannon (8 connections,
//      5 s after 2 s of warm-up), each with a fresh Idempotency-Key, round-robin over the conversation pool:
//      (a) a text, (b) an image uploaded once (POST /v1/media, then PUT to its upload_url) and sent by media_id.
//      Every answer must be 201.
//
// Each engine gets its own server process started like main.ts, which also seeds (common.ts: the account rate
// limit is counted in the database but never refuses, the edge and per-second ceilings are raised, response
// validation is off as in production unless --response-validation). The HTTP load comes from this process.
// PGlite lives in a temporary directory; PostgreSQL (DATABASE_URL, or postgres://postgres@127.0.0.1:5432/test)
// gets a scratch database `ep_bench_<random>`, dropped at the end, on failure and on Ctrl-C too.
//
// Flags: --messages N (50000), --engine pglite|postgres|both (both), --batch N (2000), --runs N (200 latency
// samples per page), --send-seconds N (5), --connections N (8), --conversations N (50, the send pool),
// --response-validation.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fakerPT_BR as faker } from '@faker-js/faker';
import autocannon from 'autocannon';
import type { Insertable } from 'kysely';
import type { MessagesTable } from '../../server/store/schema.js';
import {
  analyze,
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  fmt,
  insertColumns,
  main,
  ms,
  openBenchServer,
  phoneOf,
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
  messages: argInt('messages', 50_000),
  batch: argInt('batch', 2000),
  runs: argInt('runs', 200),
  sendSeconds: argInt('send-seconds', 5),
  connections: argInt('connections', 8),
  conversations: argInt('conversations', 50),
  responseValidation: process.argv.includes('--response-validation'),
  engine: engineOption(),
};

const LIMIT = 50;
const LATENCY_WARMUP = 30;
const SEND_WARMUP_SECONDS = 2;

/** A 1×1 PNG: the bytes do not matter to a send by media_id, only the media's content type and size. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

interface Ready {
  url: string;
  apiKey: string;
  /** The send pool: conversations whose reply window is open. */
  conversationIds: string[];
  /** The conversation of `messages` messages. */
  longConversationId: string;
  messages: number;
  poolSeconds: number;
  seedSeconds: number;
  analyzeSeconds: number;
}

/** The columns the seeding writes, with their SQL types (the others keep their defaults). */
const MESSAGE_COLUMNS: Partial<Record<keyof MessagesTable, string>> = {
  id: 'uuid',
  account_id: 'uuid',
  conversation_id: 'uuid',
  contact_id: 'uuid',
  connection_id: 'uuid',
  channel: 'text',
  type: 'text',
  direction: 'text',
  sender_type: 'text',
  sender_name: 'text',
  sender_api_key_id: 'uuid',
  text: 'text',
  attachments: 'jsonb',
  status: 'text',
  reactions: 'jsonb',
  read_at: 'timestamptz',
  provider_message_id: 'text',
  created_at: 'timestamptz',
};

/** An instant as PostgreSQL keeps it: ISO 8601 with six fraction digits (`micros` the three below the ms). */
const isoMicros = (ms: number, micros: number) =>
  new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);

// ---------------------------------------------------------------------------------------------------------
// Child mode: open the database (migrations run at open), seed it, serve it, report over IPC.
// ---------------------------------------------------------------------------------------------------------
async function serve(): Promise<void> {
  const { createAccount } = await import('../../server/domain/accounts/accounts.js');
  const { createApiKey, SCOPES } = await import('../../server/domain/accounts/keys.js');
  const { createConnection } = await import('../../server/domain/console/connections.js');
  const { contactWrites } = await import('../../server/domain/sandbox/actions.js');
  const server = await openBenchServer();
  const { db, clock } = server;

  // The account and what the console sets up, through the domain functions.
  const account = await createAccount(db, clock, {
    name: 'Bench messaging',
    alias: `bench-messaging-${randomBytes(4).toString('hex')}`,
  });
  const key = await createApiKey(db, clock, {
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

  // Contacts write first, through the sandbox: each opens a conversation and its 24-hour reply window.
  faker.seed(20261120);
  const baseUrl = 'http://127.0.0.1'; // only in the events' message data; the attachments' urls use it
  const writes = (i: number) =>
    contactWrites(
      db,
      clock,
      connection,
      {
        from: { phone: phoneOf(i).nine, name: faker.person.fullName() },
        type: 'message',
        text: 'Oi! Vocês têm o Runner no 38?',
        attachments: [],
        post: null,
        reply_to_message_id: null,
        button: null,
        is_unsupported: false,
      },
      baseUrl,
    );
  const poolStarted = performance.now();
  const conversationIds: string[] = [];
  for (let i = 0; i < Number(process.env.BENCH_CONVERSATIONS); i++)
    conversationIds.push((await writes(i)).conversation.id);
  const poolSeconds = (performance.now() - poolStarted) / 1000;

  // The long conversation: its opening message, then the older ones in bulk.
  const total = Number(process.env.BENCH_MESSAGES);
  const batch = Number(process.env.BENCH_BATCH);
  const opened = await writes(conversationIds.length);
  const conversation = opened.conversation;
  const contact = opened.contact;
  const random = rng(20261120);
  const DAY = 86_400_000;
  const newest = Date.parse(opened.message.created_at) - 1000;
  const oldest = newest - 180 * DAY;
  // The older messages, oldest first: evenly spread with jitter, one in twenty at the previous one's instant.
  const step = (newest - oldest) / Math.max(1, total - 1);
  const older = total - 1;
  let previous = { ms: oldest, micros: 0 };
  const bar = progressBar('seeding messages', older);
  const seedStarted = performance.now();
  for (let from = 0; from < older; from += batch) {
    const rows: Insertable<MessagesTable>[] = [];
    for (let i = from; i < Math.min(older, from + batch); i++) {
      const at =
        i > 0 && random() < 0.05
          ? previous
          : { ms: Math.floor(oldest + i * step + random() * step * 0.5), micros: Math.floor(random() * 1000) };
      previous = at;
      const createdAt = isoMicros(at.ms, at.micros);
      const inbound = random() < 0.5;
      const image =
        random() < 0.1
          ? [
              {
                type: 'image',
                media_id: randomUUID(),
                content_type: 'image/jpeg',
                size: 20_000 + Math.floor(random() * 400_000),
                filename: null,
                expires_at: inbound ? new Date(at.ms + 90 * DAY).toISOString() : null,
              },
            ]
          : [];
      rows.push({
        id: randomUUID(),
        account_id: account.id,
        conversation_id: conversation.id,
        contact_id: contact.id,
        connection_id: connection.id,
        channel: 'whatsapp',
        type: 'message',
        direction: inbound ? 'inbound' : 'outbound',
        sender_type: inbound ? 'contact' : 'api',
        sender_name: inbound ? contact.name : key.key.name,
        sender_api_key_id: inbound ? null : key.key.id,
        text: image.length > 0 && random() < 0.5 ? null : faker.lorem.sentence({ min: 3, max: 25 }),
        attachments: JSON.stringify(image),
        status: inbound ? 'received' : 'sent',
        reactions: '[]',
        read_at: inbound ? isoMicros(at.ms + 60_000, 0) : null,
        provider_message_id: `sandbox-${randomUUID()}`,
        created_at: createdAt,
      });
    }
    await db.transaction().execute((tx) => insertColumns(tx, 'messages', MESSAGE_COLUMNS, rows));
    bar.update(from + rows.length);
  }
  bar.end();
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const analyzeSeconds = await analyze(db, ['messages', 'conversations']);

  await server.listen((url): Ready => ({
    url,
    apiKey: key.secret,
    conversationIds,
    longConversationId: conversation.id,
    messages: total,
    poolSeconds,
    seedSeconds,
    analyzeSeconds,
  }));
}

// ---------------------------------------------------------------------------------------------------------
// Parent mode: per engine, a server process, the walk, the page latencies, the sends; then the table.
// ---------------------------------------------------------------------------------------------------------
interface SendFigures {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  created: number;
  /** Answers other than 201, plus connection errors and timeouts. */
  non201: number;
  statuses: string;
}

interface Result {
  engine: EngineName;
  seed: Ready;
  walk: { pages: number; seconds: number; distinct: number };
  first: { p50: number; p99: number };
  last: { p50: number; p99: number; rows: number };
  text: SendFigures;
  image: SendFigures;
}

interface MessagePage {
  data: { id: string; created_at: string }[];
  next_cursor: string | null;
}

function runEngine(engine: EngineName, postgresBase: string): Promise<Result> {
  const env = {
    RESPONSE_VALIDATION: String(options.responseValidation),
    BENCH_MESSAGES: String(options.messages),
    BENCH_BATCH: String(options.batch),
    BENCH_CONVERSATIONS: String(options.conversations),
  };
  return withBenchServer<Ready, Result>(engine, postgresBase, self, env, async (ready) => {
    process.stderr.write(
      `  ${ready.conversationIds.length} conversations opened by contactWrites in ${ready.poolSeconds.toFixed(1)} s; ` +
        `seeded ${fmt(ready.messages)} messages in ${ready.seedSeconds.toFixed(1)} s: ` +
        `${fmt(ready.messages / ready.seedSeconds)} messages/s; ANALYZE ${ready.analyzeSeconds.toFixed(2)} s\n`,
    );
    const auth = { Authorization: `Bearer ${ready.apiKey}`, Accept: 'application/json' };
    const get = async (path: string): Promise<MessagePage> => {
      const res = await fetch(ready.url + path, { headers: auth });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as MessagePage;
    };
    const page = (cursor: string | null) =>
      `/v1/conversations/${ready.longConversationId}/messages?limit=${LIMIT}` +
      (cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');

    // Warm-up: the validator compiles the spec at the first request; V8 and the database caches need a few more.
    for (let i = 0; i < 20; i++) await get(page(null));

    // 2. The walk to the last page, newest first.
    const ids = new Set<string>();
    let pages = 0;
    let cursor: string | null = null;
    let lastPageCursor: string | null = null;
    let previous = '\uffff';
    const walkBar = progressBar(`walk, limit=${LIMIT}`, ready.messages);
    const walkStarted = performance.now();
    for (;;) {
      const body = await get(page(cursor));
      pages++;
      for (const message of body.data) {
        const position = `${message.created_at} ${message.id}`;
        if (position >= previous) throw new Error(`order broken at ${position} (after ${previous})`);
        previous = position;
        ids.add(message.id);
      }
      if (pages % 20 === 0) walkBar.update(ids.size);
      if (body.next_cursor === null) {
        lastPageCursor = cursor;
        break;
      }
      cursor = body.next_cursor;
    }
    const walkSeconds = (performance.now() - walkStarted) / 1000;
    walkBar.update(ids.size);
    walkBar.end();
    if (ids.size !== ready.messages)
      throw new Error(`the walk read ${ids.size} distinct messages of ${ready.messages}`);

    // 3. The first page and the last page, alternating.
    process.stderr.write(`  page latency, limit=${LIMIT}, ${options.runs} runs each\n`);
    const firstPath = page(null);
    const lastPath = page(lastPageCursor);
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

    // 4. Sends, round-robin over the pool, a fresh Idempotency-Key each.
    let next = 0;
    const sends = (seconds: number, body: string) =>
      autocannon({
        url: ready.url,
        connections: options.connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/',
            body,
            setupRequest: (request) => ({
              ...request,
              path: `/v1/conversations/${ready.conversationIds[next++ % ready.conversationIds.length]}/messages`,
              headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
            }),
          },
        ],
      });
    const measureSends = async (label: string, body: object): Promise<SendFigures> => {
      process.stderr.write(
        `  POST …/messages (${label}), ${options.connections} connections, ${options.sendSeconds} s\n`,
      );
      const json = JSON.stringify(body);
      await sends(SEND_WARMUP_SECONDS, json);
      const r = await sends(options.sendSeconds, json);
      const created = r.statusCodeStats?.['201']?.count ?? 0;
      return {
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        total: r.requests.total,
        created,
        non201: r.requests.total - created + r.errors + r.timeouts,
        statuses: Object.entries(r.statusCodeStats ?? {})
          .map(([code, s]) => `${code}×${s.count ?? 0}`)
          .join(' '),
      };
    };
    const text = await measureSends('text', { text: 'Seu pedido #4821 saiu para entrega. Chega amanhã até as 18h.' });

    // The image: created and uploaded once, then sent by media_id.
    const created = await fetch(`${ready.url}/v1/media`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ content_type: 'image/png' }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/media: ${created.status} ${await created.text()}`);
    const media = (await created.json()) as { id: string; upload_url: string };
    const upload = await fetch(media.upload_url, {
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      body: PNG,
    });
    if (upload.status !== 204) throw new Error(`PUT upload_url: ${upload.status} ${await upload.text()}`);
    const image = await measureSends('image', { attachments: [{ type: 'image', media_id: media.id }] });

    return {
      engine,
      seed: ready,
      walk: { pages, seconds: walkSeconds, distinct: ids.size },
      first: { p50: quantile(firstSamples, 0.5), p99: quantile(firstSamples, 0.99) },
      last: { p50: quantile(lastSamples, 0.5), p99: quantile(lastSamples, 0.99), rows: lastRows },
      text,
      image,
    };
  });
}

function summary(results: Result[], notes: string[]): void {
  const sendFigures = (name: string, of: (r: Result) => SendFigures): [string, (r: Result) => string][] => [
    [`send ${name}: req/s`, (r) => fmt(of(r).rps)],
    [`send ${name}: p50 / p99`, (r) => `${of(r).p50} / ${of(r).p99} ms`],
    [`send ${name}: 201 / non-201`, (r) => `${fmt(of(r).created)} / ${of(r).non201}`],
  ];
  const figures: [string, (r: Result) => string][] = [
    [
      'conversations opened (contactWrites)',
      (r) => `${r.seed.conversationIds.length + 1} in ${r.seed.poolSeconds.toFixed(1)} s`,
    ],
    ['messages seeded', (r) => fmt(r.seed.messages)],
    ['seeding time', (r) => `${r.seed.seedSeconds.toFixed(1)} s (+ANALYZE ${r.seed.analyzeSeconds.toFixed(2)} s)`],
    ['seeding rate', (r) => `${fmt(r.seed.messages / r.seed.seedSeconds)} messages/s`],
    [`walk, limit=${LIMIT}: time`, (r) => `${r.walk.seconds.toFixed(1)} s (${fmt(r.walk.pages)} pages)`],
    [
      'walk: distinct ids read',
      (r) => `${fmt(r.walk.distinct)} ${r.walk.distinct === r.seed.messages ? 'ok' : 'WRONG'}`,
    ],
    [`first page, limit=${LIMIT}: p50 / p99`, (r) => `${ms(r.first.p50)} / ${ms(r.first.p99)} ms`],
    [`last page, limit=${LIMIT}: p50 / p99`, (r) => `${ms(r.last.p50)} / ${ms(r.last.p99)} ms`],
    [
      'last / first: p50 / p99',
      (r) => `${(r.last.p50 / r.first.p50).toFixed(2)}× / ${(r.last.p99 / r.first.p99).toFixed(2)}×`,
    ],
    ...sendFigures('text', (r) => r.text),
    ...sendFigures('image', (r) => r.image),
  ];
  console.log(
    `\nMessaging benchmark: Node ${process.version}, ${cpus().length} cores, response validation ` +
      `${options.responseValidation ? 'on' : 'off'}; pages: GET /v1/conversations/{id}/messages?limit=${LIMIT} on a ` +
      `conversation of ${fmt(options.messages)} messages, ${options.runs} sequential requests per page after ` +
      `${LATENCY_WARMUP} warm-up each (the last page holds ${results[0]?.last.rows ?? 0} rows, the oldest); sends: ` +
      `POST /v1/conversations/{id}/messages through the sandbox channel, a fresh Idempotency-Key each, ` +
      `${options.connections} connections over ${options.conversations} conversations, ${options.sendSeconds} s after ` +
      `${SEND_WARMUP_SECONDS} s of warm-up.\n`,
  );
  console.log(
    table([
      ['figure', ...results.map((r) => ENGINE_LABEL[r.engine])],
      ...figures.map(([name, f]) => [name, ...results.map(f)]),
    ]),
  );
  for (const note of notes) console.log(`\n${note}`);
  const wrong = results.flatMap((r) =>
    (['text', 'image'] as const)
      .filter((kind) => r[kind].non201 > 0)
      .map((kind) => `${ENGINE_LABEL[r.engine]} ${kind} (${r[kind].statuses})`),
  );
  if (wrong.length) {
    console.log(`\nWarning: sends answered other than 201 or failed: ${wrong.join(', ')}.`);
    process.exitCode = 1;
  }
}

async function bench(): Promise<void> {
  const { engines, postgresBase, notes } = await enginesToRun(options.engine);
  const results: Result[] = [];
  for (const engine of engines) results.push(await runEngine(engine, postgresBase));
  summary(results, notes);
}

await main(serve, bench);
