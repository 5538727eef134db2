// Custom fields as the console creates and deletes them. The key (`name`) is derived from the label (Part A):
// lowercase, accents removed, each run of other characters replaced by a hyphen, fixed at creation, with a
// numeric suffix if the account once had the same key. Every key an account used is kept, deleted fields'
// included, so a key never names two fields over time (automations name fields by key).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import {
  deleteCustomField,
  findCustomFieldById,
  insertCustomField,
  selectCustomFieldsPage,
  lockAccount,
  usedFieldKeys,
  type CustomFieldRow,
} from '../../store/console.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { CustomFieldOptionRow, DB } from '../../store/schema.js';
import { audit, type Actor } from '../accounts/actor.js';
import { trimBoth } from '../../text.js';

export const FIELD_TYPES = ['number', 'text', 'dropdown'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

// Letters NFD does not split into a base letter and an accent.
const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i' };

/**
 * The key of a label: lowercase, accents removed, each run of characters other than a–z and 0–9 replaced by
 * one hyphen, hyphens at either end dropped (`Data de nascimento` → `data-de-nascimento`). Empty when the
 * label has no such character.
 */
export function deriveFieldKey(label: string): string {
  const key = label
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøđðłþı]/g, (c) => LETTERS[c] ?? c)
    .replace(/[^a-z0-9]+/g, '-');
  return trimBoth(key, '-');
}

/** `base` if the account never used it, else `base-N` with the smallest N ≥ 2 the account never used. */
export function nextFreeKey(base: string, used: readonly string[]): string {
  const taken = new Set(used);
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n += 1;
  return `${base}-${n}`;
}

function checkOptions(
  type: FieldType,
  options: readonly CustomFieldOptionRow[] | undefined,
): CustomFieldOptionRow[] | null {
  const invalid = (reason: string, message: string) => new ApiError(422, 'invalid_options', message, { reason });
  if (type !== 'dropdown') {
    if (options !== undefined) throw invalid('options_not_allowed', `A ${type} field has no options.`);
    return null;
  }
  if (!options || options.length === 0) throw invalid('options_required', 'A dropdown field needs options.');
  for (const key of ['value', 'label'] as const) {
    const seen = new Set<string>();
    for (const option of options) {
      if (typeof option[key] !== 'string' || option[key].trim() === '')
        throw invalid('options_required', `Every option needs a ${key}.`);
      if (seen.has(option[key])) throw invalid(`duplicate_${key}`, `Two options have the ${key} ${option[key]}.`);
      seen.add(option[key]);
    }
  }
  return options.map((o) => ({ value: o.value, label: o.label }));
}

export async function createCustomField(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { label: string; type: FieldType; options?: readonly CustomFieldOptionRow[] },
  actor?: Actor,
): Promise<CustomFieldRow> {
  if (!FIELD_TYPES.includes(input.type))
    throw new ApiError(422, 'invalid_options', `Unknown field type ${String(input.type)}.`, {
      reason: 'options_not_allowed',
    });
  const base = deriveFieldKey(input.label);
  if (base === '') throw new ApiError(422, 'invalid_label', 'The label has no letter or digit to derive the key from.');
  const options = checkOptions(input.type, input.options);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    // One creation at a time per account: two fields with one label get `x` and `x-2`, never a clash.
    if (!(await lockAccount(tx, accountId))) throw notFound('No such account.');
    const name = nextFreeKey(base, await usedFieldKeys(tx, accountId, base));
    const id = randomUUID();
    const created = await insertCustomField(tx, {
      id,
      account_id: accountId,
      name,
      label: input.label,
      type: input.type,
      options,
      created_at: now,
      updated_at: now,
    });
    await audit(
      tx,
      actor,
      {
        accountId,
        action: 'custom_field.created',
        targetType: 'custom_field',
        targetId: id,
        details: { name, label: input.label, type: input.type },
      },
      now,
    );
    return created;
  });
}

/** Deletes a field. Its key stays used: a later field with the same label gets a suffix. */
export async function removeCustomField(
  db: Kysely<DB>,
  clock: Clock,
  fieldId: string,
  actor?: Actor,
): Promise<CustomFieldRow> {
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const field = await findCustomFieldById(tx, fieldId);
    if (!field) throw notFound('No such custom field.');
    const deleted = await deleteCustomField(tx, field.account_id, fieldId);
    if (!deleted) throw notFound('No such custom field.');
    await audit(
      tx,
      actor,
      {
        accountId: field.account_id,
        action: 'custom_field.deleted',
        targetType: 'custom_field',
        targetId: fieldId,
        details: { name: field.name },
      },
      now,
    );
    return deleted;
  });
}

/** A custom field as `GET /v1/custom-fields` lists it (the public CustomField schema). */
export function customFieldView(row: CustomFieldRow) {
  return { id: row.id, name: row.name, label: row.label, type: row.type, options: row.options };
}

/** `GET /v1/custom-fields`: a page of the account's custom fields, ordered by `name`. */
export async function listCustomFields(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  page: PageRequest,
): Promise<Page<ReturnType<typeof customFieldView>>> {
  const result = await selectCustomFieldsPage(db, await cursorCodec(db, clock), accountId, page);
  return { data: result.data.map(customFieldView), next_cursor: result.next_cursor };
}
