// The engine's table of block kinds: the executor entry of every type of the catalog (./<type>/executor.ts; what
// an entry holds: ./entry.ts), typed by it, so a type without an executor does not compile. The engine reaches a
// kind only through this table. A type the engine does not know (none once the graph is validated; kept for a
// version stored before its type left the catalog) runs as `unsupported`: it does nothing and the run follows its
// output.
import type { Transaction } from 'kysely';
import type { Block, BlockData, BlockType } from '../../../generated/block-catalog.js';
import type { DB } from '../../store/schema.js';
import type { BlockResult, RunContext } from '../context.js';
import { executor as buttons } from './buttons/executor.js';
import { executor as cards } from './cards/executor.js';
import { executor as conditional } from './conditional/executor.js';
import { executor as data } from './data/executor.js';
import type { CallClose, ExecutorEntry, WaitedCall } from './entry.js';
import { executor as invoke } from './invoke/executor.js';
import { executor as math } from './math/executor.js';
import { executor as media } from './media/executor.js';
import { executor as message } from './message/executor.js';
import { executor as multichannel } from './multichannel/executor.js';
import { executor as pauseAutomations } from './pause-automations/executor.js';
import { passThrough } from './pass-through.js';
import { executor as question } from './question/executor.js';
import { executor as randomizer } from './randomizer/executor.js';
import { executor as sheets } from './sheets/executor.js';
import { executor as sleep } from './sleep/executor.js';
import { executor as start } from './start/executor.js';
import { executor as tags } from './tags/executor.js';

/** root, comment, blank, unsupported: they do nothing; the run follows their one output. */
const PASS_THROUGH = { execute: passThrough };

const BLOCK_EXECUTORS: { readonly [T in BlockType]: ExecutorEntry<T> } = {
  root: PASS_THROUGH,
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
  comment: PASS_THROUGH,
  blank: PASS_THROUGH,
  unsupported: PASS_THROUGH,
};

const isKnown = (type: string): type is BlockType => Object.hasOwn(BLOCK_EXECUTORS, type);

function execute<T extends BlockType>(type: T, data: BlockData<T>, ctx: RunContext): Promise<BlockResult> {
  return BLOCK_EXECUTORS[type].execute({ ...ctx, data });
}

/** Runs the block `node` in the run's context. */
export function runBlock(node: Block, ctx: RunContext): Promise<BlockResult> {
  return isKnown(node.type) ? execute(node.type, node.data, ctx) : passThrough();
}

function tapped<T extends BlockType>(type: T, data: BlockData<T>, id: string | null): number | null {
  return BLOCK_EXECUTORS[type].tapOutput?.(data, id) ?? null;
}

/** The output a tap on the reply button `id` of the message of block `node` follows, or null. */
export function tapOutput(node: Block | undefined, id: string | null): number | null {
  return node && isKnown(node.type) ? tapped(node.type, node.data, id) : null;
}

function answerFieldOf<T extends BlockType>(type: T, data: BlockData<T>): string {
  return BLOCK_EXECUTORS[type].answerField?.(data) ?? '';
}

/** The custom field an answer to block `node` is also saved to, or '' (none, or a block that asks nothing). */
export function answerField(node: Block | undefined): string {
  return node && isKnown(node.type) ? answerFieldOf(node.type, node.data) : '';
}

/**
 * What the step of block `node` gets when the call the run waits for there ended (or its bound passed); undefined
 * when the block makes no call (then no call is waited for there).
 */
export function endOfCall(node: Block | undefined, waited: WaitedCall): Promise<CallClose> | undefined {
  return node && isKnown(node.type) ? BLOCK_EXECUTORS[node.type].onCallEnd?.(waited) : undefined;
}

/**
 * `POST …/runs`: whether the integration account `id` block type `type` names is the account's and connected.
 * A kind that needs an integration and cannot check it is never connected.
 */
export async function integrationConnected(
  type: unknown,
  tx: Transaction<DB>,
  accountId: string,
  id: string,
): Promise<boolean> {
  if (typeof type !== 'string' || !isKnown(type)) return false;
  return (await BLOCK_EXECUTORS[type].integrationConnected?.(tx, accountId, id)) ?? false;
}
