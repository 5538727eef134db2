// The one table of block executors (one file per block type). A type the engine does not know runs as
// `unsupported`: it does nothing and the run follows its output.
import type { BlockExecutor } from '../context.js';
import { buttons, tappedOutput } from './buttons.js';
import { cards, tappedCardOutput } from './cards.js';
import { conditional } from './conditional.js';
import { data } from './data.js';
import { math } from './math.js';
import { media } from './media.js';
import { message } from './message.js';
import { passThrough } from './pass.js';
import { pauseAutomations } from './pause-automations.js';
import { question } from './question.js';
import { randomizer } from './randomizer.js';
import { sleep } from './sleep.js';
import { start } from './start.js';
import { tags } from './tags.js';
import { invoke, multichannel, sheets } from './unavailable.js';

export const BLOCK_EXECUTORS: Record<string, BlockExecutor> = {
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

export const blockExecutor = (type: string): BlockExecutor => BLOCK_EXECUTORS[type] ?? passThrough;

/** The blocks whose message has buttons: the output a tap on the reply button `id` follows, or null. */
const TAP_OUTPUTS: Record<string, (data: Record<string, unknown>, id: string | null) => number | null> = {
  buttons: tappedOutput,
  cards: tappedCardOutput,
};

export const tapOutput = (node: { type?: unknown; data?: Record<string, unknown> } | undefined, id: string | null) =>
  (typeof node?.type === 'string' ? TAP_OUTPUTS[node.type]?.(node.data ?? {}, id) : null) ?? null;
