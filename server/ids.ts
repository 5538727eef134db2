// Ids of this API are UUIDs, and a UUID is case-insensitive (RFC 9562): every id that enters (a request's path,
// query and body, an automation's graph) is put in its canonical lower-case form once, where it enters, so the
// services, the store and the engine compare ids one way (docs/decisions.md, "Ids"). Where a document holds ids is
// read from its JSON Schema (`format: uuid`).

/** A UUID in any case; the API writes and compares the lower-case form. */
const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID (text that is not one names nothing, and must not reach a uuid column). */
export const isUuid = (value: string): boolean => UUID_ANY_CASE.test(value);

/** The canonical form of an id: a UUID in lower case; anything else as it is (the format check refuses it). */
export const canonicalId = (value: string): string => (UUID_ANY_CASE.test(value) ? value.toLowerCase() : value);

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A place in a body: property names, `*` for every item of an array or value of a map. */
export type Place = readonly string[];

/** Deeper than this, a schema is not followed (a recursive schema would never end). */
const MAX_PLACE_DEPTH = 12;

/** Where `schema` holds `format: uuid` strings, following $ref, properties, items, maps and combinations. */
export function uuidPlaces(schema: unknown, root: Json): Place[] {
  const places = new Map<string, Place>();
  const visit = (node: unknown, at: Place): void => {
    if (!isObject(node) || at.length > MAX_PLACE_DEPTH) return;
    if (typeof node.$ref === 'string') visit(resolveRef(root, node.$ref), at);
    if (node.format === 'uuid') places.set(at.join('\u0000'), at);
    if (isObject(node.properties))
      for (const [name, property] of Object.entries(node.properties)) visit(property, [...at, name]);
    if (isObject(node.items)) visit(node.items, [...at, '*']);
    if (Array.isArray(node.prefixItems)) for (const item of node.prefixItems) visit(item, [...at, '*']);
    if (isObject(node.additionalProperties)) visit(node.additionalProperties, [...at, '*']);
    for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
      const branches = node[keyword];
      if (Array.isArray(branches)) for (const branch of branches) visit(branch, at);
    }
    for (const keyword of ['then', 'else'] as const) visit(node[keyword], at);
  };
  visit(schema, []);
  return [...places.values()];
}

export function resolveRef(root: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[segment] : undefined;
  }
  return node;
}

/** An item of an array, or a property of an object, `depth` names along a place. */
type Slot = { list: unknown[]; index: number; depth: number } | { object: Json; key: string; depth: number };

/** Puts every UUID found at `places` of `value` in its canonical form, in place. Iterative. */
export function canonicalizeAt(value: unknown, places: readonly Place[]): void {
  for (const place of places) {
    // [container, key] pairs still to follow, with how far along the place they are.
    const stack: Slot[] = [];
    const push = (holder: unknown, depth: number) => {
      const name = place[depth];
      if (name === undefined) return;
      if (name === '*') {
        if (Array.isArray(holder)) holder.forEach((_item, index) => stack.push({ list: holder, index, depth }));
        else if (isObject(holder)) for (const key of Object.keys(holder)) stack.push({ object: holder, key, depth });
      } else if (isObject(holder) && Object.hasOwn(holder, name)) stack.push({ object: holder, key: name, depth });
    };
    if (place.length === 0) continue;
    push(value, 0);
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const item: unknown = 'list' in next ? next.list[next.index] : next.object[next.key];
      if (next.depth === place.length - 1) {
        if (typeof item !== 'string') continue;
        if ('list' in next) next.list[next.index] = canonicalId(item);
        else next.object[next.key] = canonicalId(item);
      } else push(item, next.depth + 1);
    }
  }
}
