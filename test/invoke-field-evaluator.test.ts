// The invoke block's field paths (server/blocks/invoke/field-path.ts, server/engine/blocks/invoke/field-evaluator.ts;
// docs/decisions.md, "JSONPath without an evaluator"): what RFC 9535 JSONPath selects, the first match, what is not
// copied, and the worker's budget: a path that runs too long, or a worker that fails, copies nothing and the next
// answer is read.
import { afterAll, describe, expect, it } from 'vitest';
import { FieldPathEvaluator } from '../server/engine/blocks/invoke/field-evaluator.js';
import { fieldPathProblem, fieldValuesOf, MAX_PATH_NESTING, nestingOf } from '../server/blocks/invoke/field-path.js';

const ANSWER = JSON.stringify({
  customer: { plan: 'gold', 'full name': 'Ana Lima' },
  items: [
    { id: 'a1', price: 5, code: 'A12' },
    { id: 'b2', price: 20, code: 'B7' },
  ],
  zero: 0,
  no: false,
  empty: '',
  none: null,
  list: [],
  object: {},
});
const one = (path: string) => fieldValuesOf([{ path, name: 'f' }], ANSWER)?.f ?? null;

describe('field paths: RFC 9535 JSONPath, the first match', () => {
  it.each([
    ['$.customer.plan', 'gold'],
    ["$['customer']['full name']", 'Ana Lima'],
    ['$.items[*].id', 'a1'],
    ['$.items[1].id', 'b2'],
    ['$.items[-1].id', 'b2'],
    ['$.items[1:].id', 'b2'],
    ['$..code', 'A12'],
    ['$.items[?@.price > 10].id', 'b2'],
    ['$.items[?(@.price < 10)].id', 'a1'],
    ["$.items[?match(@.code, 'B[0-9]+')].id", 'b2'],
    ["$.items[?search(@.code, '1')].id", 'a1'],
    ['$.customer', '{"plan":"gold","full name":"Ana Lima"}'],
    ['$.items[?length(@.code) == 2].code', 'B7'],
  ])('%s → %s', (path, value) => {
    expect(fieldPathProblem(path)).toBeNull();
    expect(one(path)).toBe(value);
  });

  it('copies no 0, false, null, empty text, [] or {}; nothing from a missing member', () => {
    for (const path of ['$.zero', '$.no', '$.none', '$.empty', '$.list', '$.object', '$.missing'])
      expect(one(path)).toBeNull();
  });

  it('refuses what is not RFC 9535 (scripts, no root, the old library’s forms) and copies nothing from it', () => {
    for (const path of [
      'customer.plan',
      '$.items[(@.length-1)]',
      '$..[?(@.constructor.constructor("x")())]',
      '$.a[',
      '',
    ]) {
      expect(fieldPathProblem(path), path).toMatch(/^is not an RFC 9535 JSONPath: /);
      expect(one(path)).toBeNull();
    }
  });

  it('a path nesting deeper than 4 never reaches the parser (it backtracks exponentially on open groups)', () => {
    // 12 open functions took the parser 8.5 s; 70 ended the process with a fatal V8 error.
    const started = performance.now();
    for (const depth of [12, 20, 70, 240]) {
      const path = `$[?${'length('.repeat(depth)}`.slice(0, 500);
      expect(fieldPathProblem(path)).toMatch(/nests brackets and parentheses \d+ deep; at most 4/);
      expect(fieldValuesOf([{ path, name: 'f' }], ANSWER)).toEqual({});
    }
    expect(performance.now() - started).toBeLessThan(50);
    expect(MAX_PATH_NESTING).toBe(4);
    // Quoted names and strings do not count; the deepest form allowed still parses and reads.
    expect(nestingOf("$['a(b[c']")).toBe(1);
    expect(nestingOf("$[?match(@.code, '((((((')]")).toBe(2);
    expect(fieldPathProblem('$.items[?length(@.code) == 2].code')).toBeNull();
    expect(one('$[?count(@.items[?@.price > 10]) == 1].plan')).toBeNull();
    expect(fieldPathProblem('$[?length(length(length(length(@))))]')).toMatch(/5 deep/);
  });

  it('reads only the answer’s own members', () => {
    for (const path of ['$.constructor', "$['__proto__']", '$.customer.plan.length', '$..toString'])
      expect(one(path)).toBeNull();
  });

  it('an answer that is not JSON copies nothing', () => {
    expect(fieldValuesOf([{ path: '$.a', name: 'f' }], 'not json')).toBeNull();
  });
});

describe('the evaluator: off the event loop, within a budget', () => {
  const evaluator = new FieldPathEvaluator(400);
  afterAll(() => evaluator.close());

  it('reads fields in its worker', async () => {
    expect(await evaluator.read([{ path: '$.customer.plan', name: 'plan' }], ANSWER)).toEqual({
      values: { plan: 'gold' },
      status: 'read',
    });
  });

  it('names the fields whose path it refuses (stored before validation refused them), so the call can log them', async () => {
    expect(
      await evaluator.read(
        [
          { path: 'customer.plan', name: 'bad' },
          { path: '$.customer.plan', name: 'plan' },
          { path: `$[?${'length('.repeat(20)}`, name: 'deep' },
        ],
        ANSWER,
      ),
    ).toEqual({ values: { plan: 'gold' }, status: 'read', refused: ['bad', 'deep'] });
  });

  it('a backtracking pattern runs out of its budget: nothing copied, the event loop free, the next answer read', async () => {
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      longest = Math.max(longest, performance.now() - last);
      last = performance.now();
    }, 5);
    const started = performance.now();
    const reading = await evaluator.read(
      [
        { path: '$.ok', name: 'ok' },
        { path: "$[?match(@, '(a+)+b')]", name: 'm' },
      ],
      JSON.stringify({ ok: 'yes', s: `${'a'.repeat(40)}c` }),
    );
    clearInterval(ticker);
    expect(reading).toEqual({ values: null, status: 'over_budget' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(longest).toBeLessThan(150);
    expect(await evaluator.read([{ path: '$.ok', name: 'ok' }], '{"ok":"again"}')).toEqual({
      values: { ok: 'again' },
      status: 'read',
    });
  });

  it('an answer nested past the worker’s stack copies nothing, and the next answer is read', async () => {
    const deep = `${'['.repeat(300_000)}1${']'.repeat(300_000)}`;
    const reading = await evaluator.read([{ path: '$..*', name: 'x' }], deep);
    expect(reading.values).toBeNull();
    expect(await evaluator.read([{ path: '$.ok', name: 'ok' }], '{"ok":"after"}')).toMatchObject({
      values: { ok: 'after' },
    });
  });

  it('answers queued behind a slow one wait their turn and are read', async () => {
    const slow = evaluator.read(
      [{ path: "$[?match(@, '(a+)+b')]", name: 'm' }],
      JSON.stringify([`${'a'.repeat(40)}c`]),
    );
    const next = [1, 2, 3].map((n) => evaluator.read([{ path: '$.n', name: 'n' }], JSON.stringify({ n: n })));
    expect((await slow).status).toBe('over_budget');
    expect((await Promise.all(next)).map((r) => r.values?.n)).toEqual(['1', '2', '3']);
  });
});
