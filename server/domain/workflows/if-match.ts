// The revision precondition of an automation (Part B): every answer carrying one has `ETag: "<revision>"`; a
// change names the revision it is based on in `If-Match` (`"3"` or `3`), required by PATCH (428
// precondition_required without it), optional elsewhere, and refused with 412 version_conflict when the automation
// has moved on. `mutation.ts` checks it again under the row's lock.
//
// Why one module: the header's parsing sat in the routes, the 428 in workflows.ts, the 412 in mutation.ts and the
// ETag in views.ts, so the rule's two ends (what we send, what we accept back) could drift apart. The request
// validator keeps the header optional (http/spec.ts) so that its absence is answered here.
import { ApiError } from '../../errors.js';

/** The header's name, as Express reads it (lower case). */
export const IF_MATCH_HEADER = 'if-match';

/** The `ETag` of an answer carrying one automation: its revision, quoted. */
export const etagOf = (row: { revision: number }): Record<string, string> => ({ ETag: `"${row.revision}"` });

/**
 * The revision an `If-Match` header carries (`"3"` or `3`), or undefined when absent. The request validator
 * refuses other shapes; with request validation off the same 400 comes from here, in the validator's form.
 */
export function revisionOfIfMatch(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*(?:"(\d+)"|(\d+))\s*$/.exec(header);
  const digits = match?.[1] ?? match?.[2];
  if (digits === undefined)
    throw Object.assign(new Error('If-Match must be a revision like "3".'), {
      status: 400,
      errors: [{ path: `/headers/${IF_MATCH_HEADER}`, message: 'must be a revision like "3"' }],
    });
  return Number(digits);
}

export const preconditionRequired = () =>
  new ApiError(428, 'precondition_required', 'This change needs an If-Match header with the revision it is based on.');

export const versionConflict = (current: number) =>
  new ApiError(
    412,
    'version_conflict',
    'The automation changed since that revision: read it again and redo the change.',
    {
      current_revision: current,
    },
  );

/** The revision a change that needs `If-Match` is based on; 428 when it was not sent. */
export function requireIfMatch(expected: number | undefined): number {
  if (expected === undefined) throw preconditionRequired();
  return expected;
}

/** Throws 412 when `expected` is given and is not the row's revision. */
export function requireRevision(row: { revision: number }, expected: number | undefined): void {
  if (expected !== undefined && expected !== row.revision) throw versionConflict(row.revision);
}
