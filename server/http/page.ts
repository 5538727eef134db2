// The page a list request asks for: `cursor` and `limit` of its query, as the domain's list services take them.
import type { PageRequest } from '../store/pagination.js';

/**
 * `cursor` and `limit` of a list's query. The request validator has made `limit` a number; a digit string is
 * still read as one (request validation can be switched off), anything else is left to the default.
 */
export function pageRequest(query: { readonly cursor?: unknown; readonly limit?: unknown }): PageRequest {
  const { cursor, limit } = query;
  return {
    cursor: typeof cursor === 'string' ? cursor : undefined,
    limit:
      typeof limit === 'number' ? limit : typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : undefined,
  };
}

/** A validated string query parameter, kept only when it is one (absent ones stay absent). */
export const stringParam = <Value extends string>(value: Value | undefined): Value | undefined =>
  typeof value === 'string' ? value : undefined;

/** A validated boolean query parameter: the validator has coerced `true`/`false` (or left the string). */
export function booleanParam(value: boolean | string | undefined): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}
