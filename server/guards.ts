// Type guards shared across the server, so that a value of unknown type (a caught error, a parsed document, a
// command-line option) is narrowed by a check that runs rather than by a cast that only tells the compiler.

/** An object (not null), its properties still unknown. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** Something thrown with a `code` (a Node.js system error, a PostgreSQL error's SQLSTATE). */
export const hasCode = (error: unknown): error is { code: unknown } => isRecord(error) && 'code' in error;

/** The SQLSTATE or errno code of a thrown value, or undefined when it carries none. */
export const codeOf = (error: unknown): unknown => (hasCode(error) ? error.code : undefined);

/** `value` is one of `list` (a typed `includes`: the list's element type narrows the value). */
export const isOneOf = <T>(list: readonly T[], value: unknown): value is T => list.some((item) => item === value);

/** A list with at least one item. */
export type NonEmpty<T> = readonly [T, ...T[]];

/** `list` has at least one item (so its first is there). */
export const isNonEmpty = <T>(list: readonly T[]): list is NonEmpty<T> => list.length > 0;

/** The message of a thrown value, whatever was thrown. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
