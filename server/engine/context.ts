// What the engine's parts share: its dependencies, what a block sees when it runs, and what it answers.
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { SchemaSendMessageRequest } from '../../generated/api.js';
import type { BlockData, BlockType } from '../../generated/block-catalog.js';
import type { MessagingProvider } from '../domain/messaging/delivery.js';
import type { SpreadsheetProvider } from '../spreadsheets/provider.js';
import type { Clock } from '../clock.js';
import type { WorkflowSendResult } from '../domain/messaging/workflow-send.js';
import type { AccountRow } from '../store/accounts.js';
import type { ContactRow } from '../store/contacts.js';
import type { ClaimAtInsert, ClaimedJob } from '../store/jobs.js';
import type { DB } from '../store/schema.js';
import type { WorkflowRunRow } from '../store/workflow-runs.js';
import type { CatalogGraph } from '../store/workflows.js';
import type { VariableLookup } from './evaluate/variables.js';
import type { StartRun } from './types.js';

export interface EngineDeps {
  clock: Clock;
  provider: MessagingProvider;
  /** The spreadsheet layer sheets blocks write through (server/services.ts). */
  spreadsheets: SpreadsheetProvider;
  /** The service's public base (attachment URLs of message events). */
  baseUrl: string;
  logger?: Logger;
  /** Runs a contact may start per hour, per trigger and through the API (run_limit_reached). */
  runsPerContactPerHour: number;
  /**
   * This process's worker, when it runs at once the jobs this process commits (JobRegistry.runSoon): a job
   * added with its `claimAtInsert` is already claimed for it (engine/commit.ts); absent: the loops claim them.
   */
  soonRunner?: {
    claimAtInsert(kind: string): ClaimAtInsert | undefined;
    runSoon(jobs: readonly ClaimedJob[]): void;
  };
  /** The jobs of the transaction in progress, claimed at insert, that the runner gets once it commits. */
  soon?: ClaimedJob[];
}

/** Why a step failed: `{code, message}` on the step, an open set of codes. */
export interface StepError {
  code: string;
  message: string;
}

/** The run's variables: the lookup `{name}` reads, and the writes of `data`, `math` and answers. */
export interface RunVariables {
  lookup: VariableLookup;
  /** A custom field or answer the run wrote: later blocks read it. */
  set(name: string, value: string | null): void;
  /** The contact's tags changed: `contact.tags` and tag conditions read them again. */
  tagsChanged(): Promise<void>;
  /** The contact's tag names now (the run's own changes included). */
  tagNames(): Promise<string[]>;
}

/** What a run's stretch gives every block it runs. */
export interface RunContext {
  tx: Transaction<DB>;
  deps: EngineDeps;
  run: WorkflowRunRow;
  workflow: { id: string; title: string };
  /** The blocks of the version the run follows. */
  graph: CatalogGraph;
  /** How many times each block ran in the run so far, this block included (the loop guard reads it). */
  visits: Readonly<Record<string, number>>;
  account: AccountRow;
  contact: ContactRow;
  nodeId: string;
  /** The `seq` of the block's step (an invoke call is keyed by it). */
  step: number;
  now: Date;
  vars: RunVariables;
  /** Sends as the automation (the first message of a comment-started run as its private reply). */
  send(body: SchemaSendMessageRequest): Promise<WorkflowSendResult>;
  /** Starts another run in this transaction (a `start` block). */
  startRun(input: StartRun): Promise<WorkflowRunRow>;
}

/** What a sending block does once the channel took its message: follow an output, or wait for the contact. */
export type AfterSend = { next: number } | { wait: 'answer' | 'tap'; until: Date; thenOutput?: number };

/** What a block answers: follow an output, wait, end the run, or fail (the branch ends, or follows `output`). */
export type BlockResult =
  | { next: number; messageId?: string | null }
  | {
      /** `call`: an invoke block's HTTP call, made by a job outside the stretch's transaction. */
      wait: 'answer' | 'tap' | 'timer' | 'child' | 'call';
      until: Date;
      messageId?: string | null;
      /** buttons: the output followed right after the send, while the tap wait stays open. */
      thenOutput?: number;
    }
  | {
      end: 'completed' | 'stopped' | 'blocked';
      error?: StepError;
      messageId?: string | null;
      /** The output the step records (multichannel: the channel another run goes on from). */
      output?: number;
    }
  | { failed: StepError; output?: number; end?: 'stopped' | 'blocked' | 'failed' }
  /**
   * The send goes out after the stretch commits (a channel reached over the network): the run waits (`send`),
   * and the block answers `then` once the channel took the message (engine/later-send.ts).
   */
  | { later: Extract<WorkflowSendResult, { sent: 'later' }>; then: AfterSend };

/** What an executor of block type `T` sees: the run's context and the block's data, typed by the catalog. */
export type BlockContext<T extends BlockType> = RunContext & { data: BlockData<T> };

export type BlockExecutor<T extends BlockType> = (ctx: BlockContext<T>) => Promise<BlockResult>;

/** Part B: question and buttons wait up to 90 days. */
export const CONTACT_WAIT_MS = 90 * 24 * 60 * 60 * 1000;
/** How long a run waits for its invoke call before the block takes its failure output anyway (call_expired). */
export const CALL_WAIT_MS = 10 * 60 * 1000;
/** Part B rule 4: each block runs at most 6 times in one run; the 7th stops it. */
export const MAX_BLOCK_RUNS = 6;
