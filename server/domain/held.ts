// The one check the use cases share for a row their own transaction holds (the type guards are server/guards.ts).

/**
 * A row the caller's own transaction wrote or locked, read back (a view joined from several tables, a row
 * locked before its change). The database cannot miss it, so a miss is a bug: it fails here, as a 500 that
 * names what was missing, rather than as a TypeError further on. The one such helper of the domain.
 */
export function held<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Internal error: ${what} is missing, though this transaction holds it.`);
  return value;
}
