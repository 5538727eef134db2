// The definitions' table: the block kinds when no run is involved (Part B, "Block catalog" and "Output counts"),
// keyed by the catalog's types, so a type without a definition does not compile. Each kind's definition
// (./<type>/definition.ts) says how many `next` entries a block has, the account resources it names (with their
// paths), the compiler checks (the rules spanning several fields that the engine's compiler refuses), what its runs
// read and what `POST …/runs` checks for it. The workflows domain's validation (domain/workflows/validation.ts),
// positions and the `next` filling of reads (domain/workflows/graph.ts), publishing and the engine read it; the
// catalog (domain/workflows/catalog.ts) has the per-field rules. This floor sits below the domain: it imports only
// its own files and the contract (generated/). What a kind does in a run is its executor's (engine/blocks/).
//
// Functions here receive a block as sent: they are called on any graph, so every access is checked.
import type { BlockType } from '../../generated/block-catalog.js';
import { isObject, type BlockDefinition, type BlockProblem, type BlockReference } from './definition.js';
import { definition as blank } from './blank/definition.js';
import { definition as buttons } from './buttons/definition.js';
import { definition as cards } from './cards/definition.js';
import { definition as comment } from './comment/definition.js';
import { definition as conditional } from './conditional/definition.js';
import { definition as data } from './data/definition.js';
import { definition as invoke } from './invoke/definition.js';
import { definition as math } from './math/definition.js';
import { definition as media } from './media/definition.js';
import { definition as message } from './message/definition.js';
import { definition as multichannel } from './multichannel/definition.js';
import { definition as pauseAutomations } from './pause-automations/definition.js';
import { definition as question } from './question/definition.js';
import { definition as randomizer } from './randomizer/definition.js';
import { definition as root } from './root/definition.js';
import { definition as sheets } from './sheets/definition.js';
import { definition as sleep } from './sleep/definition.js';
import { definition as start } from './start/definition.js';
import { definition as tags } from './tags/definition.js';
import { definition as unsupported } from './unsupported/definition.js';

export type { BlockDefinition, BlockProblem, BlockReference };

/** Every block type of the catalog (the test checks the keys against the catalog's `$defs`). */
export const BLOCK_TYPES: { readonly [T in BlockType]: BlockDefinition<T> } = {
  root,
  message,
  question,
  media,
  buttons,
  cards,
  tags,
  data,
  math,
  conditional,
  randomizer,
  sleep,
  start,
  invoke,
  sheets,
  multichannel,
  'pause-automations': pauseAutomations,
  comment,
  blank,
  unsupported,
};

const isBlockType = (type: unknown): type is BlockType => typeof type === 'string' && Object.hasOwn(BLOCK_TYPES, type);

/** The block type of a known `type`, or undefined (unknown types are left as they are). */
export function blockType(type: unknown): BlockDefinition<BlockType> | undefined {
  return isBlockType(type) ? BLOCK_TYPES[type] : undefined;
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

/** The problems of format the catalog cannot state of a block (none for unknown types). */
export function formatProblems(node: unknown): BlockProblem[] {
  if (!isObject(node) || !isObject(node.data)) return [];
  return blockType(node.type)?.formatProblems?.(node.data) ?? [];
}

/** The first compiler problem of a block, or null. */
export function compileProblem(node: unknown): BlockProblem | null {
  if (!isObject(node) || !isObject(node.data)) return null;
  return blockType(node.type)?.compile?.(node.data) ?? null;
}
