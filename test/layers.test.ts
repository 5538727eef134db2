// The rules of the house (server/README.md, "Rules of the house"), on one reading of the source of server/ and
// console/ (scripts/lib/house.ts: every import of every .ts and .tsx file there, type-only imports, re-exports,
// `import()` types and dynamic imports included). Each rule fails with the offending imports, file and line.
//
//   main → http → domain → store          the HTTP edge calls use cases; use cases call the store
//   main → jobs → engine → domain         jobs run the engine; the engine changes other resources through domain
//   domain → blocks                       a block kind's definition (server/blocks/<type>/, table index.ts): pure,
//                                         below the domain, beside the store
//   engine/blocks → engine                a block kind's executor (server/engine/blocks/<type>/, table index.ts):
//                                         the engine reaches a kind only through that table
//   nothing imports http but main (main.ts, start/); store imports no domain; no import cycle; few casts, short functions.
import { describe, expect, it } from 'vitest';
import {
  HOUSE_LIMITS,
  castsIn,
  exportedFunctions,
  importCycles,
  importsOf,
  longFunctionsIn,
  nonNullsIn,
  readHouse,
  type Import,
} from '../scripts/lib/house.js';

const house = readHouse();
const under = (path: string, dir: string) => path.startsWith(`${dir}/`);
const at = (i: Import) => `${i.from}:${i.line} → ${i.to} {${i.names.join(', ')}}`;
const offending = (rule: (i: Import) => boolean) => house.imports.filter(rule).map(at);

/** The rooms of the server, and the rooms each may not import. */
const FORBIDDEN: Record<string, string[]> = {
  'server/store': ['server/domain', 'server/engine', 'server/jobs', 'server/http', 'server/channels', 'server/blocks'],
  'server/domain': ['server/engine', 'server/jobs', 'server/http'],
  'server/engine': ['server/jobs', 'server/http'],
  'server/jobs': ['server/http'],
  'server/channels': ['server/domain', 'server/store', 'server/engine', 'server/jobs', 'server/http'],
  'server/media': ['server/domain', 'server/engine', 'server/jobs', 'server/http'],
  'server/webhooks': ['server/domain', 'server/engine', 'server/jobs', 'server/http'],
};

/** The process entry: main.ts, the start-up story that assembles the app, and start/, one file per concern of it. */
const isEntry = (path: string) => path === 'server/main.ts' || under(path, 'server/start');

/** The HTTP handlers: they speak HTTP and call use cases, never the store (the middleware may: auth, rate, idempotency). */
const HANDLER_FILES = new Set([
  'server/http/admin.ts',
  'server/http/sandbox-admin.ts',
  'server/http/console-receiver.ts',
]);
const isHandler = (path: string) => under(path, 'server/http/routes') || HANDLER_FILES.has(path);

/** What the engine may take from the store besides its own tables: reads and types, never another resource's write. */
const ENGINE_OWN_TABLES = new Set([
  'server/store/workflow-runs.ts',
  'server/store/jobs.ts',
  'server/store/schema.ts',
  // An invoke step's call (issue 22): a run's own row, written by the invoke block's executor and its job.
  'server/store/invoke-calls.ts',
]);

/** The block kind whose folder holds `path` on a floor (`server/blocks`, `server/engine/blocks`), or undefined. */
const kindOf = (path: string, floor: string) =>
  path.startsWith(`${floor}/`) ? /^([^/]+)\//.exec(path.slice(floor.length + 1))?.[1] : undefined;
const isReadOrType = (name: string) => /^[A-Z]/.test(name) || /^(find|select|read|count|tagsOf|valuesOf)/.test(name);

describe('the rules of the house', () => {
  it('reads the source (a parser that found nothing would pass every rule)', () => {
    expect(house.files.length).toBeGreaterThan(100);
    expect(house.imports.map((i) => `${i.from} → ${i.to}`)).toEqual(
      expect.arrayContaining([
        'server/main.ts → server/http/app.ts',
        'server/domain/webhooks/endpoints.ts → server/errors.ts',
        'server/domain/tags/tags.ts → server/store/tags.ts',
        // The console's components: `./app.js` names app.tsx.
        'console/main.tsx → console/app.tsx',
        'console/app.tsx → console/session.ts',
      ]),
    );
    expect(exportedFunctions('server/store/tags.ts')).toContain('selectTagsPage');
    // The reader finds what it counts, on a sample that holds one of each.
    const sample = 'test/fixtures/house-sample.ts';
    expect(importsOf(sample).map((i) => i.to)).toEqual(['server/clock.ts']); // a type-only import counts
    expect(castsIn(sample).map((c) => [c.line, c.explained])).toEqual([[8, true]]);
    expect(nonNullsIn(sample).map((c) => [c.line, c.explained])).toEqual([[6, false]]);
    expect(longFunctionsIn(sample, 4).map((f) => [f.name, f.lines])).toEqual([['sample', 5]]);
    // A cycle closes through the console's files too (a type-only import counts as any other).
    const arrow = (from: string, to: string): Import => ({ from, to, names: ['*'], line: 1 });
    expect(
      importCycles([
        arrow('console/app.tsx', 'console/panes/setup.tsx'),
        arrow('console/panes/setup.tsx', 'console/app.tsx'),
        arrow('console/panes/setup.tsx', 'preact'),
      ]),
    ).toEqual([['console/app.tsx', 'console/panes/setup.tsx']]);
  });

  it('nothing imports server/http but the process entry (server/main.ts, which assembles the app, and server/start/)', () => {
    expect(offending((i) => under(i.to, 'server/http') && !under(i.from, 'server/http') && !isEntry(i.from))).toEqual(
      [],
    );
  });

  it('nothing imports the process entry: server/start/ is the start-up of main.ts, never a way into server/http', () => {
    expect(offending((i) => isEntry(i.to) && !isEntry(i.from))).toEqual([]);
    expect(house.files.filter((file) => under(file, 'server/start')).length).toBeGreaterThan(0);
  });

  it('the ground floor (server/*.ts but main.ts and services.ts, which assemble the process) imports no room', () => {
    const ground = (path: string) => /^server\/[^/]+\.ts$/.test(path);
    const assembles = new Set(['server/main.ts', 'server/services.ts']);
    expect(
      offending((i) => ground(i.from) && !assembles.has(i.from) && under(i.to, 'server') && !ground(i.to)),
    ).toEqual([]);
  });

  it("server/ imports nothing of client/ (the partner's package, which imports nothing of the server either)", () => {
    expect(offending((i) => under(i.from, 'server') && under(i.to, 'client'))).toEqual([]);
  });

  for (const [room, forbidden] of Object.entries(FORBIDDEN))
    it(`${room}/ imports nothing from ${forbidden.join(', ')}`, () => {
      expect(offending((i) => under(i.from, room) && forbidden.some((f) => under(i.to, f)))).toEqual([]);
    });

  it('the block definitions (server/blocks/) are pure, below the domain: they import no room of the server, only their own floor and the contract (generated/)', () => {
    const definition = (path: string) => /^server\/blocks\/([^/]+\/)?definition\.ts$/.test(path);
    expect(
      offending((i) => under(i.from, 'server/blocks') && under(i.to, 'server') && !under(i.to, 'server/blocks')),
    ).toEqual([]);
    expect(house.files.filter(definition).length).toBeGreaterThan(10);
    expect(house.files).toContain('server/blocks/index.ts');
  });

  it("a kind's definition folder is read through the definitions' table (server/blocks/index.ts); from outside the floor only the kind's own executor folder imports it", () => {
    expect(
      offending((i) => {
        const kind = kindOf(i.to, 'server/blocks');
        return kind !== undefined && !under(i.from, 'server/blocks') && kindOf(i.from, 'server/engine/blocks') !== kind;
      }),
    ).toEqual([]);
  });

  it("the engine names no block kind: outside server/engine/blocks/ it reaches an executor only through the executors' table (server/engine/blocks/index.ts)", () => {
    expect(
      offending(
        (i) =>
          under(i.from, 'server/engine') &&
          !under(i.from, 'server/engine/blocks') &&
          kindOf(i.to, 'server/engine/blocks') !== undefined,
      ),
    ).toEqual([]);
    expect(house.files.filter((f) => /^server\/engine\/blocks\/[^/]+\/executor\.ts$/.test(f)).length).toBeGreaterThan(
      10,
    );
  });

  it('HTTP handlers (routes, admin, sandbox admin, the console receiver) call domain services, never server/store/', () => {
    expect(offending((i) => isHandler(i.from) && under(i.to, 'server/store'))).toEqual([]);
  });

  it('no middleware imports from server/http/routes/: app.ts hands it what it needs', () => {
    const middleware = (path: string) =>
      under(path, 'server/http') && !under(path, 'server/http/routes') && path !== 'server/http/app.ts';
    expect(offending((i) => middleware(i.from) && under(i.to, 'server/http/routes'))).toEqual([]);
  });

  it('the engine changes other resources only through their domain services (from the store: reads and types)', () => {
    expect(
      offending(
        (i) =>
          under(i.from, 'server/engine') &&
          under(i.to, 'server/store') &&
          !ENGINE_OWN_TABLES.has(i.to) &&
          !i.names.every(isReadOrType),
      ),
    ).toEqual([]);
  });

  it('server/domain/ never imports GatewayError: the domain throws ApiError', () => {
    expect(offending((i) => under(i.from, 'server/domain') && i.names.includes('GatewayError'))).toEqual([]);
  });

  it('no exported function name is both a store and a domain function (an import says which one it gets)', () => {
    const byName = (dir: string) => {
      const names = new Map<string, string>();
      for (const file of house.files.filter((f) => under(f, dir)))
        for (const name of exportedFunctions(file)) names.set(name, file);
      return names;
    };
    const store = byName('server/store');
    const domain = byName('server/domain');
    expect(store.size).toBeGreaterThan(0);
    expect([...store].filter(([name]) => domain.has(name)).map(([n, f]) => `${n}: ${f} and ${domain.get(n)}`)).toEqual(
      [],
    );
  });

  it('no import cycle in server/ and console/, type imports included', () => {
    expect(house.files.filter((file) => file.startsWith('console/') && file.endsWith('.tsx')).length).toBeGreaterThan(
      5,
    );
    expect(house.cycles.map((cycle) => cycle.join(' ↔ '))).toEqual([]);
  });

  it(`no function in server/ or console/ over ${HOUSE_LIMITS.functionLines} lines`, () => {
    expect(house.longFunctions.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
    expect(house.longest?.lines).toBeLessThanOrEqual(HOUSE_LIMITS.functionLines);
  });

  it('no arrow from server/channels/ to server/domain/ or server/store/ (the figure `npm run house` prints)', () => {
    expect(house.channelArrows.map(at)).toEqual([]);
  });

  it(`server/ and console/ hold at most ${HOUSE_LIMITS.casts} casts and ${HOUSE_LIMITS.nonNulls} non-null assertions, each saying why`, () => {
    const where = (f: { file: string; line: number; text: string }) => `${f.file}:${f.line} ${f.text}`;
    expect(house.casts.length, house.casts.map(where).join('\n')).toBeLessThanOrEqual(HOUSE_LIMITS.casts);
    expect(house.nonNulls.length, house.nonNulls.map(where).join('\n')).toBeLessThanOrEqual(HOUSE_LIMITS.nonNulls);
    expect([...house.casts, ...house.nonNulls].filter((f) => !f.explained).map(where)).toEqual([]);
  });
});
