// What a block kind is when no run is involved (Part B, "Block catalog" and "Output counts"): its outputs, the
// account resources it names, its compile-stage checks, what its runs read and what `POST …/runs` checks for it.
// Pure: no domain, store or engine. The workflows domain (validation, positions, reads) and the engine both read
// it, through the table in ./index.ts; each kind's own definition is `server/blocks/<type>/definition.ts`.
//
// These functions receive `data` as sent: validation calls them on any graph, before the catalog's checks passed,
// so a field is `unknown` until checked. Only the catalog's fields can be read (`SentData`).
import type { BlockData, BlockType } from '../../generated/block-catalog.js';
import type { components } from '../../generated/api.js';

/** A validation issue's code (the contract's `ValidationIssue`), as a block's problems carry it. */
type ValidationCode = components['schemas']['ValidationIssue']['code'];

/** A block's `data` as sent: the catalog's fields of that type, each unchecked. */
export type SentData<T extends BlockType> = { readonly [K in keyof BlockData<T>]?: unknown };

/** What a block names in the account. `path` is relative to the block (`data.tags[0]`). */
export interface BlockReference {
  kind: 'tag' | 'custom_field' | 'upload' | 'whatsapp_connection' | 'workflow';
  value: string;
  path: string;
}

/** A compiler problem of one block; `path` is relative to the block. */
export interface BlockProblem {
  code: ValidationCode;
  path: string;
  message: string;
}

export interface BlockDefinition<T extends BlockType> {
  /** The number of `next` entries, or null when it depends on a field that is missing or malformed. */
  outputs(data: SentData<T>): number | null;
  /** `next` may be omitted (blank: "1, or none"). */
  nextOptional?: boolean;
  /** The resources the block names, in field order. */
  references?(data: SentData<T>): BlockReference[];
  /** The first compiler problem of the block, or null. */
  compile?(data: SentData<T>): BlockProblem | null;
  /** Texts of a format the catalog's schema cannot state (an invoke field's JSONPath): `schema_violation`
   * problems of the shape stage, for fields the catalog accepted; `message` says why, after the path. */
  formatProblems?(data: SentData<T>): BlockProblem[];
  /** Its run reads the contact's custom fields (a stretch then loads them). */
  readsFields?: boolean;
  /** It sends to the contact: `POST …/runs` of an automation holding one needs the 24-hour window open. */
  sends?: boolean;
  /** The account integration it needs (`integration_type`): `POST …/runs` refuses while it is not connected. */
  integration?: string;
  /** The account's integration account the block names (sheets: `sheets_external_id`): `POST …/runs` checks
   * that one is connected; null when the field is missing or malformed. */
  integrationAccount?(data: SentData<T>): string | null;
}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const fixed = (n: number) => (): number => n;
export const problem = (code: ValidationCode, path: string, message: string): BlockProblem => ({
  code,
  path,
  message,
});

/** Button references (`buttons` block and each card): whatsapp hand-off numbers. */
export function buttonReferences(buttons: unknown, base: string): BlockReference[] {
  const refs: BlockReference[] = [];
  arrayOf(buttons).forEach((button, i) => {
    const id = isObject(button) ? str(button.whatsapp_connection_id) : null;
    if (id !== null)
      refs.push({ kind: 'whatsapp_connection', value: id, path: `${base}[${i}].whatsapp_connection_id` });
  });
  return refs;
}

/** A reference to the field at `path` when it holds a string (`data.answer_field`, `data.name`, …). */
export function referenceAt(kind: BlockReference['kind'], value: unknown, path: string): BlockReference[] {
  const text = str(value);
  return text !== null ? [{ kind, value: text, path }] : [];
}
