// Small checks the use cases share, so that they need neither a type cast nor a non-null assertion.

/** `value` is one of `list`: a typed `includes`, which narrows what it accepts (a request's string, a stored one). */
export function isOneOf<T>(list: readonly T[], value: unknown): value is T {
  return list.some((item) => item === value);
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A row the caller's own transaction wrote or locked, read back (a view joined from several tables, a row
 * locked before its change). The database cannot miss it, so a miss is a bug: it fails here, as a 500 that
 * names what was missing, rather than as a TypeError further on. The one such helper of the domain.
 */
export function held<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Internal error: ${what} is missing, though this transaction holds it.`);
  return value;
}
