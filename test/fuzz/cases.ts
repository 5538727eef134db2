// The fuzz cases, generated from the spec for every operation, in five classes:
//   methods  HEAD on every GET route answers as the GET (status, RateLimit-*), with no body; OPTIONS, TRACE and
//            the methods a path lacks get a 4xx envelope;
//   numeric  edge spellings of every integer query parameter: only `^-?(0|[1-9][0-9]*)$` within the schema's
//            minimum and maximum is accepted, everything else is a 400 envelope;
//   nesting  per JSON body: 65 levels deep (400), 5,000 deep, a 400 KB run of `[`, over 1 MB (413
//            payload_too_large), and a body 60 deep (not a 5xx);
//   schema   a valid-ish request (a spec example with real ids), then seeded random mutations: missing, mistyped,
//            null, oversized, unicode / NUL / lone-surrogate, extra fields, empty / non-JSON bodies, wrong
//            Content-Type, unknown or junk query parameters, junk path ids, bad auth and headers. A mutation that
//            certainly breaks the spec must not be answered 2xx/3xx;
//   ids      every uuid path parameter and uuid body/query field spelled: upper and mixed case answer as the
//            lower-case baseline sent just before (a 2xx carries the id in lower case), every other spelling
//            ({id}, urn:uuid:, no hyphens, spaces, a trailing character, empty) is a 400 envelope.
// Every answer also gets the runner's checks (no 5xx, within 2 s, the 4xx envelope).
import type { Prng } from './prng.js';
import type { Answer, Auth, FuzzClass, Meta, Runner, SendSpec } from './runner.js';
import { errorCode, parseJson } from './runner.js';
import type { Prepared, World } from './seed.js';
import {
  deleteAt,
  getAt,
  isObject,
  jsonDepth,
  leafPaths,
  nestedArrays,
  setAt,
  type Json,
  type JsonObject,
  type Operation,
  type Param,
  type PathSeg,
  type Spec,
} from './spec.js';

export interface CaseContext {
  runner: Runner;
  world: World;
  spec: Spec;
}

export interface FuzzCase {
  cls: FuzzClass;
  op: string;
  label: string;
  /** About how many fuzz requests it sends. */
  estimate: number;
  run(ctx: CaseContext): Promise<void>;
}

export interface PlanOptions {
  classes: FuzzClass[];
  /** Random mutations per operation in the schema class (at least 1). */
  mutationsPerOperation: number;
  /** Which operations to fuzz (default all). */
  filter?: (op: Operation) => boolean;
  /**
   * The ids class's spellings per id (default all nine): `upper` and `mixed` always (they are compared with the
   * lower-case baseline), then that many less two of the refused ones, the next ones for the next id, so that the
   * run still sends every spelling, over fewer requests (the suite's short run).
   */
  spellingsPerId?: number;
}

/** The spellings of the `index`-th id target: all of them, or `upper`, `mixed` and `count − 2` of the rest in turn. */
export function spellingsOf(index: number, count = SPELLINGS.length): Spelling[] {
  const compared: Spelling[] = ['upper', 'mixed'];
  const refused = SPELLINGS.filter((how) => !compared.includes(how));
  const take = Math.min(Math.max(count - compared.length, 1), refused.length);
  if (take === refused.length) return [...SPELLINGS];
  return [...compared, ...Array.from({ length: take }, (_, i) => refused[(index * take + i) % refused.length]!)];
}

/** A request being put together: the path without its query, the query items raw. */
interface Parts {
  op: Operation;
  /** The path parameters the path was filled with. */
  params: Record<string, string>;
  method: string;
  path: string;
  query: string[];
  headers: Record<string, string>;
  body?: string | Uint8Array;
  contentType?: string | null;
  auth?: Auth;
}

const toSpec = (p: Parts): SendSpec => ({
  op: p.op,
  method: p.method,
  path: p.query.length ? `${p.path}?${p.query.join('&')}` : p.path,
  headers: p.headers,
  ...(p.body !== undefined ? { body: p.body } : {}),
  ...(p.contentType !== undefined ? { contentType: p.contentType } : {}),
  ...(p.auth !== undefined ? { auth: p.auth } : {}),
});

const fillPath = (template: string, values: Record<string, string>) =>
  template.replace(/\{([^{}]+)\}/g, (_, name: string) => values[name] ?? '');

const is2xx3xx = (a: Answer) => a.status >= 200 && a.status < 400;
/** An answer the class rules do not judge: rate limited, or already a violation of the runner's checks. */
const limited = (a: Answer) => a.status === 429 || a.status === 0 || a.status >= 500 || a.timedOut;

const isUuidParam = (p: Param) => p.schema.format === 'uuid';

/** The request to `op` with `prepared`'s ids, its header parameters and (if it has one) a valid-ish body. */
async function baseParts(ctx: CaseContext, op: Operation, prepared: Prepared, body?: Json | null): Promise<Parts> {
  const headers = await ctx.world.headers(op, prepared.params);
  const parts: Parts = {
    op,
    params: prepared.params,
    method: op.method,
    path: fillPath(op.path, prepared.params),
    query: [],
    headers,
  };
  if (op.body && body !== null) {
    const value = body ?? ctx.world.validBody(op, ctx.world.prngFor(op.key));
    if (value !== undefined) parts.body = JSON.stringify(value);
  }
  return parts;
}

/** Sends `parts` as a fuzz request of `meta`, then lets the world clean what the operation may leave. */
async function exec(ctx: CaseContext, parts: Parts, meta: Meta): Promise<Answer> {
  const answer = await ctx.runner.send(toSpec(parts), meta);
  await ctx.world.after(parts.op);
  return answer;
}

/** Prepares ids for one request: fresh resources for every request of an operation that is not a GET. */
async function prepareFor(ctx: CaseContext, op: Operation, reuse?: Prepared): Promise<Prepared> {
  if (reuse && op.method === 'GET') return reuse;
  return ctx.world.prepare(op);
}

// --- methods --------------------------------------------------------------------------------------------

function headCase(op: Operation): FuzzCase {
  return {
    cls: 'methods',
    op: op.key,
    label: 'HEAD answers as GET',
    estimate: 2,
    async run(ctx) {
      const prepared = await ctx.world.prepare(op);
      const parts = await baseParts(ctx, op, prepared);
      const meta: Meta = { cls: 'methods', op: op.key, label: 'GET (HEAD baseline)' };
      const get = await exec(ctx, parts, meta);
      const headMeta: Meta = { ...meta, label: 'HEAD' };
      const headSpec = toSpec({ ...parts, method: 'HEAD' });
      const head = await ctx.runner.send(headSpec, headMeta);
      if (limited(get) || limited(head)) return;
      if (head.status !== get.status)
        return ctx.runner.fail(
          headSpec,
          headMeta,
          head,
          'HEAD status',
          `HEAD answered ${head.status} where GET answered ${get.status}`,
        );
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'cache-control'])
        if (get.headers[name] !== undefined && head.headers[name] === undefined)
          ctx.runner.fail(headSpec, headMeta, head, 'HEAD headers', `HEAD lacks the ${name} header the GET carries`);
      const limit = get.headers['ratelimit-limit'];
      if (
        limit !== undefined &&
        head.headers['ratelimit-limit'] !== undefined &&
        head.headers['ratelimit-limit'] !== limit
      )
        ctx.runner.fail(
          headSpec,
          headMeta,
          head,
          'HEAD headers',
          `HEAD RateLimit-Limit ${head.headers['ratelimit-limit']}, GET ${limit}`,
        );
    },
  };
}

function otherMethodsCase(path: string, has: Set<string>, anyOp: Operation): FuzzCase {
  const methods = ['OPTIONS', 'TRACE', ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !has.has(m))];
  return {
    cls: 'methods',
    op: path,
    label: `${methods.join(', ')} on a path without them`,
    estimate: methods.length,
    async run(ctx) {
      const prepared = await ctx.world.prepare({ ...anyOp, method: 'GET' });
      for (const method of methods) {
        const spec: SendSpec = { method, path: fillPath(path, prepared.params) };
        const meta: Meta = { cls: 'methods', op: `${method} ${path}`, label: `${method} (not a method of the path)` };
        const answer = await ctx.runner.send(spec, meta);
        if (is2xx3xx(answer))
          ctx.runner.fail(spec, meta, answer, 'expected 4xx', `${method} answered ${answer.status}, not a 4xx`);
      }
    },
  };
}

// --- numeric --------------------------------------------------------------------------------------------

const DECIMAL = /^-?(0|[1-9][0-9]*)$/;

/** The raw query spellings of an integer parameter, and whether the rule accepts each. */
export function numericEdges(schema: JsonObject): { raw: string; accepted: boolean }[] {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const raws = [
    'Infinity',
    '-Infinity',
    '1e400',
    'NaN',
    '0x10',
    '%205',
    '5%20',
    '1e2',
    '1.0',
    '+5',
    '%2B5',
    '05',
    '-0',
    '',
    '99999999999999999999',
    '-1',
    '5',
    ...(min !== undefined ? [String(min), String(min - 1)] : []),
    ...(max !== undefined ? [String(max), String(max + 1)] : []),
  ];
  return [...new Set(raws)].map((raw) => {
    const value = decodeURIComponent(raw.replace(/\+/g, ' '));
    const n = Number(value);
    const accepted =
      DECIMAL.test(value) &&
      (min === undefined || n >= min) &&
      (max === undefined || n <= max) &&
      Number.isSafeInteger(n);
    return { raw, accepted };
  });
}

function numericCase(op: Operation, param: Param): FuzzCase {
  const edges = numericEdges(param.schema);
  return {
    cls: 'numeric',
    op: op.key,
    label: `${param.name} edge spellings`,
    estimate: edges.length + 1,
    async run(ctx) {
      let prepared = await ctx.world.prepare(op);
      const baseMeta: Meta = { cls: 'numeric', op: op.key, label: `${param.name} absent (baseline)` };
      const baseline = await exec(ctx, await baseParts(ctx, op, prepared), baseMeta);
      await prepared.cleanup?.();
      for (const edge of edges) {
        if (ctx.runner.stopped) return;
        prepared = await prepareFor(ctx, op, prepared);
        const parts = await baseParts(ctx, op, prepared);
        parts.query.push(`${param.name}=${edge.raw}`);
        const meta: Meta = { cls: 'numeric', op: op.key, label: `${param.name}=${edge.raw}` };
        const answer = await exec(ctx, parts, meta);
        await prepared.cleanup?.();
        if (limited(answer)) continue;
        const spec = toSpec(parts);
        if (edge.accepted) {
          if (answer.status === 400)
            ctx.runner.fail(
              spec,
              meta,
              answer,
              'valid refused',
              `a valid ${param.name} (${edge.raw}) was refused with 400`,
            );
          else if (!limited(baseline) && answer.status !== baseline.status && op.method === 'GET')
            ctx.runner.fail(
              spec,
              meta,
              answer,
              'differs from baseline',
              `answered ${answer.status}, the request without it ${baseline.status}`,
            );
        } else if (answer.status !== 400)
          ctx.runner.fail(
            spec,
            meta,
            answer,
            'expected 400',
            `expected a 400 envelope for ${param.name}=${edge.raw}, got ${answer.status}`,
          );
      }
    },
  };
}

// --- nesting --------------------------------------------------------------------------------------------

/** Where a nested value goes in `body`: a free-form object (a graph node's data) when there is one. */
function deepSpot(body: Json): PathSeg[] {
  const nodes = getAt(body, ['graph', 'nodes']);
  if (isObject(nodes)) {
    for (const [key, node] of Object.entries(nodes))
      if (isObject(node) && isObject(node.data)) return ['graph', 'nodes', key, 'data', 'fuzz_deep'];
  }
  if (isObject(body)) {
    const first = Object.keys(body)[0];
    return [first ?? 'name'];
  }
  return [];
}

function nestingCase(op: Operation): FuzzCase {
  return {
    cls: 'nesting',
    op: op.key,
    label: 'nesting and size',
    estimate: 5,
    async run(ctx) {
      const body = ctx.world.validBody(op, ctx.world.prngFor(`nesting/${op.key}`)) ?? {};
      const spot = deepSpot(body);
      const deep65 = spot.length === 0 ? nestedArrays(65) : setAt(body, spot, nestedArrays(65));
      const valid60 = spot.length === 0 ? nestedArrays(60) : setAt(body, spot, nestedArrays(60 - spot.length));
      const big = isObject(body) ? { ...body, fuzz_padding: 'a'.repeat(1_100_000) } : ['a'.repeat(1_100_000)];
      const variants: { label: string; text: string; expect: 'deep' | '400' | '413' | 'any' }[] = [
        { label: 'a value nested 65 levels', text: JSON.stringify(deep65), expect: '400' },
        { label: '5,000 levels deep', text: `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`, expect: '400' },
        { label: '400 KB of [', text: '['.repeat(400 * 1024), expect: '400' },
        { label: 'a body over 1 MB', text: JSON.stringify(big), expect: '413' },
        { label: `a body ${jsonDepth(valid60)} deep`, text: JSON.stringify(valid60), expect: 'any' },
      ];
      for (const variant of variants) {
        if (ctx.runner.stopped) return;
        const prepared = await ctx.world.prepare(op);
        const parts = await baseParts(ctx, op, prepared, null);
        parts.body = variant.text;
        const meta: Meta = { cls: 'nesting', op: op.key, label: variant.label };
        const answer = await exec(ctx, parts, meta);
        await prepared.cleanup?.();
        if (limited(answer)) continue;
        const spec = toSpec({ ...parts, body: `<${variant.label}: ${variant.text.length} bytes>` });
        if (variant.expect === '400' && answer.status !== 400)
          ctx.runner.fail(spec, meta, answer, 'expected 400', `expected a 400 envelope, got ${answer.status}`);
        if (variant.expect === '413' && (answer.status !== 413 || errorCode(answer) !== 'payload_too_large'))
          ctx.runner.fail(
            spec,
            meta,
            answer,
            'expected 413',
            `expected 413 payload_too_large, got ${answer.status} ${errorCode(answer) ?? ''}`,
          );
      }
    },
  };
}

// --- schema ---------------------------------------------------------------------------------------------

interface Mutation {
  label: string;
  /** '4xx': the request certainly breaks the spec. */
  expect: '4xx' | 'any';
  apply(parts: Parts, body: Json | undefined): void;
}

const WEIRD_STRINGS = [
  '😀🔥👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301',
  '\u202eevil\u202c',
  'zero\u200bwidth',
  'ﷺ𒐫𒈙',
  '\uFEFFbom',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00%zz',
  '{{1}} {contact.first_name}',
  ' ',
  '\t\n\r',
  '\u2028\u2029',
];

function randomJson(prng: Prng, depth = 0): Json {
  const kinds = ['int', 'bigint', 'float', 'huge', 'string', 'empty', 'bool', 'null', 'array', 'object'];
  switch (prng.pick(depth > 2 ? kinds.slice(0, 8) : kinds)) {
    case 'int':
      return prng.between(-1000, 1000);
    case 'bigint':
      return prng.pick([2 ** 53, -(2 ** 53), 2 ** 31, -(2 ** 31) - 1, 2 ** 63]);
    case 'float':
      return prng.next() * 1000 - 500;
    case 'huge':
      return prng.pick([1e308, -1e308, 5e-324, 1e21]);
    case 'string':
      return prng.pick(WEIRD_STRINGS);
    case 'empty':
      return '';
    case 'bool':
      return prng.chance(0.5);
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: prng.int(3) }, () => randomJson(prng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: prng.int(3) }, () => [prng.text(5), randomJson(prng, depth + 1)]));
  }
}

function wrongTypeValue(types: string[], prng: Prng): Json {
  const candidates: [string, Json][] = [
    ['string', 'fuzz'],
    ['integer', 7],
    ['number', 7.5],
    ['boolean', true],
    ['null', null],
    ['array', ['fuzz']],
    ['object', { fuzz: 1 }],
  ];
  const allowed = new Set(types);
  if (allowed.has('number')) allowed.add('integer');
  const wrong = candidates.filter(([t]) => !allowed.has(t));
  return prng.pick(wrong)[1];
}

/** A junk value of a query parameter and whether it certainly breaks the schema. */
function junkQuery(spec: Spec, param: Param, prng: Prng): { raw: string; invalid: boolean } {
  const s = spec.resolve(param.schema);
  if (s.format === 'date-time')
    return {
      raw: prng.pick(['2026-02-30T00:00:00Z', 'yesterday', '2026-11-20', '0', '2026-11-20T25:00:00Z']),
      invalid: true,
    };
  if (s.format === 'uuid') return { raw: prng.pick(['not-a-uuid', '0', '%7B%7D']), invalid: true };
  if (Array.isArray(s.enum)) return { raw: prng.pick(['bogus', 'DESC', '']), invalid: true };
  const types = spec.types(s);
  if (types.includes('boolean')) return { raw: prng.pick(['yes', '1', 'TRUE', '']), invalid: true };
  if (typeof s.maxLength === 'number') return { raw: 'q'.repeat(s.maxLength + 1), invalid: true };
  return { raw: encodeURIComponent(prng.pick(WEIRD_STRINGS)), invalid: false };
}

/** The mutations that apply to `op` (the sandbox clock's body never gets a number: it would move time on). */
function mutationsFor(ctx: CaseContext, op: Operation, body: Json | undefined, prng: Prng): Mutation[] {
  const { spec } = ctx;
  const out: Mutation[] = [];
  const guarded = op.path === '/admin/v1/sandbox/clock';
  const schema = op.body?.schema;
  const plain = schema !== undefined && spec.isPlainObject(schema) && isObject(body);
  const setBody = (parts: Parts, value: Json) => void (parts.body = JSON.stringify(value));

  if (op.body) {
    const required = op.body.required;
    if (!guarded && op.body.examples.length > 1)
      out.push({
        label: 'another spec example',
        expect: 'any',
        apply: (p) => setBody(p, ctx.world.validBody(op, prng) ?? {}),
      });
    out.push({
      label: 'empty body',
      expect:
        required && schema !== undefined && (spec.required(schema).length > 0 || !!spec.resolve(schema).minProperties)
          ? '4xx'
          : 'any',
      apply: (p) => void (p.body = ''),
    });
    out.push({
      label: 'non-JSON body',
      expect: '4xx',
      apply: (p) => void (p.body = prng.pick(['{', 'not json', '{"a":1,}', "{'a':1}", '{"a":01}', '\u0000'])),
    });
    if (plain)
      out.push({
        label: 'a JSON body that is not an object',
        expect: '4xx',
        apply: (p) => void (p.body = prng.pick(['[]', '"text"', 'null', '0', 'true', '[{}]'])),
      });
    out.push({
      label: 'wrong Content-Type',
      expect: required ? '4xx' : 'any',
      apply: (p) =>
        void (p.contentType = prng.pick([
          'text/plain',
          'application/xml',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
        ])),
    });
    out.push({ label: 'no Content-Type', expect: required ? '4xx' : 'any', apply: (p) => void (p.contentType = null) });
    if (isObject(body) && Object.keys(body).length > 0) {
      const key = Object.keys(body)[0]!;
      out.push({
        label: 'duplicate keys',
        expect: 'any',
        apply: (p) => {
          const text = JSON.stringify(body);
          p.body = `{${JSON.stringify(key)}:${JSON.stringify(body[key])},${text.slice(1)}`;
        },
      });
    }
  }

  if (plain && schema) {
    const props = spec.properties(schema);
    const required = spec.required(schema);
    const s = spec.resolve(schema);
    for (const name of required)
      out.push({
        label: `missing required ${name}`,
        expect: '4xx',
        apply: (p, b) => setBody(p, deleteAt(b ?? {}, [name])),
      });
    if (s.additionalProperties === false)
      out.push({
        label: 'an extra property',
        expect: '4xx',
        apply: (p, b) => setBody(p, { ...(isObject(b) ? b : {}), [`fuzz_${prng.text(4)}`]: prng.pick(WEIRD_STRINGS) }),
      });
    for (const [name, prop] of props) {
      const types = spec.types(prop);
      if (types.length === 0) continue;
      out.push({
        label: `wrong type for ${name}`,
        expect: '4xx',
        apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: wrongTypeValue(types, prng) }),
      });
      if (!types.includes('null') && spec.resolve(prop).const !== null)
        out.push({
          label: `null ${name}`,
          expect: '4xx',
          apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: null }),
        });
      const ps = spec.resolve(prop);
      if (types.includes('string') && !guarded) {
        if (typeof ps.maxLength === 'number')
          out.push({
            label: `${name} over its maxLength`,
            expect: '4xx',
            apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: 'x'.repeat((ps.maxLength as number) + 1) }),
          });
        out.push({
          label: `huge ${name}`,
          expect: 'any',
          apply: (p, b) =>
            setBody(p, { ...(b as JsonObject), [name]: 'Ω'.repeat(prng.pick([5000, 100_000, 300_000])) }),
        });
        out.push({
          label: `unicode ${name}`,
          expect: 'any',
          apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: prng.pick(WEIRD_STRINGS) }),
        });
        out.push({
          label: `NUL in ${name}`,
          expect: '4xx',
          apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: `fuzz\u0000${prng.text(3)}` }),
        });
        out.push({
          label: `lone surrogate in ${name}`,
          expect: '4xx',
          apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: prng.pick(['\ud800', 'a\udc00b', '\udbff']) }),
        });
      }
      if ((types.includes('integer') || types.includes('number')) && !guarded) {
        const edges: Json[] = [];
        if (typeof ps.maximum === 'number') edges.push(ps.maximum + 1, 1e308);
        if (typeof ps.minimum === 'number') edges.push(ps.minimum - 1, -1e308);
        if (types.includes('integer') && !types.includes('number')) edges.push(1.5);
        if (edges.length)
          out.push({
            label: `${name} out of range`,
            expect: types.includes('string') ? 'any' : '4xx',
            apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: prng.pick(edges) }),
          });
      }
      if (types.includes('array') && !guarded) {
        const item = isObject(body) && Array.isArray(body[name]) && body[name].length ? body[name][0]! : 'fuzz';
        if (typeof ps.maxItems === 'number')
          out.push({
            label: `${name} over its maxItems`,
            expect: '4xx',
            apply: (p, b) =>
              setBody(p, {
                ...(b as JsonObject),
                [name]: Array.from({ length: (ps.maxItems as number) + 1 }, () => item),
              }),
          });
        if (typeof ps.minItems === 'number' && ps.minItems > 0)
          out.push({
            label: `${name} empty`,
            expect: '4xx',
            apply: (p, b) => setBody(p, { ...(b as JsonObject), [name]: [] }),
          });
      }
    }
  }
  if (body !== undefined && !guarded) {
    const leaves = leafPaths(body).filter((l) => l.length > 0);
    if (leaves.length)
      out.push({
        label: 'a random value somewhere',
        expect: 'any',
        apply: (p, b) => {
          const leaf = prng.pick(leaves);
          setBody(p, setAt(b ?? {}, leaf, randomJson(prng)));
        },
      });
  }

  // Query parameters.
  out.push({
    label: 'an unknown query parameter',
    expect: '4xx',
    apply: (p) => void p.query.push(`fuzz_${prng.text(5)}=1`),
  });
  for (const param of op.params.filter((x) => x.in === 'query')) {
    const junk = junkQuery(spec, param, prng);
    out.push({
      label: `junk ${param.name}`,
      expect: junk.invalid ? '4xx' : 'any',
      apply: (p) => void p.query.push(`${param.name}=${junk.raw}`),
    });
    out.push({ label: `NUL in ${param.name}`, expect: '4xx', apply: (p) => void p.query.push(`${param.name}=a%00b`) });
    out.push({
      label: `${param.name} as an object`,
      expect: 'any',
      apply: (p) => void p.query.push(`${param.name}[a]=1`, `${param.name}[b]=2`),
    });
    out.push({
      label: `${param.name} twice`,
      expect: 'any',
      apply: (p) => void p.query.push(`${param.name}=1`, `${param.name}=2`),
    });
  }

  // Path parameters.
  for (const param of op.params.filter((x) => x.in === 'path')) {
    const junk = prng.pick([
      '%00',
      '%zz',
      'x'.repeat(300),
      '%F0%9F%98%80',
      'null',
      '0',
      '-1',
      "'%20OR%201=1",
      '%252e',
      '*',
      '%C0%AF',
      '00000000-0000-0000-0000-00000000000g',
    ]);
    out.push({
      label: `junk ${param.name}`,
      expect: '4xx',
      apply: (p) => void (p.path = fillPath(op.path, { ...p.params, [param.name]: junk })),
    });
  }

  // Headers.
  // An open operation answers without a key: the cases still run, any answer but a 5xx will do.
  const refused = op.open ? 'any' : '4xx';
  out.push({ label: 'no Authorization', expect: refused, apply: (p) => void (p.auth = 'none') });
  out.push({
    label: 'a wrong Authorization',
    expect: refused,
    apply: (p) =>
      void (p.auth = {
        raw: prng.pick([`Bearer epk_${prng.text(46)}`, 'Basic Zm9vOmJhcg==', 'Bearer', `Bearer ${'x'.repeat(5000)}`]),
      }),
  });
  out.push({ label: 'Accept: text/html', expect: 'any', apply: (p) => void (p.headers.Accept = 'text/html') });
  for (const param of op.params.filter((x) => x.in === 'header')) {
    if (param.name.toLowerCase() === 'idempotency-key')
      out.push({
        label: 'an Idempotency-Key over 255 characters',
        expect: '4xx',
        apply: (p) => void (p.headers[param.name] = 'k'.repeat(256)),
      });
    if (param.name.toLowerCase() === 'if-match')
      out.push({
        label: 'a malformed If-Match',
        expect: '4xx',
        apply: (p) => void (p.headers[param.name] = prng.pick(['W/"1"', '"abc"', '*', '"-1"'])),
      });
  }
  return out;
}

function schemaCase(op: Operation, mutations: number): FuzzCase {
  return {
    cls: 'schema',
    op: op.key,
    label: `valid-ish + ${mutations} mutations`,
    estimate: 1 + mutations,
    async run(ctx) {
      const prng = ctx.world.prngFor(`schema/${op.key}`);
      let prepared = await ctx.world.prepare(op);
      const body = ctx.world.validBody(op, prng);
      const meta: Meta = { cls: 'schema', op: op.key, label: 'valid-ish (spec example)' };
      await exec(ctx, await baseParts(ctx, op, prepared, body ?? null), meta);
      await prepared.cleanup?.();
      const all = mutationsFor(ctx, op, body, prng);
      // Every kind once (in a seeded order) before any comes again.
      const queue: Mutation[] = [];
      for (let i = 0; i < mutations && all.length; i++) {
        if (ctx.runner.stopped) return;
        if (queue.length === 0) queue.push(...prng.shuffle(all));
        const mutation = queue.shift()!;
        prepared = await prepareFor(ctx, op, prepared);
        const parts = await baseParts(ctx, op, prepared, body ?? null);
        mutation.apply(parts, body);
        const m: Meta = { cls: 'schema', op: op.key, label: mutation.label };
        const answer = await exec(ctx, parts, m);
        await prepared.cleanup?.();
        if (mutation.expect === '4xx' && is2xx3xx(answer)) {
          const spec = toSpec(parts);
          const shown =
            typeof spec.body === 'string' && spec.body.length > 300
              ? { ...spec, body: `${spec.body.slice(0, 300)}…` }
              : spec;
          ctx.runner.fail(
            shown,
            m,
            answer,
            'expected 4xx',
            `${mutation.label}: answered ${answer.status}, expected a 4xx`,
          );
        }
      }
    },
  };
}

// --- ids ------------------------------------------------------------------------------------------------

export type Spelling =
  'upper' | 'mixed' | 'braces' | 'urn' | 'no-hyphens' | 'leading-space' | 'trailing-space' | 'trailing-char' | 'empty';
export const SPELLINGS: Spelling[] = [
  'upper',
  'mixed',
  'braces',
  'urn',
  'no-hyphens',
  'leading-space',
  'trailing-space',
  'trailing-char',
  'empty',
];

/** `id` (lower case) spelled: the text as JSON carries it, and as a path segment or query value sends it. */
export function spell(id: string, how: Spelling): { text: string; raw: string } {
  let letter = 0;
  const mixed = id.replace(/[a-f]/g, (c) => (letter++ % 2 === 0 ? c.toUpperCase() : c));
  switch (how) {
    case 'upper':
      return { text: id.toUpperCase(), raw: id.toUpperCase() };
    case 'mixed':
      return { text: mixed, raw: mixed };
    case 'braces':
      return { text: `{${id}}`, raw: `%7B${id}%7D` };
    case 'urn':
      return { text: `urn:uuid:${id}`, raw: `urn:uuid:${id}` };
    case 'no-hyphens':
      return { text: id.replace(/-/g, ''), raw: id.replace(/-/g, '') };
    case 'leading-space':
      return { text: ` ${id}`, raw: `%20${id}` };
    case 'trailing-space':
      return { text: `${id} `, raw: `${id}%20` };
    case 'trailing-char':
      return { text: `${id}a`, raw: `${id}a` };
    case 'empty':
      return { text: '', raw: '' };
  }
}

type Target =
  { kind: 'path'; name: string } | { kind: 'query'; name: string } | { kind: 'body'; path: PathSeg[]; field: string };

const targetName = (t: Target) => (t.kind === 'body' ? t.path.join('.') : t.name);

function idsCase(op: Operation, target: Target, spellings: readonly Spelling[]): FuzzCase {
  const strict = ['GET', 'PUT', 'PATCH'].includes(op.method);
  return {
    cls: 'ids',
    op: op.key,
    label: `${target.kind} ${targetName(target)} spellings`,
    estimate: spellings.length + 1,
    async run(ctx) {
      const { world, runner, spec } = ctx;
      let body0: Json | undefined;
      if (target.kind === 'body') {
        body0 = placeTarget(ctx, op, target.path);
        if (body0 === undefined) return runner.log(`ids: no place for ${targetName(target)} in a body of ${op.key}`);
      }
      let reuse: Prepared | undefined;

      /** One request with the target id spelled `how` (undefined: the lower-case baseline). */
      const attempt = async (how: Spelling | undefined) => {
        const prepared = await prepareFor(ctx, op, reuse);
        reuse = prepared;
        const parts = await baseParts(ctx, op, prepared, null);
        let id: string;
        let sent: { text: string; raw: string };
        if (target.kind === 'path') {
          id = prepared.params[target.name] ?? world.id(target.name);
          sent = how ? spell(id, how) : { text: id, raw: id };
          parts.path = fillPath(op.path, { ...prepared.params, [target.name]: sent.raw });
        } else if (target.kind === 'query') {
          id = world.fieldId(target.name, op);
          sent = how ? spell(id, how) : { text: id, raw: id };
          parts.query.push(`${target.name}=${sent.raw}`);
        } else {
          const body = body0 ?? {};
          const parentNode = getAt(body, target.path.slice(0, -1));
          const parent = isObject(parentNode) ? parentNode : undefined;
          id = world.bodyIdOf(op, target.field) ?? world.fieldId(target.field, op, parent);
          sent = how ? spell(id, how) : { text: id, raw: id };
          parts.body = JSON.stringify(setAt(body, target.path, sent.text));
        }
        const meta: Meta = { cls: 'ids', op: op.key, label: `${targetName(target)} ${how ?? 'lower case (baseline)'}` };
        const answer = await exec(ctx, parts, meta);
        await prepared.cleanup?.();
        return { answer, parts, meta, id, sent, fresh: prepared.fresh };
      };

      const baseline = await attempt(undefined);
      for (const how of spellings) {
        if (runner.stopped) return;
        const { answer, parts, meta, id, sent, fresh } = await attempt(how);
        if (limited(answer)) continue;
        const spec_ = toSpec(parts);
        const b = baseline.answer.status;
        const a = answer.status;
        if (how === 'upper' || how === 'mixed') {
          if (limited(baseline.answer)) continue;
          const compare = strict || (op.method === 'DELETE' && fresh && baseline.fresh);
          if (compare && a !== b)
            runner.fail(spec_, meta, answer, 'case differs', `${how} case answered ${a}, the lower-case id ${b}`);
          else if (!compare && a === 400 && b !== 400)
            runner.fail(spec_, meta, answer, 'case differs', `${how} case answered 400, the lower-case id ${b}`);
          if (a >= 200 && a < 300 && sent.text !== id && answer.text.includes(sent.text))
            runner.fail(
              spec_,
              meta,
              answer,
              'not canonical',
              `the answer carries the id as sent (${how} case), not in lower case`,
            );
          if (op.method === 'GET' && a === 200 && target.kind === 'path' && op.path.endsWith(`{${target.name}}`)) {
            const json = parseJson(answer.text);
            if (isObject(json) && typeof json.id === 'string' && json.id !== id)
              runner.fail(spec_, meta, answer, 'not canonical', `GET answered id ${json.id}, not the lower-case ${id}`);
          }
          continue;
        }
        if (how === 'empty' && target.kind === 'path') {
          const alternative = spec.matchRoute(op.method, parts.path);
          if (alternative && alternative !== op) continue; // another route of the spec (`/v1/tags/` is the list)
          if (a !== 400 && !(a === 404 && errorCode(answer) === 'not_found'))
            runner.fail(
              spec_,
              meta,
              answer,
              'expected 400',
              `an empty ${targetName(target)} answered ${a}, expected a 400 (or 404 no route)`,
            );
          continue;
        }
        if (a !== 400)
          runner.fail(
            spec_,
            meta,
            answer,
            'expected 400',
            `${targetName(target)} spelled ${how} answered ${a}, expected a 400 envelope`,
          );
      }
    },
  };
}

/**
 * A valid-ish body of `op` holding a value at `path`: the first spec example that has it, else an example with
 * the missing part sampled from the schema (the oneOf branch that leads there). Undefined when impossible.
 */
function placeTarget(ctx: CaseContext, op: Operation, path: PathSeg[]): Json | undefined {
  const examples = ctx.world.examples(op);
  const found = examples.find((e) => getAt(e, path) !== undefined);
  if (found !== undefined) return found;
  const body = examples[0] ?? {};
  const head = path[0];
  if (!isObject(body) || typeof head !== 'string') return undefined;
  const prop = ctx.spec.schemaAt(op.body!.schema, [head]) ?? {};
  const placed = {
    ...body,
    [head]: ctx.spec.sampleWithPath(prop, path.slice(1), (n) => ctx.world.fieldId(n, op), head),
  };
  return getAt(placed, path) !== undefined ? placed : undefined;
}

function idTargets(spec: Spec, op: Operation): Target[] {
  const out: Target[] = [];
  for (const p of op.params) {
    if (!isUuidParam(p)) continue;
    if (p.in === 'path') out.push({ kind: 'path', name: p.name });
    if (p.in === 'query') out.push({ kind: 'query', name: p.name });
  }
  if (op.body) {
    for (const path of spec.uuidPaths(op.body.schema)) {
      const field = [...path].reverse().find((s): s is string => typeof s === 'string');
      if (field) out.push({ kind: 'body', path, field });
    }
  }
  return out;
}

// --- the plan -------------------------------------------------------------------------------------------

/** Every case of the chosen classes, class by class (methods, numeric, nesting, schema, ids). */
export function planCases(spec: Spec, options: PlanOptions): FuzzCase[] {
  const ops = spec.operations.filter((op) => options.filter?.(op) ?? true);
  const cases: FuzzCase[] = [];
  const want = (c: FuzzClass) => options.classes.includes(c);
  if (want('methods')) {
    for (const op of ops) if (op.method === 'GET') cases.push(headCase(op));
    const byPath = spec.pathMethods();
    for (const [path, has] of byPath) {
      const anyOp = ops.find((o) => o.path === path);
      if (anyOp) cases.push(otherMethodsCase(path, has, anyOp));
    }
  }
  if (want('numeric'))
    for (const op of ops)
      for (const p of op.params)
        if (p.in === 'query' && spec.types(p.schema).includes('integer')) cases.push(numericCase(op, p));
  if (want('nesting')) for (const op of ops) if (op.body) cases.push(nestingCase(op));
  if (want('schema')) for (const op of ops) cases.push(schemaCase(op, Math.max(1, options.mutationsPerOperation)));
  if (want('ids')) {
    let index = 0;
    for (const op of ops)
      for (const target of idTargets(spec, op))
        cases.push(idsCase(op, target, spellingsOf(index++, options.spellingsPerId)));
  }
  return cases;
}
