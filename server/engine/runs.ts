// The run's state machine (Part B; docs/decisions.md, "The automation engine"). A run is a row; a stretch of it runs in one
// transaction with the row locked (one worker at a time, on any process): from where it stands, block after
// block, until it waits, ends, or has run MAX_STEPS_PER_STRETCH blocks (then a job continues it, so one
// transaction stays short). Every wait is a `workflow.advance` job on the one clock: a sleep's end, the 90-day
// limit of a question or buttons, a start delay. Answers, taps and a child's end resume the run directly.
//
// Runs follow the version they started with, whatever is published or unpublished later.
//
// A stretch, step by step (`walk`): take the block, check the loop guard (Part B rule 4: a block runs at most
// MAX_BLOCK_RUNS times in one run), run the block, record its step, follow what it answered. Sends go by the
// comment-reply rule (`sendAsAutomation`).
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Block } from '../../generated/block-catalog.js';
import { recordEvents } from '../domain/events/outbox.js';
import { MAX_RUN_STEPS } from '../domain/workflows/runs.js';
import { runView } from '../domain/workflows/views.js';
import { findAccount, type AccountRow } from '../store/accounts.js';
import { findAccountAndContact, type ContactRow } from '../store/contacts.js';
import {
  ADVANCE_RUN_JOB,
  type AdvancePayload,
  type JobOf,
  type LaterSendPayload,
  type STOP_RUNS_JOB,
  type Wake,
} from '../job-kinds.js';
import { advanceJobMovesRun, wakeFindsWait } from '../run-wakes.js';
import type { WorkflowSendResult } from '../domain/messaging/workflow-send.js';
import { enqueue, laterJobRow, type JobLease, type NewJob } from '../store/jobs.js';
import {
  closeRunStep,
  findStoppedRunOfMessage,
  insertRun,
  lockRun,
  selectActiveRunsOfWorkflow,
  selectRecentRunSteps,
  updateRun,
  type WorkflowRunRow,
} from '../store/workflow-runs.js';
import type { RunnableVersionRow } from '../store/workflows.js';
import type { InvokeCallRow } from '../store/invoke-calls.js';
import type { DB } from '../store/schema.js';
import { answerField, endOfCall, runBlock } from './blocks/index.js';
import { committing } from './commit.js';
import { writeField } from './blocks/field-write.js';
import {
  CONTACT_WAIT_MS,
  MAX_BLOCK_RUNS,
  type BlockResult,
  type EngineDeps,
  type RunContext,
  type StepError,
} from './context.js';
import type { StartRun } from './types.js';
import { runVariables } from './variables.js';
import { privateReplySent, sendAsAutomation } from './walk/comment-reply.js';
import { blockAnswer, SEND_WAIT_MS, sentStep, waitForSend } from './walk/later-send.js';
import {
  NO_TAP,
  recordStep,
  saveRun,
  takeStep,
  tapWait,
  type PendingTap,
  type Step,
  type Stretch,
} from './walk/stretch.js';
import { graphReads, nextOf, versionOf } from './walk/versions.js';

/** Blocks one transaction runs before a job continues the run. */
export const MAX_STEPS_PER_STRETCH = 50;

/** Creates the run (queued) in the caller's transaction, with the job that begins it. */
export async function startRun(
  tx: Transaction<DB>,
  deps: Pick<EngineDeps, 'clock'>,
  input: StartRun,
  options: { schedule: boolean } = { schedule: true },
) {
  const now = deps.clock.now();
  const run = await insertRun(tx, {
    id: randomUUID(),
    account_id: input.accountId,
    workflow_id: input.workflowId,
    version_id: input.version.id,
    contact_id: input.contact.id,
    channel: input.contact.channel,
    connection_id: input.connectionId,
    source: input.source,
    status: 'queued',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    ended_at: null,
    node_id: input.from ?? 'root',
    waiting_for: input.startAt ? 'timer' : null,
    wait_until: input.startAt ? input.startAt.toISOString() : null,
    wait_message_id: null,
    wait_step: null,
    tap_step: null,
    tap_node_id: null,
    tap_message_id: null,
    tap_until: null,
    visits: input.carried?.visits ?? {},
    variables: input.carried?.variables ?? (input.trigger.text ? { $input: input.trigger.text } : {}),
    trigger_context: input.trigger,
    parent_run_id: input.parentRunId ?? null,
  });
  if (options.schedule) await scheduleAdvance(tx, deps, run, { kind: 'start' }, input.startAt ?? now);
  return run;
}

/**
 * Starts a run and runs its first stretch at once, in the caller's transaction (a trigger's start: the first
 * send does not wait for another job).
 */
export async function startRunNow(tx: Transaction<DB>, deps: EngineDeps, input: StartRun) {
  const run = await startRun(tx, deps, input, { schedule: false });
  await advanceRun(tx, deps, run, { kind: 'start' }, { contact: input.contact, account: input.account });
  return run;
}

/** The `workflow.advance` job that moves the run on after `wake`, at `at`. */
const advanceJob = (
  run: Pick<WorkflowRunRow, 'id' | 'account_id'>,
  wake: Wake,
  at: Date,
): NewJob<typeof ADVANCE_RUN_JOB> => ({
  kind: ADVANCE_RUN_JOB,
  accountId: run.account_id,
  payload: { run_id: run.id, wake } satisfies AdvancePayload,
  runAt: at,
});

async function scheduleAdvance(
  tx: Transaction<DB>,
  deps: Pick<EngineDeps, 'clock'>,
  run: Pick<WorkflowRunRow, 'id' | 'account_id'>,
  wake: Wake,
  at: Date,
): Promise<void> {
  await enqueue(tx, deps.clock, advanceJob(run, wake, at));
}

/** The `workflow.advance` job: one stretch of the run, committed with the job's completion. */
export async function runAdvanceJob(
  job: JobOf<typeof ADVANCE_RUN_JOB>,
  ctx: JobLease,
  deps: EngineDeps,
): Promise<void> {
  const payload = job.payload;
  await committing(ctx.db, deps, async (tx, deps) => {
    const run = await lockRun(tx, payload.run_id);
    // A stale wake (its wait ended another way) reads nothing more; a link's open also resumes a run that ended
    // `stopped` (like a tap, engine/triggers.ts).
    if (run && advanceJobMovesRun(payload.wake, run)) await advanceRun(tx, deps, run, payload.wake);
    await ctx.complete(tx);
  });
}

/**
 * Moves the locked run on after `wake`, in the caller's transaction. Stale wakes (a timer of a wait that
 * already ended, an answer to a run no longer waiting for one) change nothing.
 */
export async function advanceRun(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  wake: Wake,
  /**
   * What the caller has at hand in this transaction already: the run's contact, and (a `call` wake) the call
   * as it just ended, and whether its step was closed with it (the call's job, in one statement).
   */
  known: {
    contact?: ContactRow;
    account?: AccountRow;
    call?: InvokeCallRow;
    callStepClosed?: boolean;
    sent?: SentLater;
  } = {},
): Promise<void> {
  const version = await versionOf(tx, run);
  if (!version) return finish(tx, deps, run, 'failed', { code: 'version_not_found', message: 'The version is gone.' });
  const woken = await wakeUp(wakingOf(tx, deps, run, version), wake, known);
  if (!woken) return;
  const moving = { ...woken.run, waiting_for: null, wait_until: null, wait_message_id: null, wait_step: null };
  await walk(tx, deps, moving, version, woken, known.contact && { contact: known.contact, account: known.account });
}

/** A block's send made after the stretch that ran it (engine/later-send-job.ts): its outcome, and its job's payload. */
export interface SentLater {
  result: Exclude<WorkflowSendResult, { sent: 'later' }>;
  payload: Pick<LaterSendPayload, 'step' | 'started_at' | 'private_reply_to' | 'then'>;
}

/** The send's bound passed with the run still waiting for it (its job lost or stuck): the outcome is not known. */
const sendBoundPassed = (step: number, now: string): SentLater => ({
  result: {
    sent: false,
    code: 'outcome_unknown',
    message: `The channel's answer did not come within ${SEND_WAIT_MS / 60_000} minutes; the message may have gone out.`,
  },
  payload: { step, started_at: now, private_reply_to: null, then: { next: 0 } },
});

/** A run a wake reached, as it stands. */
interface Waking {
  tx: Transaction<DB>;
  deps: EngineDeps;
  run: WorkflowRunRow;
  version: RunnableVersionRow;
  /** The block the run stands at. */
  here: Block | undefined;
  /** The step the run waits at. */
  waitStep: number;
  /** Buttons whose after-send branch is what runs now keep waiting for their tap through it. */
  pendingTap: PendingTap | null;
  now: string;
}

/** Where a woken run goes on: from block `from` (null: its path ends there), with the buttons still open. */
interface Resumed {
  run: WorkflowRunRow;
  from: string | null;
  pendingTap: PendingTap | null;
  /** The send the run waited for, made: the block's step is recorded first, and the walk goes on from there. */
  sent?: SentLater;
}

/** The run as the wake finds it. */
function wakingOf(tx: Transaction<DB>, deps: EngineDeps, run: WorkflowRunRow, version: RunnableVersionRow): Waking {
  const pendingTap =
    run.tap_step !== null && run.tap_node_id && run.tap_until
      ? { step: run.tap_step, nodeId: run.tap_node_id, messageId: run.tap_message_id, until: run.tap_until }
      : null;
  return {
    tx,
    deps,
    run,
    version,
    here: run.node_id ? version.graph.nodes[run.node_id] : undefined,
    waitStep: run.wait_step ?? run.step_count,
    pendingTap,
    now: deps.clock.now().toISOString(),
  };
}

/** What `wake` does to the run: where it goes on from, or nothing (a stale wake, or the run ended). */
async function wakeUp(
  waking: Waking,
  wake: Wake,
  known: { call?: InvokeCallRow; callStepClosed?: boolean; sent?: SentLater },
): Promise<Resumed | undefined> {
  if (!wakeFindsWait(wake, waking.run)) return undefined; // stale: its wait ended another way
  switch (wake.kind) {
    case 'start':
      // A run begins at `root`, or at the block it was started from (multichannel).
      return goOn(waking, waking.run.node_id ?? 'root');
    case 'continue':
      return goOn(waking, waking.run.node_id);
    case 'timer':
    case 'child':
      return endWait(waking);
    case 'expire':
      return expire(waking, wake.step);
    case 'answer':
      return answer(waking, wake.text);
    case 'tap':
      return tap(waking, wake.output, wake.messageId);
    case 'resume':
      return resume(waking, wake.step, wake.nodeId, wake.output);
    case 'link':
      return linkOpened(waking, wake);
    case 'handoff':
      return handedOff(waking, wake);
    case 'call':
      return callEnded(waking, wake.output, known);
    case 'send':
      // The send's job, with the outcome at hand; or the wait's bound, which finds the run still waiting.
      return { ...goOn(waking, null), sent: known.sent ?? sendBoundPassed(wake.step, waking.now) };
  }
}

const goOn = (waking: Waking, from: string | null, run = waking.run, pendingTap = waking.pendingTap): Resumed => ({
  run,
  from,
  pendingTap,
});

/** Closes the step the run waits at. */
const closeWait = (
  waking: Waking,
  output: number | null,
  status: 'completed' | 'failed' = 'completed',
  error?: StepError,
) =>
  closeRunStep(waking.tx, waking.run.id, waking.waitStep, {
    status,
    output,
    ended_at: waking.now,
    ...(error ? { error } : {}),
  });

/** A sleep, start delay or child run ended: the run follows the block's output. */
async function endWait(waking: Waking): Promise<Resumed> {
  await closeWait(waking, 0);
  return goOn(waking, nextOf(waking.here, 0));
}

/**
 * The 90 days of the wait at step `step` ended: buttons still open close; a question or buttons the run waits
 * at end the run `completed`. A child run's wait goes on.
 */
async function expire(waking: Waking, step: number): Promise<undefined> {
  const { tx, run } = waking;
  if (waking.pendingTap?.step === step) {
    // The buttons' 90 days ended while their after-send branch waits for something else: that goes on.
    await closeRunStep(tx, run.id, step, {
      status: 'failed',
      output: null,
      ended_at: waking.now,
      error: { code: 'wait_expired', message: 'The contact did not tap within 90 days.' },
    });
    await updateRun(tx, run.id, NO_TAP);
    return;
  }
  if ((run.waiting_for !== 'answer' && run.waiting_for !== 'tap') || waking.waitStep !== step) return;
  await closeWait(waking, null, 'failed', {
    code: 'wait_expired',
    message: 'The contact did not answer within 90 days.',
  });
  await finish(tx, waking.deps, { ...run, waiting_for: null }, 'completed');
}

/**
 * The contact answered the question: `$input`, and the question's `answer_field` when it names one. An answer
 * the field refuses (text in a number field, more than 1000 characters) fails the step as a data block's write
 * does; the run goes on.
 */
async function answer(waking: Waking, text: string): Promise<Resumed | undefined> {
  const { tx, here } = waking;
  if (waking.run.waiting_for !== 'answer') return;
  let run = await updateRun(tx, waking.run.id, { variables: { ...waking.run.variables, $input: text } });
  const field = answerField(here);
  let refused: StepError | null = null;
  if (field !== '') {
    const context = await runContext(tx, waking.deps, run, waking.version);
    if (context) refused = await writeField(context, field, text);
    run = await updateRun(tx, run.id, { variables: { ...run.variables, [field]: text } });
  }
  await (refused ? closeWait(waking, 0, 'failed', refused) : closeWait(waking, 0));
  return goOn(waking, nextOf(here, 0), run);
}

/**
 * The call of the step the run waits at ended (or its bound passed): what the block's kind makes of it (invoke:
 * the answer's fields copied), the step closed (unless the call's job closed it with the call's end), the output
 * followed. A block that makes no call waits for none: the wake is stale.
 */
async function callEnded(
  waking: Waking,
  output: number,
  known: { call?: InvokeCallRow; callStepClosed?: boolean },
): Promise<Resumed | undefined> {
  const { tx, run } = waking;
  const context = () => runContext(tx, waking.deps, run, waking.version);
  const waited = { tx, context, now: waking.now, runId: run.id, step: waking.waitStep, output, ended: known.call };
  const ended = await endOfCall(waking.here, waited);
  if (!ended) return;
  if (!known.callStepClosed) await closeRunStep(tx, run.id, waking.waitStep, ended.close);
  const written = Object.keys(ended.written).length > 0;
  const moved = written ? await updateRun(tx, run.id, { variables: { ...run.variables, ...ended.written } }) : run;
  return goOn(waking, nextOf(waking.here, ended.output), moved);
}

/** The contact tapped a button of message `messageId`: of the buttons the run waits for, or still open. */
async function tap(waking: Waking, output: number, messageId: string): Promise<Resumed | undefined> {
  const { tx, run, pendingTap } = waking;
  if (run.waiting_for === 'tap' && run.wait_message_id === messageId) {
    await closeWait(waking, output);
    return goOn(waking, nextOf(waking.here, output), run, null);
  }
  if (!pendingTap || pendingTap.messageId !== messageId) return;
  // The tap takes the run off what its after-send branch waits for (a sleep, a question, another run).
  if (run.waiting_for) await closeWait(waking, null);
  await closeRunStep(tx, run.id, pendingTap.step, { status: 'completed', output, ended_at: waking.now });
  return goOn(waking, nextOf(waking.version.graph.nodes[pendingTap.nodeId], output), run, null);
}

/** A tap on the buttons (step `step`, block `nodeId`) of the run, which ended `stopped`: it runs again. */
async function resume(waking: Waking, step: number, nodeId: string, output: number): Promise<Resumed | undefined> {
  const { tx, now } = waking;
  if (waking.run.status !== 'stopped') return;
  await closeRunStep(tx, waking.run.id, step, { status: 'completed', output, ended_at: now });
  const run = await updateRun(tx, waking.run.id, { status: 'running', ended_at: null, updated_at: now });
  return goOn(waking, nextOf(waking.version.graph.nodes[nodeId], output), run, null);
}

/**
 * The contact opened a tracked link of the buttons of message `messageId` (instagram): the run follows the
 * button's output like a tap, from its wait or from the buttons still open, or again after it ended `stopped`
 * (within the 90 days a tap is waited for). The open is no message: the 24-hour window stays as it was.
 */
async function linkOpened(waking: Waking, wake: Extract<Wake, { kind: 'link' }>): Promise<Resumed | undefined> {
  const { tx, run } = waking;
  if (run.status !== 'stopped') return tap(waking, wake.output, wake.messageId);
  const stopped = await findStoppedRunOfMessage(tx, run.account_id, run.contact_id, wake.messageId);
  if (!stopped || stopped.run.id !== run.id || stopped.nodeId !== wake.nodeId) return;
  if (Date.parse(stopped.sentAt) + CONTACT_WAIT_MS < Date.parse(waking.now)) return;
  return resume(waking, stopped.seq, stopped.nodeId, wake.output);
}

/**
 * The contact took the whatsapp handoff of the run's buttons (engine/handoff.ts): they close with its output as
 * a link's open would close them, and the run ends there `completed`, since the person goes on on whatsapp in a
 * run of its own (as multichannel's `first` on another contact).
 */
async function handedOff(waking: Waking, wake: Extract<Wake, { kind: 'handoff' }>): Promise<Resumed | undefined> {
  const closed = await linkOpened(waking, { ...wake, kind: 'link' });
  return closed && { ...closed, from: null };
}

/** The run's contact, and its account, when the caller read them in this transaction already. */
interface KnownHolders {
  contact: ContactRow;
  account?: AccountRow;
}

/** Reads what the blocks of a stretch see: the account, the contact, the run's variables (none: one is gone). */
async function runContext(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  version: RunnableVersionRow,
  known?: KnownHolders,
): Promise<RunContext | undefined> {
  const found = known
    ? { account: known.account ?? (await findAccount(tx, run.account_id)), contact: known.contact }
    : await findAccountAndContact(tx, run.account_id, run.contact_id);
  const { account, contact } = found ?? {};
  if (!account || !contact) return undefined;
  const now = deps.clock.now();
  const vars = await runVariables(tx, account, contact, run.trigger_context, run.variables, now, graphReads(version));
  const workflow = { id: run.workflow_id, title: version.title };
  return {
    tx,
    deps,
    run,
    workflow,
    graph: version.graph,
    visits: run.visits,
    account,
    contact,
    nodeId: run.node_id ?? 'root',
    step: run.wait_step ?? run.step_count,
    now,
    vars,
    send: () => Promise.reject(new Error('no send outside a stretch')),
    startRun: (input) => startRun(tx, deps, input),
  };
}

/** Where the walk goes after a block: on to block `to` (null: the path ends there), or nowhere (the stretch is over). */
type Onward = { to: string | null } | 'over';

/** Runs blocks from `from` until the run waits, ends, or the stretch is long enough. */
async function walk(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  version: RunnableVersionRow,
  resumed: Pick<Resumed, 'from' | 'pendingTap' | 'sent'>,
  known?: KnownHolders,
): Promise<void> {
  const stretch = await openStretch(tx, deps, run, version, resumed.pendingTap, known);
  if (!stretch) return finish(tx, deps, run, 'failed', { code: 'contact_not_found', message: 'The contact is gone.' });
  let nodeId = resumed.from;
  if (resumed.sent) {
    const onward = await followSend(stretch, resumed.sent);
    if (onward === 'over') return;
    nodeId = onward.to;
  }
  for (let steps = 0; nodeId !== null; steps += 1) {
    if (steps >= MAX_STEPS_PER_STRETCH) return continueLater(stretch, nodeId);
    const step = takeStep(stretch, nodeId);
    if (step.runsOfBlock > MAX_BLOCK_RUNS) return stopLooping(stretch, step);
    const onward = await follow(stretch, step, await runStep(stretch, step));
    if (onward === 'over') return;
    nodeId = onward.to;
  }
  return endOfPath(stretch);
}

/** Opens a stretch of the run from its row as saved (none when its account or contact is gone). */
async function openStretch(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  version: RunnableVersionRow,
  pendingTap: PendingTap | null,
  known?: KnownHolders,
): Promise<Stretch | undefined> {
  const context = await runContext(tx, deps, run, version, known);
  if (!context) return undefined;
  const trigger = { ...run.trigger_context };
  const memo = { contact: context.contact };
  return {
    tx,
    deps,
    version,
    run,
    context,
    visits: { ...run.visits },
    trigger,
    stepCount: run.step_count,
    pendingTap,
    memo,
    steps: [],
  };
}

/** The block's send was made after the stretch that ran the block: its step is recorded now, on its outcome. */
async function followSend(stretch: Stretch, sent: SentLater): Promise<Onward> {
  if (sent.result.sent === true) await privateReplySent(stretch, sent.payload.private_reply_to);
  return follow(stretch, sentStep(stretch, sent.payload), blockAnswer(sent.result, sent.payload.then));
}

/** Part B rule 4: a block runs at most MAX_BLOCK_RUNS times in one run; the next time stops the run. */
async function stopLooping(stretch: Stretch, step: Step): Promise<void> {
  const error = { code: 'loop_limit', message: `The block ${step.nodeId} ran ${MAX_BLOCK_RUNS} times in this run.` };
  recordStep(stretch, step, { status: 'failed', output: null, messageId: null, error, endedAt: step.at });
  await endRun(stretch, step.nodeId, 'stopped');
}

/** Runs the block; a block the graph does not have fails the run. */
async function runStep(stretch: Stretch, step: Step): Promise<BlockResult> {
  if (!step.block)
    return { failed: { code: 'node_not_found', message: `The graph has no block ${step.nodeId}.` }, end: 'failed' };
  return runBlock(step.block, blockContext(stretch, step));
}

/** What the block sees besides its data: the stretch's context, the run as it stands, and the stretch's send. */
const blockContext = (stretch: Stretch, step: Step): RunContext => ({
  ...stretch.context,
  run: stretch.run,
  visits: stretch.visits,
  now: step.now,
  nodeId: step.nodeId,
  step: step.seq,
  send: (body) => sendAsAutomation(stretch, body),
});

/** Records the block's step and follows what the block answered. */
async function follow(stretch: Stretch, step: Step, result: BlockResult): Promise<Onward> {
  const messageId = 'messageId' in result ? (result.messageId ?? null) : null;
  if ('next' in result) {
    recordStep(stretch, step, {
      status: 'completed',
      output: result.next,
      messageId,
      error: null,
      endedAt: step.at,
    });
    return { to: nextOf(step.block, result.next) };
  }
  if ('wait' in result) return waitFor(stretch, step, result, messageId);
  if ('failed' in result) return failStep(stretch, step, result, messageId);
  if ('later' in result) {
    await waitForSend(stretch, step, result);
    const bound = new Date(step.now.getTime() + SEND_WAIT_MS);
    await scheduleAdvance(stretch.tx, stretch.deps, stretch.run, { kind: 'send', step: step.seq }, bound);
    return 'over';
  }
  const output = result.output ?? null;
  recordStep(stretch, step, { status: 'completed', output, messageId, error: null, endedAt: step.at });
  await endRun(stretch, step.nodeId, result.end);
  return 'over';
}

type Waits = Extract<BlockResult, { wait: unknown }>;

/**
 * The block waits: for the contact (question, buttons), or runs on (a sleep, a child run), each wait with the job
 * that ends it. Buttons with an after-send branch keep their tap wait open while the walk goes on along it.
 */
async function waitFor(stretch: Stretch, step: Step, result: Waits, messageId: string | null): Promise<Onward> {
  const { tx, deps } = stretch;
  const contactWait = result.wait === 'answer' || result.wait === 'tap';
  const status = contactWait ? 'waiting' : 'running';
  recordStep(stretch, step, { status, output: null, messageId, error: null, endedAt: null });
  const until = result.until.toISOString();
  // The block's own step, not the run's last: a first send of a comment-started run records its public reply after it.
  const waitStep = step.seq;
  if (result.thenOutput !== undefined) {
    stretch.pendingTap = { step: waitStep, nodeId: step.nodeId, messageId, until };
    await scheduleAdvance(tx, deps, stretch.run, { kind: 'expire', step: waitStep }, result.until);
    return { to: nextOf(step.block, result.thenOutput) };
  }
  // The wait's end: a sleep's timer, or the bound of a wait for the contact or a child.
  const ends: Wake[] = [];
  if (result.wait === 'timer') ends.push({ kind: 'timer', step: waitStep });
  if (contactWait || result.wait === 'child') ends.push({ kind: 'expire', step: waitStep });
  // Due later (the usual case), its job is written with the run and the steps, in one statement.
  const now = deps.clock.now();
  const later = result.until.getTime() > now.getTime();
  const laterJobs = later ? ends.map((wake) => laterJobRow(advanceJob(stretch.run, wake, result.until), now)) : [];
  stretch.run = await saveRun(
    stretch,
    {
      status,
      node_id: step.nodeId,
      waiting_for: result.wait,
      wait_until: until,
      wait_message_id: messageId,
      wait_step: waitStep,
    },
    laterJobs,
  );
  if (!later) for (const wake of ends) await scheduleAdvance(tx, deps, stretch.run, wake, result.until);
  // A `call` wait's bound is written by the block with its call (invoke: engine/blocks/invoke/executor.ts).
  return 'over';
}

type Fails = Extract<BlockResult, { failed: StepError }>;

/** The block failed: the branch follows its failure output when it has one, else the run ends. */
async function failStep(stretch: Stretch, step: Step, result: Fails, messageId: string | null): Promise<Onward> {
  const output = result.output ?? null;
  recordStep(stretch, step, { status: 'failed', output, messageId, error: result.failed, endedAt: step.at });
  if (result.output !== undefined) return { to: nextOf(step.block, result.output) };
  await endRun(stretch, step.nodeId, result.end ?? 'stopped');
  return 'over';
}

/** The stretch ran MAX_STEPS_PER_STRETCH blocks: a job goes on from `nodeId`, so one transaction stays short. */
async function continueLater(stretch: Stretch, nodeId: string): Promise<void> {
  stretch.run = await saveRun(stretch, { status: 'running', node_id: nodeId });
  await scheduleAdvance(stretch.tx, stretch.deps, stretch.run, { kind: 'continue' }, stretch.deps.clock.now());
}

/** The path ended: the run waits for the tap on the buttons still open, else it completed. */
async function endOfPath(stretch: Stretch): Promise<void> {
  if (stretch.pendingTap) {
    // The branch after the send ended: the run waits for the tap alone.
    stretch.run = await saveRun(stretch, { status: 'waiting', ...tapWait(stretch.pendingTap), ...NO_TAP });
    return;
  }
  stretch.run = await saveRun(stretch, {});
  await finish(stretch.tx, stretch.deps, stretch.run, 'completed');
}

/** The run ends at block `nodeId`. */
async function endRun(stretch: Stretch, nodeId: string, status: 'completed' | 'stopped' | 'blocked' | 'failed') {
  stretch.run = await saveRun(stretch, { node_id: nodeId });
  await finish(stretch.tx, stretch.deps, stretch.run, status);
}

/** Ends the run: its status, `workflow_run.ended` with its steps, and a parent waiting for it moves on. */
export async function finish(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  status: 'completed' | 'stopped' | 'blocked' | 'failed',
  error?: StepError,
): Promise<void> {
  const now = deps.clock.now().toISOString();
  if (error) deps.logger?.warn({ run_id: run.id, error }, 'automation run failed');
  const ended = await updateRun(tx, run.id, {
    status,
    ended_at: now,
    updated_at: now,
    waiting_for: null,
    wait_until: null,
  });
  const { steps, truncated } = await selectRecentRunSteps(tx, run.account_id, run.id, MAX_RUN_STEPS);
  await recordEvents(tx, run.account_id, now, [
    {
      type: 'workflow_run.ended',
      resource: { type: 'workflow_run', id: run.id },
      data: runView(ended, steps, truncated),
    },
  ]);
  if (run.parent_run_id) {
    const parent = await lockRun(tx, run.parent_run_id);
    if (parent && !parent.ended_at && parent.waiting_for === 'child')
      await scheduleAdvance(tx, deps, parent, { kind: 'child' }, deps.clock.now());
  }
}

/** The `workflow.stop_runs` job: a deleted automation's runs in progress end `stopped` (with their event). */
export async function runStopRunsJob(job: JobOf<typeof STOP_RUNS_JOB>, ctx: JobLease, deps: EngineDeps): Promise<void> {
  const { workflow_id } = job.payload;
  await ctx.db.transaction().execute(async (tx) => {
    if (job.accountId)
      for (const { id } of await selectActiveRunsOfWorkflow(tx, job.accountId, workflow_id)) {
        const run = await lockRun(tx, id);
        if (run && !run.ended_at) await finish(tx, deps, run, 'stopped');
      }
    await ctx.complete(tx);
  });
}
