// The engine's table of block kinds: the executor of every type of the catalog (server/blocks/<type>/executor.ts),
// typed by it, so a type without an executor does not compile. A type the engine does not know (none once the
// graph is validated; kept for a version stored before its type left the catalog) runs as `unsupported`: it does
// nothing and the run follows its output.
import type { Block, BlockData, BlockType } from '../../../generated/block-catalog.js';
import { execute as buttons, tappedOutput } from '../../blocks/buttons/executor.js';
import { execute as cards, tappedCardOutput } from '../../blocks/cards/executor.js';
import { execute as conditional } from '../../blocks/conditional/executor.js';
import { execute as data } from '../../blocks/data/executor.js';
import { execute as invoke } from '../../blocks/invoke/executor.js';
import { execute as math } from '../../blocks/math/executor.js';
import { execute as media } from '../../blocks/media/executor.js';
import { execute as message } from '../../blocks/message/executor.js';
import { execute as multichannel } from '../../blocks/multichannel/executor.js';
import { execute as pauseAutomations } from '../../blocks/pause-automations/executor.js';
import { execute as question } from '../../blocks/question/executor.js';
import { execute as randomizer } from '../../blocks/randomizer/executor.js';
import { execute as sheets } from '../../blocks/sheets/executor.js';
import { execute as sleep } from '../../blocks/sleep/executor.js';
import { execute as start } from '../../blocks/start/executor.js';
import { execute as tags } from '../../blocks/tags/executor.js';
import type { BlockExecutor, BlockResult, RunContext } from '../context.js';
import { passThrough } from './pass-through.js';

const BLOCK_EXECUTORS: { readonly [T in BlockType]: BlockExecutor<T> } = {
  root: passThrough,
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
  comment: passThrough,
  blank: passThrough,
  unsupported: passThrough,
};

/** The blocks whose message has reply buttons: the output a tap on the button `id` follows, or null. */
const TAP_OUTPUTS: { readonly [T in BlockType]?: (data: BlockData<T>, id: string | null) => number | null } = {
  buttons: tappedOutput,
  cards: tappedCardOutput,
};

const isKnown = (type: string): type is BlockType => Object.hasOwn(BLOCK_EXECUTORS, type);

function execute<T extends BlockType>(type: T, data: BlockData<T>, ctx: RunContext): Promise<BlockResult> {
  return BLOCK_EXECUTORS[type]({ ...ctx, data });
}

/** Runs the block `node` in the run's context. */
export function runBlock(node: Block, ctx: RunContext): Promise<BlockResult> {
  return isKnown(node.type) ? execute(node.type, node.data, ctx) : passThrough();
}

function tapped<T extends BlockType>(type: T, data: BlockData<T>, id: string | null): number | null {
  return TAP_OUTPUTS[type]?.(data, id) ?? null;
}

/** The output a tap on the reply button `id` of the message of block `node` follows, or null. */
export function tapOutput(node: Block | undefined, id: string | null): number | null {
  return node && isKnown(node.type) ? tapped(node.type, node.data, id) : null;
}
