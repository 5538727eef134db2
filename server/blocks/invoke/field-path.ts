// invoke's field paths (Part B: "path (JSONPath, 1 to 500 chars)"): RFC 9535 JSONPath, read by jsonpath-rfc9535,
// an interpreter of the RFC's grammar with no script evaluation at all (docs/security.md; docs/decisions.md,
// "JSONPath without an evaluator"). A tenant's path is data: it is parsed, never compiled to code, and it reads
// only the answer's own members (the library checks `Object.hasOwn`), so `constructor` or `__proto__` select
// nothing. Pure: validation (definition.ts) and the evaluator's worker (engine/blocks/invoke/field-worker.ts) both
// read it.
import { exec, type JsonValue } from 'jsonpath-rfc9535';
import parse from 'jsonpath-rfc9535/parser';

/**
 * How deep a path nests brackets and parentheses. The library's parser (a PEG) backtracks exponentially on a
 * path that opens functions or groups without closing them: 10 levels took 1 s, 12 levels 8.5 s, and 70 levels
 * ended the process with a fatal V8 error (its list of expected tokens outgrew an array), which no try, worker or
 * budget can catch. So no path nesting deeper than MAX_PATH_NESTING reaches the parser, at save or at run time
 * (at 4: about 5 ms at worst). Quoted names and strings are skipped, escapes included: a linear scan.
 */
export const MAX_PATH_NESTING = 4;
export function nestingOf(path: string): number {
  let depth = 0;
  let deepest = 0;
  let quote: string | null = null;
  for (let i = 0; i < path.length; i += 1) {
    const char = path[i];
    if (quote !== null) {
      if (char === '\\') i += 1;
      else if (char === quote) quote = null;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '(' || char === '[') deepest = Math.max(deepest, (depth += 1));
    else if ((char === ')' || char === ']') && depth > 0) depth -= 1;
  }
  return deepest;
}

/** Why `path` is not a JSONPath the evaluator takes, or null when it is. */
export function fieldPathProblem(path: string): string | null {
  const nesting = nestingOf(path);
  if (nesting > MAX_PATH_NESTING)
    return `nests brackets and parentheses ${nesting} deep; at most ${MAX_PATH_NESTING} are read`;
  try {
    parse(path);
    return null;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `is not an RFC 9535 JSONPath: ${why.replace(/\.$/, '')}`;
  }
}

/** Thrown inside the library's walk to stop it at the first match (the field takes only that). */
const FOUND = Symbol('found');

/** The first value `path` selects in `document`; undefined when none, or when the path does not parse. */
export function firstMatch(document: JsonValue, path: string): unknown {
  if (nestingOf(path) > MAX_PATH_NESTING) return undefined;
  let found: unknown;
  try {
    exec(document, path, (value) => {
      found = value;
      throw FOUND;
    });
  } catch (stop) {
    if (stop !== FOUND) return undefined;
  }
  return found;
}

/** A field an answer is copied into: the value at `path` goes to the custom field `name` (a request's `fields`). */
export interface FieldCopy {
  path: string;
  name: string;
}

/**
 * The value each field takes from a JSON answer's text: the first match of its path. A 0, false or empty result
 * (null, '', [], {}) is not copied; a path the library refuses copies nothing. Objects and arrays are copied as
 * JSON text. Null when the answer is not JSON (nothing is copied).
 */
export function fieldValuesOf(fields: readonly FieldCopy[], answer: string): Record<string, string> | null {
  let document: JsonValue;
  try {
    document = JSON.parse(answer); // JSON.parse gives JSON values only (its type says any)
  } catch {
    return null;
  }
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = copied(firstMatch(document, field.path));
    if (value !== null) values[field.name] = value;
  }
  return values;
}

function copied(value: unknown): string | null {
  if (value === undefined || value === null || value === 0 || value === false || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? null : JSON.stringify(value);
  if (typeof value === 'object') return Object.keys(value).length === 0 ? null : JSON.stringify(value);
  return null;
}
