// A block kind as the engine runs it: its entry in the executors' table (./index.ts), exported by the kind's own
// `engine/blocks/<type>/executor.ts`. `execute` runs the block in a stretch; the rest are what the kind does when
// the run comes back to it (a tap on its buttons, an answer to it, the end of its call) or when `POST …/runs`
// checks it. The engine asks the table, never a kind by name: a kind that has none of these leaves them out.
import type { Transaction } from 'kysely';
import type { BlockData, BlockType } from '../../../generated/block-catalog.js';
import type { InvokeCallRow } from '../../store/invoke-calls.js';
import type { DB } from '../../store/schema.js';
import type { StepClose } from '../../store/workflow-runs.js';
import type { BlockExecutor, RunContext } from '../context.js';

/** A call the run waits for (`wait: 'call'`) ended, or its bound passed: what the wake knows of it. */
export interface WaitedCall {
  tx: Transaction<DB>;
  /** The run's context, read only when the end needs it (an answer's fields to copy). */
  context: () => Promise<RunContext | undefined>;
  now: string;
  runId: string;
  /** The step the run waits at. */
  step: number;
  /** The output the wake brings (the bound's: the failure output). */
  output: number;
  /** The call as its job just recorded it in this transaction (else it is read). */
  ended?: InvokeCallRow;
}

/** What the step gets from its call's end: the output followed, how the step closes, the variables written. */
export interface CallClose {
  output: number;
  close: StepClose;
  /** The fields copied (key → value): later blocks read them. */
  written: Record<string, string>;
}

export interface ExecutorEntry<T extends BlockType> {
  /** Runs the block in a stretch. */
  execute: BlockExecutor<T>;
  /** A message with reply buttons: the output a tap on the button `id` follows, or null. */
  tapOutput?(data: BlockData<T>, id: string | null): number | null;
  /** A block that waits for the contact's answer: the custom field the answer is also saved to ('' for none). */
  answerField?(data: BlockData<T>): string;
  /** A block that waits for a call: what the step gets when the call ends. */
  onCallEnd?(ending: WaitedCall): Promise<CallClose>;
  /** The integration account `id` the block names (the definition's `integrationAccount`) is the account's and
   * connected (`POST …/runs`). A kind that needs an integration and cannot check it is never connected. */
  integrationConnected?(tx: Transaction<DB>, accountId: string, id: string): Promise<boolean>;
}
