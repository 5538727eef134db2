// The bundled descriptions (generated/openapi.yaml and generated/admin-openapi.yaml) as the fuzz harness reads them: every operation of `paths` with its
// parameters, request body schema and examples, plus the schema helpers the case generator needs (types of a
// schema, a minimal sample of one, the places of `format: uuid` strings in a body).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  deref,
  isObject,
  listOperations,
  operationParameters,
  type Json,
  type JsonObject,
} from '../../scripts/lib/openapi.js';

export type { Json, JsonObject };
export { isObject };

export type RateKind = 'read' | 'write' | 'send';

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonObject;
}

export interface RequestBody {
  required: boolean;
  schema: JsonObject;
  /** The `value`s of the spec's examples of the JSON body. */
  examples: Json[];
}

export interface Operation {
  /** `GET /v1/contacts/{contactId}`: how reports name it. */
  key: string;
  operationId: string;
  /** Upper case. */
  method: string;
  path: string;
  /** Under /admin/v1: the admin token, no per-account rate limit. */
  admin: boolean;
  /** Declared `security: []` (GET /openapi.json): answered to anyone, so a missing or wrong key is no mistake. */
  open: boolean;
  rateKind: RateKind | undefined;
  params: Param[];
  body: RequestBody | undefined;
}

/** A step into a JSON value: a property name or an array index. */
export type PathSeg = string | number;

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class Spec {
  readonly operations: Operation[];

  constructor(readonly doc: JsonObject) {
    this.operations = listOperations(doc)
      .filter((ref) => ref.section === 'paths')
      .map((ref): Operation => {
        const op = ref.operation;
        const params = operationParameters(doc, ref).map((p): Param => ({
          name: String(p.name),
          in: p.in as Param['in'],
          required: p.required === true,
          schema: this.resolve(p.schema),
        }));
        let body: RequestBody | undefined;
        if (op.requestBody !== undefined) {
          const rb = deref<JsonObject>(doc, op.requestBody);
          const content = isObject(rb.content) ? rb.content : {};
          const json = content['application/json'];
          if (isObject(json)) {
            const examples = isObject(json.examples)
              ? Object.values(json.examples)
                  .map((e) => deref<JsonObject>(doc, e).value)
                  .filter((v): v is Json => v !== undefined)
              : json.example !== undefined
                ? [json.example]
                : [];
            body = { required: rb.required === true, schema: this.resolve(json.schema), examples };
          }
        }
        const rateKind = op['x-rate-kind'];
        return {
          key: `${ref.method.toUpperCase()} ${ref.key}`,
          operationId: String(op.operationId),
          method: ref.method.toUpperCase(),
          path: ref.key,
          admin: ref.key.startsWith('/admin/'),
          open: Array.isArray(op.security) && op.security.length === 0,
          rateKind: rateKind === 'read' || rateKind === 'write' || rateKind === 'send' ? rateKind : undefined,
          params,
          body,
        };
      });
  }

  /** A schema with its `$ref` chain followed (an empty schema for anything that is not an object). */
  resolve(node: Json | undefined): JsonObject {
    if (node === undefined) return {};
    const target = deref(this.doc, node);
    if (!isObject(target)) return {};
    // allOf: the parts merged (properties and required lists), enough for sampling and for finding fields.
    if (Array.isArray(target.allOf)) {
      const merged: JsonObject = { ...target };
      delete merged.allOf;
      const properties: JsonObject = isObject(target.properties) ? { ...target.properties } : {};
      const required = new Set(Array.isArray(target.required) ? target.required.map(String) : []);
      for (const part of target.allOf) {
        const p = this.resolve(part);
        if (isObject(p.properties)) Object.assign(properties, p.properties);
        if (Array.isArray(p.required)) for (const r of p.required) required.add(String(r));
        if (p.type !== undefined && merged.type === undefined) merged.type = p.type;
        if (p.additionalProperties !== undefined && merged.additionalProperties === undefined)
          merged.additionalProperties = p.additionalProperties;
      }
      merged.properties = properties;
      merged.required = [...required];
      return merged;
    }
    return target;
  }

  /** The methods (upper case) each path template of the spec has. */
  pathMethods(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const op of this.operations) {
      const set = out.get(op.path) ?? new Set<string>();
      set.add(op.method);
      out.set(op.path, set);
    }
    return out;
  }

  /** The operation of the spec a concrete path reaches with `method` (HEAD as GET), as the server matches. */
  matchRoute(method: string, concretePath: string): Operation | undefined {
    const verb = method === 'HEAD' ? 'GET' : method;
    concretePath = concretePath.split('?')[0]!;
    const bare = concretePath.length > 1 && concretePath.endsWith('/') ? concretePath.slice(0, -1) : concretePath;
    const literal = this.operations.find(
      (op) => op.method === verb && !op.path.includes('{') && op.path.toLowerCase() === bare.toLowerCase(),
    );
    if (literal) return literal;
    return this.operations.find((op) => {
      if (op.method !== verb || !op.path.includes('{')) return false;
      const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^{}]+\}/g, '[^/]+');
      return new RegExp(`^${pattern}/?$`, 'i').test(concretePath);
    });
  }

  // --- schema helpers -------------------------------------------------------------------------------------

  /** The JSON types a schema allows (empty when it says nothing about them). */
  types(schema: JsonObject): string[] {
    const s = this.resolve(schema);
    if (typeof s.type === 'string') return [s.type];
    if (Array.isArray(s.type)) return s.type.map(String);
    if (s.const !== undefined) return [jsonType(s.const)];
    if (Array.isArray(s.enum)) return [...new Set(s.enum.map(jsonType))];
    if (isObject(s.properties)) return ['object'];
    if (s.items !== undefined) return ['array'];
    return [];
  }

  /** Whether `schema` is an object schema the generator can reason about: properties, no oneOf at its root. */
  isPlainObject(schema: JsonObject): boolean {
    const s = this.resolve(schema);
    return this.types(s).includes('object') && isObject(s.properties) && !s.oneOf && !s.anyOf;
  }

  properties(schema: JsonObject): [string, JsonObject][] {
    const s = this.resolve(schema);
    return isObject(s.properties) ? Object.entries(s.properties).map(([k, v]) => [k, this.resolve(v)]) : [];
  }

  required(schema: JsonObject): string[] {
    const s = this.resolve(schema);
    return Array.isArray(s.required) ? s.required.map(String) : [];
  }

  /**
   * A minimal value of `schema`: its required properties only, the smallest arrays it allows, the first enum
   * value. `idFor` gives the value of a `format: uuid` string by its property name.
   */
  sample(schema: JsonObject, idFor: (name: string) => string, name = '', depth = 0): Json {
    const s = this.resolve(schema);
    if (depth > 12) return null;
    if (s.const !== undefined) return s.const;
    if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0]!;
    if (Array.isArray(s.oneOf) && s.oneOf.length > 0)
      return this.sample(this.resolve(s.oneOf[0]), idFor, name, depth + 1);
    if (Array.isArray(s.anyOf) && s.anyOf.length > 0)
      return this.sample(this.resolve(s.anyOf[0]), idFor, name, depth + 1);
    const types = this.types(s).filter((t) => t !== 'null');
    const type = types[0] ?? 'string';
    switch (type) {
      case 'object': {
        const out: JsonObject = {};
        for (const key of this.required(s)) {
          const prop = this.properties(s).find(([k]) => k === key)?.[1] ?? {};
          out[key] = this.sample(prop, idFor, key, depth + 1);
        }
        return out;
      }
      case 'array': {
        const min = typeof s.minItems === 'number' ? s.minItems : 0;
        return Array.from({ length: Math.max(min, 0) }, () =>
          this.sample(this.resolve(s.items), idFor, singular(name), depth + 1),
        );
      }
      case 'integer':
      case 'number': {
        let n = typeof s.minimum === 'number' ? s.minimum : 1;
        if (typeof s.exclusiveMinimum === 'number') n = Math.max(n, s.exclusiveMinimum + 1);
        if (typeof s.maximum === 'number') n = Math.min(n, s.maximum);
        return n;
      }
      case 'boolean':
        return true;
      default: {
        if (s.format === 'uuid') return idFor(name);
        if (s.format === 'date-time') return new Date().toISOString();
        if (s.format === 'uri') return 'https://example.com/fuzz';
        const min = typeof s.minLength === 'number' ? s.minLength : 1;
        const max = typeof s.maxLength === 'number' ? s.maxLength : 64;
        return 'fuzz'.padEnd(Math.min(Math.max(min, 4), max), 'z').slice(0, max);
      }
    }
  }

  /** The schema of the value at `path` inside a value of `schema` (oneOf/anyOf: the first branch that has it). */
  schemaAt(schema: JsonObject, path: readonly PathSeg[]): JsonObject | undefined {
    const s = this.resolve(schema);
    if (path.length === 0) return s;
    const branches = [...(Array.isArray(s.oneOf) ? s.oneOf : []), ...(Array.isArray(s.anyOf) ? s.anyOf : [])];
    for (const branch of branches) {
      const found = this.schemaAt(this.resolve(branch), path);
      if (found) return found;
    }
    const [head, ...rest] = path;
    if (typeof head === 'number') return s.items !== undefined ? this.schemaAt(this.resolve(s.items), rest) : undefined;
    const prop = this.properties(s).find(([k]) => k === head)?.[1];
    if (prop) return this.schemaAt(prop, rest);
    if (isObject(s.additionalProperties)) return this.schemaAt(this.resolve(s.additionalProperties), rest);
    return undefined;
  }

  /**
   * A minimal value of `schema` that has a value at `path` (optional properties on the way included, the
   * oneOf branch that leads there chosen).
   */
  sampleWithPath(schema: JsonObject, path: readonly PathSeg[], idFor: (name: string) => string, name = ''): Json {
    const s = this.resolve(schema);
    if (path.length === 0) return this.sample(s, idFor, name);
    const branches = [...(Array.isArray(s.oneOf) ? s.oneOf : []), ...(Array.isArray(s.anyOf) ? s.anyOf : [])];
    for (const branch of branches) {
      const b = this.resolve(branch);
      if (this.schemaAt(b, path)) return this.sampleWithPath(b, path, idFor, name);
    }
    const [head, ...rest] = path;
    if (typeof head === 'number') {
      const item = this.resolve(s.items);
      const min = typeof s.minItems === 'number' ? Math.max(s.minItems, 1) : 1;
      return Array.from({ length: min }, (_, i) =>
        i === 0 ? this.sampleWithPath(item, rest, idFor, singular(name)) : this.sample(item, idFor, singular(name)),
      );
    }
    const base = this.sample(s, idFor, name);
    const out: JsonObject = isObject(base) ? base : {};
    const prop = this.properties(s).find(([k]) => k === head)?.[1] ?? {};
    out[head!] = this.sampleWithPath(prop, rest, idFor, head!);
    return out;
  }

  /** Every place of a `format: uuid` string in values of `schema` (array items as index 0). */
  uuidPaths(schema: JsonObject): PathSeg[][] {
    const out = new Map<string, PathSeg[]>();
    const walk = (node: JsonObject, path: PathSeg[], depth: number, seen: Set<JsonObject>) => {
      const s = this.resolve(node);
      if (depth > 10 || seen.has(s)) return;
      const next = new Set(seen).add(s);
      if (s.format === 'uuid' && this.types(s).includes('string')) out.set(JSON.stringify(path), path);
      for (const branch of [...(Array.isArray(s.oneOf) ? s.oneOf : []), ...(Array.isArray(s.anyOf) ? s.anyOf : [])])
        walk(this.resolve(branch), path, depth + 1, next);
      for (const [key, prop] of this.properties(s)) walk(prop, [...path, key], depth + 1, next);
      if (s.items !== undefined) walk(this.resolve(s.items), [...path, 0], depth + 1, next);
    };
    walk(schema, [], 0, new Set());
    return [...out.values()];
  }
}

/**
 * Both bundled descriptions as one document: the public API's paths and the vendor console's, with their
 * components side by side. They come from the same spec/ files, where a component's name is its file's, so a
 * name in both is the same component.
 */
export function loadSpec(root: string): Spec {
  const read = (file: string) => parse(readFileSync(join(root, file), 'utf8')) as JsonObject;
  const pub = read('generated/openapi.yaml');
  const admin = read('generated/admin-openapi.yaml');
  const section = (doc: JsonObject, key: string): JsonObject => {
    const value = doc[key];
    return isObject(value) ? value : {};
  };
  const components: JsonObject = {};
  for (const key of new Set([...Object.keys(section(pub, 'components')), ...Object.keys(section(admin, 'components'))]))
    components[key] = { ...section(section(admin, 'components'), key), ...section(section(pub, 'components'), key) };
  return new Spec({ ...pub, paths: { ...section(pub, 'paths'), ...section(admin, 'paths') }, components });
}

export function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `tag_ids` → `tag_id`: the name of an array's item, for the id pools. */
function singular(name: string): string {
  return name.endsWith('_ids') ? name.slice(0, -1) : name;
}

export function getAt(value: Json | undefined, path: readonly PathSeg[]): Json | undefined {
  let node: Json | undefined = value;
  for (const seg of path) {
    if (typeof seg === 'number') node = Array.isArray(node) ? node[seg] : undefined;
    else node = isObject(node) ? node[seg] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** A copy of `value` with `leaf` at `path` (the containers on the way must exist). */
export function setAt(value: Json, path: readonly PathSeg[], leaf: Json): Json {
  if (path.length === 0) return leaf;
  const copy = structuredClone(value);
  let node: Json = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    node = (typeof seg === 'number' ? (node as Json[])[seg] : (node as JsonObject)[seg]) as Json;
  }
  const last = path[path.length - 1]!;
  if (typeof last === 'number') (node as Json[])[last] = leaf;
  else (node as JsonObject)[last] = leaf;
  return copy;
}

/** A copy of `value` without the property at `path`. */
export function deleteAt(value: Json, path: readonly PathSeg[]): Json {
  const copy = structuredClone(value);
  const parent = getAt(copy, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isObject(parent) && typeof last === 'string') delete parent[last];
  else if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  return copy;
}

/** The paths of the primitive leaves of a JSON value (depth-limited). */
export function leafPaths(value: Json, path: PathSeg[] = [], depth = 0): PathSeg[][] {
  if (depth > 12) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, [...path, i], depth + 1));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k], depth + 1));
  return [path];
}

/** How deep a JSON value nests: a primitive 0, `[]` 1, `{"a":[1]}` 2. */
export function jsonDepth(value: Json): number {
  const stack: [Json, number][] = [[value, 0]];
  let max = 0;
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (Array.isArray(node) || isObject(node)) {
      max = Math.max(max, depth + 1);
      for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
    }
  }
  return max;
}

/** Arrays nested `depth` levels (`depth` 3: `[[[]]]`), the innermost holding `inner` when given. */
export function nestedArrays(depth: number, inner?: Json): Json {
  let value: Json = inner === undefined ? [] : [inner];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}
