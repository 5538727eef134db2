// Builds the automation block catalog: graph-nodes.source.yaml → graph-nodes.schema.json (committed).
// Run `npm run generate` after editing the source; test/catalog.test.ts fails when the JSON drifts.
//
// What the build adds to the source:
//   - drops `x-shared` (YAML anchors reused by the source; the catalog carries no `$ref`, see README.md);
//   - the block `type` enum and the `allOf` dispatch, one `if: {type: <key>} then: <copy of $defs.<key>>`
//     per `$defs` entry, in `$defs` order (so a new block type is one new `$defs` entry);
//   - `$comment` with the catalog_version of catalog-version.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'prettier';
import { parse } from 'yaml';

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export const CATALOG_FILE = here('../spec/catalog/graph-nodes.schema.json');
export const CATALOG_VERSION_FILE = here('../spec/catalog/catalog-version.json');
const SOURCE_FILE = here('../spec/catalog/graph-nodes.source.yaml');

type Json = Record<string, unknown>;

export function readCatalogVersion(): string {
  const { catalog_version } = JSON.parse(readFileSync(CATALOG_VERSION_FILE, 'utf8')) as { catalog_version: string };
  return catalog_version;
}

/** The catalog object, built from the YAML source. */
export function buildCatalog(): Json {
  const source = parse(readFileSync(SOURCE_FILE, 'utf8'), { maxAliasCount: -1 }) as Json;
  delete source['x-shared'];
  const defs = source.$defs as Record<string, Json>;
  const block = source.additionalProperties as Json & { properties: { type: Json }; allOf: unknown[] };
  const types = Object.keys(defs);
  block.properties.type.enum = types;
  block.allOf = types.map((type) => ({
    if: { type: 'object', properties: { type: { const: type } }, required: ['type'] },
    then: structuredClone(defs[type]),
  }));
  const version = readCatalogVersion();
  // Key order of the output: identification first, then the schema, then the definitions.
  const { $schema, $id, title, description, $defs, ...rest } = source;
  return JSON.parse(
    JSON.stringify({
      $schema,
      $id,
      $comment: `catalog_version ${version}. Built from spec/catalog/graph-nodes.source.yaml by scripts/build-catalog.ts; served by GET /v1/workflow-graph-schema.`,
      title,
      description,
      ...rest,
      $defs,
    }),
  ) as Json;
}

export async function writeCatalog(): Promise<string> {
  const text = await format(JSON.stringify(buildCatalog()), { parser: 'json', printWidth: 120 });
  writeFileSync(CATALOG_FILE, text);
  return CATALOG_FILE;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`catalog: wrote ${await writeCatalog()}`);
}
