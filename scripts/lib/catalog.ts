// Builds generated/block-catalog.schema.json from spec/catalog/: the automation block catalog, a JSON Schema
// 2020-12 document describing `graph.nodes` (served by GET /v1/workflow-graph-schema).
//
// The catalog is one YAML or JSON file in spec/catalog/ (see spec/catalog/README.md). Relative file `$ref`s,
// if the catalog is split, are inlined into `$defs` so the output is one self-contained document.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { isObject, type Json, type JsonObject } from './openapi.js';

const PREFERRED = ['block-catalog', 'catalog', 'graph-schema', 'workflow-graph-schema'];

/** The catalog source file in `<root>/spec/catalog`. */
export function findCatalogFile(root: string): string {
  const dir = join(root, 'spec/catalog');
  if (!existsSync(dir)) throw new Error('spec/catalog/ does not exist');
  const candidates = readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort();
  if (candidates.length === 1) return join(dir, candidates[0]!);
  for (const name of PREFERRED) {
    const match = candidates.find((f) => basename(f, extname(f)) === name || basename(f, extname(f)).startsWith(`${name}.`));
    if (match) return join(dir, match);
  }
  if (candidates.length === 0) throw new Error('spec/catalog/ holds no catalog (a .yaml or .json JSON Schema) yet');
  throw new Error(`spec/catalog/ holds several files; cannot tell the catalog: ${candidates.join(', ')}`);
}

function load(file: string): Json {
  const text = readFileSync(file, 'utf8');
  return file.endsWith('.json') ? (JSON.parse(text) as Json) : (parse(text) as Json);
}

/** Loads the catalog and inlines relative file `$ref`s into `$defs`. */
export async function buildCatalog(root: string): Promise<JsonObject> {
  const entry = findCatalogFile(root);
  const doc = load(entry);
  if (!isObject(doc)) throw new Error(`${entry}: the catalog is not an object`);
  const defs: JsonObject = {};
  const names = new Map<string, string>(); // absolute file → $defs name

  const rewrite = (node: Json, file: string): Json => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, file));
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#') && !/^[a-z]+:/i.test(value)) {
        const [path = '', fragment = ''] = value.split('#');
        const target = resolve(dirname(file), path);
        let name = names.get(target);
        if (!name) {
          name = basename(target, extname(target));
          if ([...names.values()].includes(name) || (isObject(doc.$defs) && name in doc.$defs))
            throw new Error(`catalog: two files are named ${name}`);
          names.set(target, name);
          defs[name] = rewrite(load(target), target);
        }
        out.$ref = `#/$defs/${name}${fragment}`;
      } else {
        out[key] = rewrite(value, file);
      }
    }
    return out;
  };

  const result = rewrite(doc, entry) as JsonObject;
  if (Object.keys(defs).length) result.$defs = { ...(isObject(result.$defs) ? result.$defs : {}), ...defs };
  return result;
}
