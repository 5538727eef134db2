// The partner check of issue 22, on a real `npm start` (the server as its own process, `node --import tsx
// server/main.ts`), on each engine: 5 clients make 200 sandbox instagram contacts write the keyword of an
// automation with an invoke block (its receiver answers 500 to a call's first attempt, 200 to the next), a
// sheets block (appends the contact's row) and a link button (whose open sends a last message). Mid-burst the
// server is killed with SIGKILL and started again on the same data; the clients carry on. Then every contact
// opens its link. It checks, and prints: no call made more than its 3 attempts, no row written twice, every
// run completed through the link, every open a `link.clicked` at the webhook receiver; and the latencies and
// the server's memory seen meanwhile.
//
//   npm run check:integrations [-- --engine pglite|postgres|both] [--contacts 200]
//
// PostgreSQL: DATABASE_URL's server (default the local one), in a scratch database it drops at the end.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createClient, type ApiClient } from '../../client/index.js';
import { createAdminClient, type AdminClient } from '../../examples/sandbox-exchange.js';
import { startReceiver, type WebhookReceiver } from '../../examples/webhook-receiver.js';
import { check } from '../../examples/check.js';
import { argInt, argValue, DEFAULT_POSTGRES, ENGINE_LABEL, type EngineName } from '../bench/common.js';
import { freePort, startServerProcess } from '../lib/server-process.js';

const CLIENTS = 5;
const ADMIN_TOKEN = `check-${randomBytes(16).toString('hex')}`;
const COLUMNS = ['Contato', 'Cidade', 'Quando'];

interface Crm {
  url: string;
  /** Attempts per Idempotency-Key. */
  attempts: Map<string, number>;
  close(): Promise<void>;
}

/** Answers a call's first attempt 500 and every later one 200 with JSON. */
async function startCrm(): Promise<Crm> {
  const attempts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? 'none');
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      res.writeHead(n === 1 ? 500 : 200, { 'Content-Type': 'application/json' });
      res.end(n === 1 ? '{"error":"try again"}' : '{"customer":{"city":"Campinas"}}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, attempts, close: () => new Promise((ok) => server.close(() => ok())) };
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** A partner's client: on `429` it waits as `Retry-After` says, then asks again. */
async function polite<T extends { response: Response }>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    const result = await call();
    if (result.response.status !== 429) return result;
    const wait = Number(result.response.headers.get('retry-after') ?? '1');
    await sleep(Math.max(1, wait) * 1000);
  }
}

/** Calls `fn` until it answers (the server may be down for a moment); counts the retries. */
async function untilUp<T>(fn: () => Promise<T>, retries: { n: number }): Promise<T> {
  for (let i = 0; ; i += 1) {
    try {
      return await fn();
    } catch (error) {
      if (i > 300) throw error;
      retries.n += 1;
      await sleep(200);
    }
  }
}

async function setUp(api: ApiClient, admin: AdminClient, crm: Crm, receiver: WebhookReceiver) {
  const me = check(await api.GET('/v1/me'), 'me');
  const accountId = me.account.id;
  const connections = check(await api.GET('/v1/connections'), 'connections');
  const instagram = connections.data.find((c) => c.channel === 'instagram' && c.status === 'connected');
  if (!instagram) throw new Error('no instagram connection');
  check(
    await admin.POST('/admin/v1/accounts/{accountId}/secrets', {
      params: { path: { accountId } },
      body: { name: 'crm', value: `s_${randomBytes(8).toString('hex')}`, domain: '127.0.0.1' },
    }),
    'secret',
  );
  const sheets = check(
    await admin.POST('/admin/v1/accounts/{accountId}/spreadsheet-accounts', {
      params: { path: { accountId } },
      body: { name: 'Planilhas' },
    }),
    'spreadsheet account',
  );
  const spreadsheet = check(
    await admin.POST('/admin/v1/sandbox/spreadsheets', {
      body: { spreadsheet_account_id: sheets.id, name: 'Leads', tabs: [{ title: 'Leads', rows: [COLUMNS] }] },
    }),
    'spreadsheet',
  );
  const hook = check(
    await api.POST('/v1/webhooks', { body: { url: receiver.url, event_types: ['link.clicked'] } }),
    'webhook',
  );
  receiver.setSecrets([hook.secret]);
  const draft = check(
    await api.POST('/v1/workflows', {
      body: {
        title: 'Partner check',
        channel: { type: 'instagram', connection_id: instagram.id },
        trigger: { events: ['message'], match: 'contains', keywords: ['parceiro'] },
        graph: {
          nodes: {
            root: { type: 'root', data: { next: ['crm'] } },
            crm: {
              type: 'invoke',
              data: {
                method: 'POST',
                endpoint: `${crm.url}/leads`,
                headers: [{ name: 'Authorization', value: 'Bearer {secret.crm}' }],
                data: '{"contact_id": "{contact.id}"}',
                fields: [{ path: '$.customer.city', name: 'cidade' }],
                next: ['linha', 'falhou'],
              },
            },
            linha: {
              type: 'sheets',
              data: {
                sheets_external_id: sheets.id,
                spreadsheet_id: spreadsheet.id,
                tab_title: 'Leads',
                operation: 'append',
                values: { Contato: '{contact.id}', Cidade: '{cidade}', Quando: '$timestamp' },
                next: ['menu'],
              },
            },
            menu: {
              type: 'buttons',
              data: {
                subtitle: 'Seu cupom, {cidade}',
                buttons: [{ id: 'cupom', title: 'Ver cupom', url: 'https://loja.example.com/cupom' }],
                next: ['fim', null, null, null],
              },
            },
            fim: { type: 'message', data: { text: 'Obrigado!', next: [null] } },
            falhou: { type: 'message', data: { text: 'O CRM falhou.', next: [null] } },
          },
        },
      },
    }),
    'create automation',
  );
  check(
    await api.POST('/v1/workflows/{workflowId}/publish', {
      params: { path: { workflowId: draft.id }, header: { 'If-Match': `"${draft.revision}"` } },
    }),
    'publish',
  );
  return { workflowId: draft.id, connectionId: instagram.id, spreadsheetId: spreadsheet.id };
}

interface EngineResult {
  engine: EngineName;
  contacts: number;
  killedAfter: number;
  restartMs: number;
  inboundRetries: number;
  inboundP50: number;
  inboundP99: number;
  runsCompleted: number;
  runsOther: Record<string, number>;
  calls: number;
  attemptsMax: number;
  overThree: number;
  rows: number;
  duplicateRows: number;
  opens: number;
  clicked: number;
  openP99: number;
  rssMiB: number;
  allRowsMs: number;
  runs: number;
}

async function checkEngine(engine: EngineName, contacts: number): Promise<EngineResult> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-partner-'));
  const dbName = `ep_partner_${randomBytes(4).toString('hex')}`;
  const pgBase = process.env.DATABASE_URL ?? DEFAULT_POSTGRES;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    APP_ENV: 'development',
    SANDBOX_ENABLED: 'true',
    WEBHOOK_DEV_TARGETS: 'true',
    INVOKE_DEV_TARGETS: 'true',
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: pgBase });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const url = new URL(pgBase);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  const crm = await startCrm();
  const receiver = await startReceiver({ secrets: [], log: () => {} });
  let server = await startServerProcess(env, baseUrl);
  try {
    const api = createClient({ baseUrl, apiKey: server.apiKey });
    const admin = createAdminClient(baseUrl, ADMIN_TOKEN);
    const { workflowId, connectionId, spreadsheetId } = await setUp(api, admin, crm, receiver);

    // The burst: 5 clients, the contacts in turn; the server is killed once half have written.
    const retries = { n: 0 };
    const latencies: number[] = [];
    let written = 0;
    const killAt = Math.floor(contacts / 2);
    let restartMs = 0;
    let restarting: Promise<void> | undefined;
    const kill = async () => {
      const t0 = performance.now();
      server.child.kill('SIGKILL');
      await server.exited;
      server = await startServerProcess(env, baseUrl);
      restartMs = performance.now() - t0;
    };
    const ids = Array.from({ length: contacts }, (_, i) => i);
    const contactIds: string[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = c; i < contacts; i += CLIENTS) {
          const id = ids[i] ?? i;
          const t0 = performance.now();
          const res = await untilUp(async () => {
            const r = await admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
              params: { path: { connectionId } },
              body: {
                from: { instagram_id: String(9_000_000_000 + id), username: `parceiro_${id}`, name: `P ${id}` },
                text: 'quero o parceiro',
              },
            });
            if (!r.data) throw new Error(`inbound ${r.response.status}`);
            return r.data;
          }, retries);
          latencies.push(performance.now() - t0);
          contactIds.push(res.contact.id);
          written += 1;
          if (written === killAt) restarting = kill();
        }
      }),
    );
    await restarting;
    const uniqueContacts = [...new Set(contactIds)];

    // Every run reaches the link button (its call retried after the 500, the row appended).
    const runsOf = async () => {
      const all = [];
      let cursor: string | undefined;
      do {
        const page = check(
          await polite(() =>
            api.GET('/v1/workflows/{workflowId}/runs', {
              params: { path: { workflowId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
            }),
          ),
          'runs',
        );
        all.push(...page.data);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return all;
    };
    // Every run gets past its call (retried after the 500) and appends its row; a call whose job the killed
    // process held waits for that claim's lease to run out (PostgreSQL).
    const rowsNow = async () =>
      (check(
        await untilUp(
          () => admin.GET('/admin/v1/sandbox/spreadsheets/{spreadsheetId}', { params: { path: { spreadsheetId } } }),
          retries,
        ),
        'spreadsheet',
      ).tabs[0]?.rows.length ?? 1) - 1;
    const burstEnded = performance.now();
    const deadline = Date.now() + 420_000;
    while ((await rowsNow()) < uniqueContacts.length && Date.now() < deadline) await sleep(500);
    const allRowsMs = performance.now() - burstEnded;

    // The link each run sent: the run waits on its buttons.
    const linkOf = async (runId: string) => {
      const full = check(
        await polite(() =>
          api.GET('/v1/workflows/{workflowId}/runs/{runId}', { params: { path: { workflowId, runId } } }),
        ),
        'run',
      );
      const messageId = full.steps.find((s) => s.node_id === 'menu')?.message_id;
      if (!messageId) return undefined;
      const m = check(
        await polite(() => api.GET('/v1/messages/{messageId}', { params: { path: { messageId } } })),
        'message',
      );
      return m.attachments
        .flatMap((a) => (a.type === 'cards' ? a.cards.flatMap((card) => card.buttons ?? []) : []))
        .find((b) => b.type === 'open_url')?.url;
    };
    const linkByRun = new Map<string, string>();
    const linksBy = Date.now() + 60_000;
    while (linkByRun.size < uniqueContacts.length && Date.now() < linksBy) {
      for (const run of (await untilUp(runsOf, retries)).filter((r) => r.status === 'waiting'))
        if (!linkByRun.has(run.id)) {
          const url = await linkOf(run.id);
          if (url) linkByRun.set(run.id, url);
        }
      if (linkByRun.size < uniqueContacts.length) await sleep(1000);
    }
    const links = [...linkByRun.values()];

    // Every contact opens its link, 5 at a time, as a browser does.
    const openLatencies: number[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = c; i < links.length; i += CLIENTS) {
          const t0 = performance.now();
          const r = await fetch(links[i] ?? '', { redirect: 'manual' });
          openLatencies.push(performance.now() - t0);
          if (r.status !== 302) throw new Error(`open answered ${r.status}`);
        }
      }),
    );
    const settle = Date.now() + 60_000;
    let runs = await runsOf();
    while (Date.now() < settle) {
      const clicked = new Set(receiver.requests.filter((r) => r.type === 'link.clicked').map((r) => r.eventId));
      runs = await runsOf();
      if (clicked.size >= links.length && runs.every((r) => r.status !== 'waiting' && r.status !== 'running')) break;
      await sleep(500);
    }
    const sheet = check(
      await admin.GET('/admin/v1/sandbox/spreadsheets/{spreadsheetId}', { params: { path: { spreadsheetId } } }),
      'spreadsheet',
    );
    const rows = (sheet.tabs[0]?.rows ?? []).slice(1);
    // A client's retry of a write whose answer the kill lost is a second message, and may start a second run:
    // a contact may have as many rows as runs, never more.
    const perContact = new Map<string, number>();
    for (const row of rows) perContact.set(row[0] ?? '', (perContact.get(row[0] ?? '') ?? 0) + 1);
    const runsPerContact = new Map<string, number>();
    for (const r of runs) runsPerContact.set(r.contact_id, (runsPerContact.get(r.contact_id) ?? 0) + 1);
    const attempts = [...crm.attempts.values()];
    const status: Record<string, number> = {};
    for (const r of runs) status[r.status] = (status[r.status] ?? 0) + 1;
    const { completed = 0, ...runsOther } = status;
    const rss = await fetch(`${baseUrl}/metrics`)
      .then((r) => r.text())
      .then((t) => Number(/^process_resident_memory_bytes (\d+)/m.exec(t)?.[1] ?? 0));
    latencies.sort((a, b) => a - b);
    openLatencies.sort((a, b) => a - b);
    return {
      engine,
      contacts: uniqueContacts.length,
      killedAfter: killAt,
      restartMs,
      inboundRetries: retries.n,
      inboundP50: pct(latencies, 0.5),
      inboundP99: pct(latencies, 0.99),
      runsCompleted: completed,
      runsOther,
      calls: crm.attempts.size,
      attemptsMax: Math.max(0, ...attempts),
      overThree: attempts.filter((n) => n > 3).length,
      rows: rows.length,
      duplicateRows: [...perContact].filter(([contact, n]) => n > (runsPerContact.get(contact) ?? 0)).length,
      runs: runs.length,
      opens: links.length,
      clicked: new Set(receiver.requests.filter((r) => r.type === 'link.clicked').map((r) => r.eventId)).size,
      openP99: pct(openLatencies, 0.99),
      rssMiB: rss / 1024 / 1024,
      allRowsMs,
    };
  } finally {
    server.child.kill('SIGTERM');
    await Promise.race([server.exited, sleep(20_000)]);
    await crm.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (engine === 'postgres') {
      const admin = new pg.Client({ connectionString: pgBase });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
  }
}

const engineArg = argValue('engine') ?? 'both';
const engines: EngineName[] =
  engineArg === 'both' ? ['pglite', 'postgres'] : [engineArg === 'postgres' ? 'postgres' : 'pglite'];
const contacts = argInt('contacts', 200);
let failed = false;
for (const engine of engines) {
  const r = await checkEngine(engine, contacts);
  const ok =
    r.overThree === 0 &&
    r.duplicateRows === 0 &&
    r.runsCompleted === r.runs &&
    r.rows === r.runs &&
    r.clicked === r.opens &&
    r.opens === r.runs;
  failed ||= !ok;
  console.log(`\n${ENGINE_LABEL[engine]}: ${ok ? 'PASSED' : 'FAILED'}`);
  console.log(
    `  ${r.contacts} contacts by ${CLIENTS} clients; SIGKILL after ${r.killedAfter} writes, back in ${Math.round(r.restartMs)} ms; ` +
      `${r.inboundRetries} client retries while it was down`,
  );
  console.log(`  inbound p50 ${r.inboundP50.toFixed(1)} ms, p99 ${r.inboundP99.toFixed(1)} ms (retries included)`);
  console.log(
    `  invoke: ${r.calls} calls, at most ${r.attemptsMax} attempts each, ${r.overThree} over 3 (each first attempt answered 500)`,
  );
  console.log(
    `  sheets: ${r.rows} rows for ${r.runs} runs, ${r.duplicateRows} contacts with more rows than runs; the last row ${(r.allRowsMs / 1000).toFixed(1)} s after the burst`,
  );
  console.log(
    `  runs: ${r.runsCompleted} completed${Object.keys(r.runsOther).length ? `, others ${JSON.stringify(r.runsOther)}` : ''}`,
  );
  console.log(`  links: ${r.opens} opened (302 p99 ${r.openP99.toFixed(1)} ms), ${r.clicked} link.clicked received`);
  console.log(`  server RSS at the end: ${r.rssMiB.toFixed(0)} MiB`);
}
process.exit(failed ? 1 : 0);
