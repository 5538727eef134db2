// Custom-field values (Part A, Custom field value rules). A request's entries are all checked before anything
// is written: one refused value writes none.
//
// - `number` takes a JSON number (a numeric string is refused: expected_number); one JSON cannot hold as a
//   finite number, such as 1e999, is invalid_number.
// - `text` and `dropdown` take a string (expected_string) of at most 1000 characters: on the API a format check
//   (400) comes first; every other writer (an automation's data, math or question block, an invoke copy, the
//   console) meets too_long here, so no writer stores more (issue 33).
// - `dropdown` accepts an option's `value` or its label (invalid_option otherwise) and stores the `value`.
// - A field named twice in one request is duplicate_field.
import type { Kysely, Selectable } from 'kysely';
import { ApiError } from '../../errors.js';
import { longerThan } from '../../text.js';
import { findCustomFieldsByIds } from '../../store/contacts.js';
import type { CustomFieldsTable, DB, FieldValue } from '../../store/schema.js';

export interface ValueInput {
  field_id: string;
  value: unknown;
}

export type ValueIssueReason =
  'expected_number' | 'expected_string' | 'invalid_number' | 'invalid_option' | 'duplicate_field' | 'too_long';

/** The longest text a `text` or `dropdown` field holds (Part A, "Custom field"). */
export const MAX_FIELD_TEXT = 1000;

/** A value that passed its field's rules, in the form stored (a dropdown's option value). */
export interface CheckedValue {
  field: Selectable<CustomFieldsTable>;
  value: FieldValue;
}

/** One entry against its field: the stored form, or the reason it is refused. */
export function checkValue(
  field: Selectable<CustomFieldsTable>,
  value: unknown,
): { value: FieldValue } | { reason: ValueIssueReason } {
  if (field.type === 'number') {
    if (typeof value !== 'number') return { reason: 'expected_number' };
    return Number.isFinite(value) ? { value } : { reason: 'invalid_number' };
  }
  if (typeof value !== 'string') return { reason: 'expected_string' };
  if (longerThan(value, MAX_FIELD_TEXT)) return { reason: 'too_long' };
  if (field.type === 'text') return { value };
  const options = field.options ?? [];
  const option = options.find((o) => o.value === value) ?? options.find((o) => o.label === value);
  return option ? { value: option.value } : { reason: 'invalid_option' };
}

/**
 * Checks every entry against the account's fields: 422 custom_field_not_found (every unknown id, in request
 * order) before 422 invalid_custom_field_value (every refused entry, in request order).
 */
export async function checkValues(
  db: Kysely<DB>,
  accountId: string,
  entries: readonly ValueInput[],
): Promise<CheckedValue[]> {
  if (entries.length === 0) return [];
  const ids = [...new Set(entries.map((e) => e.field_id))];
  const fields = new Map((await findCustomFieldsByIds(db, accountId, ids)).map((f) => [f.id, f]));
  const missing = ids.filter((id) => !fields.has(id));
  if (missing.length > 0)
    throw new ApiError(422, 'custom_field_not_found', 'Some custom fields are not in the account.', {
      field_ids: missing,
    });

  const checked: CheckedValue[] = [];
  const errors: { field_id: string; reason: ValueIssueReason }[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const field = fields.get(entry.field_id);
    if (!field) continue; // never: the missing fields were refused above
    if (seen.has(entry.field_id)) {
      errors.push({ field_id: entry.field_id, reason: 'duplicate_field' });
      continue;
    }
    seen.add(entry.field_id);
    const result = checkValue(field, entry.value);
    if ('reason' in result) errors.push({ field_id: entry.field_id, reason: result.reason });
    else checked.push({ field, value: result.value });
  }
  if (errors.length > 0)
    throw new ApiError(
      422,
      'invalid_custom_field_value',
      'Some values are refused by their fields; none was written.',
      {
        errors,
      },
    );
  return checked;
}
