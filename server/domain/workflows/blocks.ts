// The one table of block types (Part B, "Block catalog" and "Output counts"), keyed by type: how many `next`
// entries a block has, the account resources it names (with their paths) and the compiler checks (the rules
// spanning several fields that the engine's compiler refuses). Validation (./validation.ts), positions and the
// `next` filling of reads (./graph.ts) read it; the catalog (./catalog.ts) has the per-field rules.
//
// Functions here receive `data` as sent: they are called on any graph, so every access is checked.
import type { ValidationCode } from './validation-types.js';

type Json = Record<string, unknown>;

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

export interface BlockType {
  /** The number of `next` entries, or null when it depends on a field that is missing or malformed. */
  outputs(data: Json): number | null;
  /** `next` may be omitted (blank: "1, or none"). */
  nextOptional?: boolean;
  /** The resources the block names, in field order. */
  references?(data: Json): BlockReference[];
  /** The first compiler problem of the block, or null. */
  compile?(data: Json): BlockProblem | null;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const fixed = (n: number) => (): number => n;

/** Button references (`buttons` block and each card): whatsapp hand-off numbers. */
function buttonReferences(buttons: unknown, base: string): BlockReference[] {
  const refs: BlockReference[] = [];
  arrayOf(buttons).forEach((button, i) => {
    const id = isObject(button) ? str(button.whatsapp_connection_id) : null;
    if (id !== null)
      refs.push({ kind: 'whatsapp_connection', value: id, path: `${base}[${i}].whatsapp_connection_id` });
  });
  return refs;
}

/** The conditions of a conditional: `conditions`, or the old one-condition form kept directly in `data`. */
export function conditionsOf(data: Json): { condition: Json; base: string }[] {
  if (data.conditions !== undefined) {
    return arrayOf(data.conditions).map((c, i) => ({
      condition: isObject(c) ? c : {},
      base: `data.conditions[${i}]`,
    }));
  }
  const oldForm = ['field_type', 'field_name', 'operator', 'value'].some((k) => data[k] !== undefined);
  return oldForm ? [{ condition: data, base: 'data' }] : [];
}

const NAMED_FIELD_TYPES = new Set(['tag', 'custom_field', 'variable']);

function conditionReferences(data: Json): BlockReference[] {
  const refs: BlockReference[] = [];
  for (const { condition, base } of conditionsOf(data)) {
    const name = str(condition.field_name);
    if (name === null) continue;
    if (condition.field_type === 'tag') refs.push({ kind: 'tag', value: name, path: `${base}.field_name` });
    if (condition.field_type === 'custom_field') {
      refs.push({ kind: 'custom_field', value: name, path: `${base}.field_name` });
    }
  }
  return refs;
}

function mathReferences(data: Json): BlockReference[] {
  const refs: BlockReference[] = [];
  const result = str(data.result_field);
  if (result !== null) refs.push({ kind: 'custom_field', value: result, path: 'data.result_field' });
  for (const operand of ['operand_a', 'operand_b'] as const) {
    const o = data[operand];
    const key = isObject(o) && o.type === 'field' ? str(o.value) : null;
    if (key !== null) refs.push({ kind: 'custom_field', value: key, path: `data.${operand}.value` });
  }
  return refs;
}

const problem = (code: ValidationCode, path: string, message: string): BlockProblem => ({ code, path, message });

function compileMedia(data: Json): BlockProblem | null {
  const has = (v: unknown) => typeof v === 'string' && v !== '';
  const upload = has(data.upload_id);
  const url = has(data.media_url);
  if (upload === url) {
    return problem(
      'media_source_invalid',
      'data',
      upload ? 'A media block has both upload_id and media_url.' : 'A media block has neither upload_id nor media_url.',
    );
  }
  return null;
}

function compileRandomizer(data: Json): BlockProblem | null {
  const options = data.options;
  if (!Array.isArray(options) || options.length < 2 || options.length > 20) {
    return problem('randomizer_options_invalid', 'data.options', 'A randomizer needs 2 to 20 options.');
  }
  let sum = 0;
  for (const [i, option] of options.entries()) {
    const p = isObject(option) ? option.percentage : undefined;
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0) {
      return problem(
        'randomizer_options_invalid',
        `data.options[${i}].percentage`,
        'A randomizer percentage must be a non-negative number.',
      );
    }
    sum += p;
  }
  if (Math.abs(sum - 100) > 1e-9) {
    return problem('randomizer_options_invalid', 'data.options', `The randomizer percentages sum to ${sum}, not 100.`);
  }
  return null;
}

function compileConditional(data: Json): BlockProblem | null {
  const conditions = conditionsOf(data);
  if (conditions.length === 0) {
    return problem('conditional_incomplete', 'data.conditions', 'A conditional has no condition.');
  }
  for (const { condition, base } of conditions) {
    if (typeof condition.field_type !== 'string') {
      return problem('conditional_incomplete', `${base}.field_type`, 'A condition has no field_type.');
    }
    if (typeof condition.operator !== 'string') {
      return problem('conditional_incomplete', `${base}.operator`, 'A condition has no operator.');
    }
    if (NAMED_FIELD_TYPES.has(condition.field_type) && typeof condition.field_name !== 'string') {
      return problem(
        'conditional_incomplete',
        `${base}.field_name`,
        `A ${condition.field_type} condition has no field_name.`,
      );
    }
  }
  return null;
}

function compileMultichannel(data: Json): BlockProblem | null {
  if (data.mode === undefined || data.mode === null) {
    return problem('multichannel_mode_missing', 'data.mode', 'A multichannel block has no mode.');
  }
  const channels = data.channels;
  if (!Array.isArray(channels) || channels.length < 1 || channels.length > 10) {
    return problem('multichannel_channels_invalid', 'data.channels', 'A multichannel block needs 1 to 10 channels.');
  }
  const seen = new Set<string>();
  for (const [i, channel] of channels.entries()) {
    const id = isObject(channel) ? channel.connection_id : undefined;
    if (typeof id !== 'string' || id === '') {
      return problem(
        'multichannel_channels_invalid',
        `data.channels[${i}].connection_id`,
        'A multichannel channel has no connection_id.',
      );
    }
    if (seen.has(id)) {
      return problem(
        'multichannel_channels_invalid',
        `data.channels[${i}].connection_id`,
        'A multichannel block repeats a connection.',
      );
    }
    seen.add(id);
  }
  return null;
}

/** Every block type of the catalog (the test checks the keys against the catalog's `$defs`). */
export const BLOCK_TYPES: Readonly<Record<string, BlockType>> = {
  root: { outputs: fixed(1) },
  message: { outputs: fixed(1) },
  question: {
    outputs: fixed(1),
    references: (data) => {
      const field = str(data.answer_field);
      return field ? [{ kind: 'custom_field', value: field, path: 'data.answer_field' }] : [];
    },
  },
  media: {
    outputs: fixed(1),
    references: (data) => {
      const id = str(data.upload_id);
      return id !== null ? [{ kind: 'upload', value: id, path: 'data.upload_id' }] : [];
    },
    compile: compileMedia,
  },
  buttons: { outputs: fixed(4), references: (data) => buttonReferences(data.buttons, 'data.buttons') },
  cards: {
    outputs: fixed(31),
    references: (data) =>
      arrayOf(data.cards).flatMap((card, c) => {
        if (!isObject(card)) return [];
        const refs: BlockReference[] = [];
        const upload = str(card.upload_id);
        if (upload !== null) refs.push({ kind: 'upload', value: upload, path: `data.cards[${c}].upload_id` });
        return refs.concat(buttonReferences(card.buttons, `data.cards[${c}].buttons`));
      }),
  },
  tags: {
    outputs: fixed(1),
    references: (data) =>
      arrayOf(data.tags).flatMap((tag, i): BlockReference[] =>
        typeof tag === 'string' ? [{ kind: 'tag', value: tag, path: `data.tags[${i}]` }] : [],
      ),
  },
  data: {
    outputs: fixed(1),
    references: (data) => {
      const name = str(data.name);
      return name !== null ? [{ kind: 'custom_field', value: name, path: 'data.name' }] : [];
    },
  },
  math: { outputs: fixed(1), references: mathReferences },
  conditional: { outputs: fixed(2), references: conditionReferences, compile: compileConditional },
  randomizer: {
    outputs: (data) => (Array.isArray(data.options) ? data.options.length : null),
    compile: compileRandomizer,
  },
  sleep: { outputs: fixed(1) },
  start: {
    outputs: fixed(1),
    references: (data) => {
      const id = str(data.workflow_id);
      return id !== null ? [{ kind: 'workflow', value: id, path: 'data.workflow_id' }] : [];
    },
  },
  invoke: {
    outputs: fixed(2),
    references: (data) =>
      arrayOf(data.fields).flatMap((f, i): BlockReference[] => {
        const name = isObject(f) ? str(f.name) : null;
        return name !== null ? [{ kind: 'custom_field', value: name, path: `data.fields[${i}].name` }] : [];
      }),
  },
  sheets: { outputs: fixed(1) },
  multichannel: {
    outputs: (data) => (Array.isArray(data.channels) ? data.channels.length + 1 : null),
    compile: compileMultichannel,
  },
  'pause-automations': { outputs: fixed(1) },
  comment: { outputs: fixed(1) },
  blank: { outputs: fixed(1), nextOptional: true },
  unsupported: { outputs: fixed(1) },
};

/** The block type of a known `type`, or undefined (unknown types are left as they are). */
export function blockType(type: unknown): BlockType | undefined {
  return typeof type === 'string' && Object.hasOwn(BLOCK_TYPES, type) ? BLOCK_TYPES[type] : undefined;
}

/** The output count of a block `{type, data}`, or null when unknown (unknown type, or count from a bad field). */
export function outputCount(node: unknown): number | null {
  if (!isObject(node)) return null;
  const type = blockType(node.type);
  if (!type || !isObject(node.data)) return null;
  return type.outputs(node.data);
}

/** The resources a block names (empty for unknown types). */
export function blockReferences(node: unknown): BlockReference[] {
  if (!isObject(node) || !isObject(node.data)) return [];
  return blockType(node.type)?.references?.(node.data) ?? [];
}

/** The first compiler problem of a block, or null. */
export function compileProblem(node: unknown): BlockProblem | null {
  if (!isObject(node) || !isObject(node.data)) return null;
  return blockType(node.type)?.compile?.(node.data) ?? null;
}
