// The generation pipeline of `npm run generate`, also run by `npm run check:generated` into a temporary
// directory. Everything it writes is deterministic and prettier-formatted, so a re-run gives identical bytes.
// Two descriptions come from spec/ (scripts/lib/descriptions.ts): the public API and the vendor console.
//
//   spec/components/examples/   named examples (scripts/examples, seeded faker)
//   spec/components/schemas/blocks/  one schema per block type and their union, from the catalog (catalog.ts)
//   generated/openapi.yaml      the public description, bundled: read by the server validator, Prism, openapi-typescript
//                               and Redoc, and served at GET /openapi.json; it holds no `/admin` path
//   generated/openapi.json      the same, as JSON (fast to load); both with `x-codeSamples` on every operation
//                               (scripts/lib/code-samples.ts: curl and openapi-fetch, from the named examples)
//   generated/api.ts            its TypeScript types (openapi-typescript, --default-non-nullable false, --root-types)
//   generated/admin-openapi.yaml, .json, generated/admin-api.ts   the same for the vendor console (spec/admin.yaml)
//   generated/operations.ts     operationId → method, path, scope, rate kind, idempotency (`as const`), both APIs
//   generated/block-catalog.schema.json   the automation block catalog (JSON Schema 2020-12)
//   generated/block-catalog.ts  its catalog_version
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig, type Options } from 'prettier';
import { parse, parseDocument } from 'yaml';
import { buildExamples } from '../examples/build.js';
import { codeSamples, PUBLIC_SAMPLES, type SampleOptions } from './code-samples.js';
import { BLOCK_SCHEMAS_DIR, buildCatalog, renderBlockSchemas, renderCatalogModule } from './catalog.js';
import { renderOperations } from './operations.js';
import { ADMIN_DESCRIPTION, DESCRIPTIONS, PUBLIC_DESCRIPTION, type Description } from './descriptions.js';
import { isObject, type JsonObject } from './openapi.js';

const run = promisify(execFile);

export const GENERATED_FILES = [
  ...DESCRIPTIONS.flatMap((d) => [d.yaml, d.json, d.types]),
  'generated/operations.ts',
  'generated/block-catalog.schema.json',
  'generated/block-catalog.ts',
] as const;

/** The folders the pipeline owns entirely (a file there that it does not write is stale). */
export const GENERATED_DIRS = ['generated', 'spec/components/examples', BLOCK_SCHEMAS_DIR] as const;

export interface GenerateOptions {
  /** The repository root (holds spec/, redocly.yaml, node_modules/). */
  root: string;
  /** Where to write; `root` by default. Another folder gets a copy of spec/ first. */
  out?: string;
  log?: (line: string) => void;
}

async function pretty(root: string, file: string, text: string, parser: Options['parser']): Promise<string> {
  const config = (await resolveConfig(join(root, file))) ?? {};
  return format(text, { ...config, parser, filepath: undefined });
}

function write(out: string, file: string, text: string): void {
  const target = join(out, file);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
}

/** `redocly bundle` of one root of spec/ (components named after their files; a name clash fails). */
async function bundle(root: string, specRoot: string, rootFile: string, target: string): Promise<void> {
  const redocly = join(root, 'node_modules/.bin/redocly');
  try {
    await run(
      redocly,
      [
        'bundle',
        join(specRoot, rootFile),
        '--output',
        target,
        '--ext',
        'yaml',
        '--config',
        join(root, 'redocly.yaml'),
        '--component-renaming-conflicts-severity',
        'error',
        '--lint-config',
        'off',
      ],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`
      .split('\n')
      .filter((l) => !/[║╔╚]/.test(l))
      .join('\n')
      .trim();
    throw new Error(`redocly bundle failed:\n${output || e.message}`);
  }
}

/** The descriptions that get code samples; the source spec never holds them. */
const SAMPLES = new Map<Description, SampleOptions>([[PUBLIC_DESCRIPTION, PUBLIC_SAMPLES]]);

/** Adds `x-codeSamples` to every operation of the bundle, in its text (YAML) and its parsed form alike. */
function addCodeSamples(bundledText: string, bundled: JsonObject, options: SampleOptions): string {
  const yaml = parseDocument(bundledText);
  const paths = bundled.paths;
  for (const [key, samples] of codeSamples(bundled, options)) {
    const [method, path] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
    const operation = isObject(paths) ? paths[path] : undefined;
    const target = isObject(operation) ? operation[method] : undefined;
    if (!isObject(target)) throw new Error(`code samples: no operation ${key} in the bundle`);
    const value = samples.map((s) => ({ lang: s.lang, label: s.label, source: s.source }));
    target['x-codeSamples'] = value;
    yaml.setIn(['paths', path, method, 'x-codeSamples'], yaml.createNode(value));
  }
  return yaml.toString({ lineWidth: 0 });
}

/** Bundles one description, writes it as YAML and JSON with its TypeScript types, and returns it parsed. */
async function bundleAndType(
  root: string,
  out: string,
  description: Description,
  written: string[],
  log: (line: string) => void,
): Promise<JsonObject> {
  const scratch = mkdtempSync(join(tmpdir(), 'bundle-'));
  let bundledText: string;
  try {
    const rawBundle = join(scratch, 'openapi.yaml');
    await bundle(root, out, description.root, rawBundle);
    bundledText = readFileSync(rawBundle, 'utf8');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const bundled = parse(bundledText) as JsonObject;
  const samples = SAMPLES.get(description);
  if (samples) bundledText = addCodeSamples(bundledText, bundled, samples);
  write(out, description.yaml, await pretty(root, description.yaml, bundledText, 'yaml'));
  write(out, description.json, await pretty(root, description.json, JSON.stringify(bundled), 'json'));
  written.push(description.yaml, description.json);
  log(`bundle: ${description.yaml}, ${description.json}`);

  const ast = await openapiTS(structuredClone(bundled) as unknown as Parameters<typeof openapiTS>[0], {
    defaultNonNullable: false,
    rootTypes: true,
    silent: true,
  });
  const header = [
    '// GENERATED by `npm run generate` (openapi-typescript 7, --default-non-nullable false, --root-types)',
    `// from ${description.yaml}. Do not edit: change spec/ and run \`npm run generate\`.`,
    '',
  ].join('\n');
  write(out, description.types, await pretty(root, description.types, header + astToString(ast), 'typescript'));
  written.push(description.types);
  log(`types: ${description.types}`);
  return bundled;
}

export async function generate(options: GenerateOptions): Promise<string[]> {
  const root = options.root;
  const out = options.out ?? root;
  const log = options.log ?? (() => {});
  const written: string[] = [];

  if (out !== root) {
    // Work on a copy of the hand-written spec, so the examples and the bundle are what this run produces.
    rmSync(join(out, 'spec'), { recursive: true, force: true });
    cpSync(join(root, 'spec'), join(out, 'spec'), {
      recursive: true,
      // Not the folders this run writes (examples, block schemas): a file left there would not be stale.
      filter: (src) => !GENERATED_DIRS.some((dir) => relative(root, src).startsWith(join(dir))),
    });
  }

  // 1. Named examples.
  const examples = await buildExamples(out);
  written.push(...examples.map((f) => relative(out, f)));
  log(`examples: ${examples.length} files`);

  // 1b. Block schemas, from the catalog (the bundle references them).
  const blocksDir = join(out, BLOCK_SCHEMAS_DIR);
  rmSync(blocksDir, { recursive: true, force: true });
  for (const [name, text] of Object.entries(renderBlockSchemas(buildCatalog(out)))) {
    const file = join(BLOCK_SCHEMAS_DIR, name);
    write(out, file, await pretty(root, file, text, 'yaml'));
    written.push(file);
  }
  log(`blocks: ${BLOCK_SCHEMAS_DIR}`);

  // 2. Bundles and 3. TypeScript types, one of each per description.
  const [publicDoc, adminDoc] = [
    await bundleAndType(root, out, PUBLIC_DESCRIPTION, written, log),
    await bundleAndType(root, out, ADMIN_DESCRIPTION, written, log),
  ];

  // 4. Operations table.
  write(
    out,
    'generated/operations.ts',
    await pretty(root, 'generated/operations.ts', renderOperations(publicDoc, adminDoc), 'typescript'),
  );
  written.push('generated/operations.ts');
  log('operations: generated/operations.ts');

  // 5. Block catalog.
  const catalog = buildCatalog(out);
  write(
    out,
    'generated/block-catalog.schema.json',
    await pretty(root, 'generated/block-catalog.schema.json', JSON.stringify(catalog.schema), 'json'),
  );
  write(
    out,
    'generated/block-catalog.ts',
    await pretty(root, 'generated/block-catalog.ts', await renderCatalogModule(catalog), 'typescript'),
  );
  written.push('generated/block-catalog.schema.json', 'generated/block-catalog.ts');
  log('catalog: generated/block-catalog.schema.json, generated/block-catalog.ts');

  return written;
}

/** Lists the files under `dirs` of `base`, relative to `base`, sorted. */
export function listFiles(base: string, dirs: readonly string[]): string[] {
  const files: string[] = [];
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = readdirSync(join(base, dir), { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = join(dir, entry);
      if (statSync(join(base, file)).isFile()) files.push(file);
    }
  }
  return files.sort();
}
