// The invoke block's field paths are data, never code (issue 33; docs/security.md, "JSONPath"). Through real
// published automations and real JSON answers on loopback, on both engines:
//   - the escape payloads of the jsonpath-plus advisories (constructor chains, `Function.call`, `__defineGetter__`
//     through a shared prototype, the assignment and regex plugins) are refused at save as `schema_violation`;
//     an automation that holds them anyway (stored before the check) copies nothing and runs nothing (with
//     jsonpath-plus 10.4 back, the review's payload runs and this test fails);
//   - paths that parse but reach for the prototype (`$.constructor`, `$['__proto__']`, …) select nothing;
//   - a `match()` pattern that backtracks for ever over the answer neither holds the event loop nor copies: the
//     API keeps answering while the worker's budget runs out;
//   - no automation stores a text field's value over 1000 characters: an invoke copy is skipped (the answer was a
//     success), a question's answer fails its step as a data block's refused write does, and the run goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_PATHS_BUDGET_MS } from '../../server/engine/blocks/invoke/field-evaluator.js';
import { ANY, engineHarness } from './engine-harness.js';
import { engines } from './harness.js';
import { json } from './http-helpers.js';
import { Receiver } from './invoke-receiver.js';

// What each payload runs if it escapes: no parentheses, which jsonpath-plus's path splitter refuses inside quotes.
// It breaks JSON.stringify in the thread it runs in, so a field copied after it as JSON text shows it ran.
const CODE = 'JSON.stringify=String';
const NATIVE_STRINGIFY = JSON.stringify;

/** Escape payloads of the jsonpath-plus advisories (CVE-2024-21534, CVE-2025-1302 and the 10.x follow-ups). */
const ESCAPES: Array<[string, string]> = [
  ['the review’s nested filter', `$..[?(@.constructor[(@.getPrototypeOf(@).constructor('${CODE}')())])]`],
  ['a constructor chain', `$[?(@.constructor.constructor('${CODE}')())]`],
  ['Function.call', `$..[?(@.constructor.constructor.call(null, '${CODE}')())]`],
  [
    '__defineGetter__ through a shared prototype',
    `$..[?(@.__defineGetter__('toString', @.constructor.constructor('${CODE}')) || @.toString)]`,
  ],
  ['the assignment plugin', `$..[?(p='${CODE}';a=''[['constructor']][['constructor']](p);a())]`],
  ['the regex plugin', `$..[?(@.s.match(/(a+)+b/) && @.constructor.constructor('${CODE}')())]`],
  ['a script expression', `$.items[(@.length-1, @.constructor.constructor('${CODE}')())]`],
];

/** Paths that parse and reach for what is not the answer's own. */
const PROTOTYPE_READS = [
  '$.constructor',
  "$['__proto__']",
  "$['constructor']['constructor']",
  '$..constructor',
  '$.s.length',
  '$..[?@.toString]',
  '$.items[?@.constructor].x',
];

const ANSWER = { a: { b: 1 }, ok: 'yes', s: 'aaaa', items: [{ x: 1 }, { x: 2 }], nested: { a: { b: { c: 'deep' } } } };

describe.each(engines)('invoke field paths are data on %s', (engine) => {
  const hx = engineHarness(engine, { INVOKE_DEV_TARGETS: 'true', WEBHOOK_DEV_TARGETS: 'true' });
  const { h, setUp, publish, runsOf, runOf, contactOf, fieldOf, field, chain, say, sentTexts } = hx;
  const receiver = new Receiver();

  beforeAll(async () => receiver.start());
  afterAll(async () => receiver.stop());

  const graphOf = (fields: Array<{ path: string; name: string }>) => ({
    nodes: {
      root: { type: 'root', data: { next: ['inv'] } },
      inv: { type: 'invoke', data: { method: 'POST', endpoint: receiver.url(), fields, next: [null, null] } },
    },
  });

  /** A contact writes to the published automation and the jobs run: its run's invoke step, and the contact. */
  async function runWith(s: Awaited<ReturnType<typeof setUp>>, workflowId: string) {
    const { contact } = await s.writes('oi');
    await hx.drain();
    const [run] = await runsOf(s.me, workflowId);
    const read = await runOf(s.me, workflowId, run!.id);
    return { step: read.steps.find((st) => st.node_id === 'inv'), contact: await contactOf(s.me, contact.id) };
  }

  it('refuses each escape payload at save, as a schema_violation of the block at its path', async () => {
    const s = await setUp();
    await field(s.me, 'f0');
    for (const [what, path] of ESCAPES) {
      const answer = await s.me.call('POST', '/v1/workflows/validate', {
        body: {
          channel: { type: 'whatsapp', connection_id: s.connection.id },
          trigger: ANY,
          graph: graphOf([{ path, name: 'f0' }]),
        },
      });
      const body = await json<{ valid: boolean; errors: Array<Record<string, unknown>> }>(answer);
      expect(body.valid, what).toBe(false);
      expect(body.errors, what).toContainEqual(
        expect.objectContaining({ code: 'schema_violation', node_id: 'inv', path: 'nodes.inv.data.fields[0].path' }),
      );
      const created = await s.me.call('POST', '/v1/workflows', {
        body: {
          title: 'escape',
          channel: { type: 'whatsapp', connection_id: s.connection.id },
          trigger: ANY,
          graph: graphOf([{ path, name: 'f0' }]),
        },
      });
      expect(created.status, what).toBe(422);
      const refused = await json<{ context: { code: string; errors: Array<Record<string, unknown>> } }>(created, 422);
      expect(refused.context.code).toBe('invalid_graph');
      expect(refused.context.errors).toContainEqual(
        expect.objectContaining({ code: 'schema_violation', node_id: 'inv', path: 'nodes.inv.data.fields[0].path' }),
      );
    }
  });

  it('refuses at once a path the parser would take seconds or a crash to refuse (open groups nested deep)', async () => {
    const s = await setUp();
    await field(s.me, 'f0');
    const path = `$[?${'length('.repeat(70)}`;
    const started = performance.now();
    const answer = await s.me.call('POST', '/v1/workflows/validate', {
      body: {
        channel: { type: 'whatsapp', connection_id: s.connection.id },
        trigger: ANY,
        graph: graphOf([{ path, name: 'f0' }]),
      },
    });
    const body = await json<{ errors: Array<Record<string, unknown>> }>(answer);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(body.errors).toContainEqual(
      expect.objectContaining({ code: 'schema_violation', node_id: 'inv', path: 'nodes.inv.data.fields[0].path' }),
    );
  });

  it('an automation holding the payloads anyway (stored before the check) copies nothing and runs nothing', async () => {
    const s = await setUp();
    const names = ESCAPES.map((_, i) => `e${i + 1}`);
    for (const name of [...names, 'ok', 'obj']) await field(s.me, name);
    // Published with placeholders, then the payloads written into the stored version, as an older server kept them.
    // The plain paths come after the payloads: they would show a payload that ran before them.
    const placeholders = [
      ...ESCAPES.map((_, i) => ({ path: `$.p${i}`, name: `e${i + 1}` })),
      { path: '$.ok', name: 'ok' },
      { path: '$.a', name: 'obj' },
    ];
    const workflowId = await publish(s.me, s.connection.id, graphOf(placeholders), ANY, 'escapes');
    const version = await h.t.database.db
      .selectFrom('workflow_versions')
      .select(['id', 'graph'])
      .where('workflow_id', '=', workflowId)
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(version.graph).replace(/"\$\.p(\d+)"/g, (_all, i: string) =>
      JSON.stringify(ESCAPES[Number(i)]![1]),
    );
    expect(stored).toContain('getPrototypeOf');
    await h.t.database.db
      .updateTable('workflow_versions')
      .set({ graph: stored })
      .where('id', '=', version.id)
      .execute();

    receiver.reset({ status: 200, body: JSON.stringify(ANSWER) });
    const r = await runWith(s, workflowId);
    expect(receiver.seen).toHaveLength(1);
    expect(r.step).toMatchObject({ status: 'completed', output: 0 });
    // The evaluator ran (the plain paths copied, the object as JSON text); no payload copied, none ran.
    expect(fieldOf(r.contact, 'ok')).toBe('yes');
    expect(fieldOf(r.contact, 'obj')).toBe('{"b":1}');
    for (const name of names) expect(fieldOf(r.contact, name), name).toBeNull();
    expect(JSON.stringify).toBe(NATIVE_STRINGIFY);
  });

  it('paths that parse but reach for the prototype select nothing; the answer’s own members still copy', async () => {
    const s = await setUp();
    const fields = [
      ...PROTOTYPE_READS.map((path, i) => ({ path, name: `r${i}` })),
      { path: '$.nested..c', name: 'deep' },
      { path: '$.items[-1].x', name: 'last' },
      { path: '$.items[?@.x > 1].x', name: 'filtered' },
    ];
    for (const f of fields) await field(s.me, f.name);
    const workflowId = await publish(s.me, s.connection.id, graphOf(fields), ANY, 'prototype');
    receiver.reset({ status: 200, body: JSON.stringify(ANSWER) });
    const r = await runWith(s, workflowId);
    expect(r.step).toMatchObject({ status: 'completed', output: 0 });
    PROTOTYPE_READS.forEach((path, i) => expect(fieldOf(r.contact, `r${i}`), path).toBeNull());
    expect(fieldOf(r.contact, 'deep')).toBe('deep');
    expect(fieldOf(r.contact, 'last')).toBe('2');
    expect(fieldOf(r.contact, 'filtered')).toBe('2');
  });

  it('a match() pattern that backtracks for ever holds neither the event loop nor the API, and copies nothing', async () => {
    const s = await setUp();
    await field(s.me, 'ok');
    await field(s.me, 'm');
    const fields = [
      { path: '$.ok', name: 'ok' },
      { path: "$[?match(@, '(a+)+b')]", name: 'm' },
    ];
    const workflowId = await publish(s.me, s.connection.id, graphOf(fields), ANY, 'backtracking');
    receiver.reset({ status: 200, body: JSON.stringify({ ok: 'yes', s: `${'a'.repeat(40)}c` }) });

    // The event loop's longest pause, and the API's answers, while the run and its call are worked.
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const meTimes: number[] = [];
    let working = true;
    const pinging = (async () => {
      while (working) {
        const started = performance.now();
        expect((await s.me.call('GET', '/v1/me')).status).toBe(200);
        meTimes.push(performance.now() - started);
        await new Promise((ok) => setTimeout(ok, 20));
      }
    })();
    const started = performance.now();
    const r = await runWith(s, workflowId).finally(() => {
      working = false;
    });
    const took = performance.now() - started;
    await pinging;
    clearInterval(ticker);
    // The budget (1 s) ran out: the worker was stopped, the answer copied nothing, the step took its output.
    expect(took).toBeGreaterThanOrEqual(1_000);
    expect(r.step).toMatchObject({ status: 'completed', output: 0 });
    expect(fieldOf(r.contact, 'm')).toBeNull();
    expect(fieldOf(r.contact, 'ok')).toBeNull();
    // Read on this thread, the path would hold the loop for ever (the test would never end); in the worker, the
    // API answered all along. The bounds are the budget: this in-process app shares its loop with PGlite and the
    // rest of a loaded suite (test/server/tenant-load.test.ts measures a real server process).
    expect(meTimes.length).toBeGreaterThan(5);
    expect(Math.max(...meTimes)).toBeLessThan(FIELD_PATHS_BUDGET_MS);
    expect(longest).toBeLessThan(FIELD_PATHS_BUDGET_MS);
  });

  it('refuses nothing that parses: the decision table’s forms are accepted at save', async () => {
    const s = await setUp();
    await field(s.me, 'f0');
    for (const path of [
      '$.a.b',
      "$['a']['b c']",
      '$.a[*]',
      '$.a[0:2]',
      '$.a[-1]',
      '$..id',
      '$.a[?@.p < 10]',
      "$[?match(@.c, 'A[0-9]+')]",
      "$[?search(@.c, 'x')]",
      '$[?length(@.a) > 2]',
      '$[?count(@.*) == 1]',
      '$[?value(@.a) == 1]',
    ]) {
      const answer = await s.me.call('POST', '/v1/workflows/validate', {
        body: {
          channel: { type: 'whatsapp', connection_id: s.connection.id },
          trigger: ANY,
          graph: graphOf([{ path, name: 'f0' }]),
        },
      });
      const body = await json<{ errors: Array<{ code: string }> }>(answer);
      expect(
        body.errors.filter((e) => e.code === 'schema_violation'),
        path,
      ).toEqual([]);
    }
  });

  it('an invoke copy over 1000 characters is not stored; 1000 are', async () => {
    const s = await setUp();
    await field(s.me, 'fits');
    await field(s.me, 'over');
    const fields = [
      { path: '$.fits', name: 'fits' },
      { path: '$.over', name: 'over' },
    ];
    const workflowId = await publish(s.me, s.connection.id, graphOf(fields), ANY, 'lengths');
    receiver.reset({ status: 200, body: JSON.stringify({ fits: 'é'.repeat(1000), over: `1${' '.repeat(150_000)}x` }) });
    const r = await runWith(s, workflowId);
    expect(r.step).toMatchObject({ status: 'completed', output: 0 });
    expect(fieldOf(r.contact, 'fits')).toBe('é'.repeat(1000));
    expect(fieldOf(r.contact, 'over')).toBeNull();
  });

  it('a question’s answer over 1000 characters fails its step (too long) and the run goes on', async () => {
    const s = await setUp();
    await field(s.me, 'resposta');
    const workflowId = await publish(
      s.me,
      s.connection.id,
      chain([
        ['ask', 'question', { text: 'Qual?', answer_type: 'any', answer_field: 'resposta' }],
        say('thanks', 'Anotado'),
      ]),
      ANY,
      'long answer',
    );
    await s.writes('oi');
    const { contact } = await s.writes('a'.repeat(1001));
    await hx.drain();
    const [run] = await runsOf(s.me, workflowId);
    const read = await runOf(s.me, workflowId, run!.id);
    expect(read.status).toBe('completed');
    expect(read.steps.find((st) => st.node_id === 'ask')).toMatchObject({
      status: 'failed',
      output: 0,
      error: { code: 'invalid_custom_field_value' },
    });
    expect((await sentTexts(s.me)).sort()).toEqual(['Anotado', 'Qual?']);
    expect(fieldOf(await contactOf(s.me, contact.id), 'resposta')).toBeNull();
  });
});
