// The run's state machine (Part B; docs/decisions.md, "The automation engine"). A run is a row; a stretch of it runs in one
// transaction with the row locked (one worker at a time, on any process): from where it stands, block after
// block, until it waits, ends, or has run MAX_STEPS_PER_STRETCH blocks (then a job continues it, so one
// transaction stays short). Every wait is a `workflow.advance` job on the one clock: a sleep's end, the 90-day
// limit of a question or buttons, a start delay. Answers, taps and a child's end resume the run directly.
//
// Runs follow the version they started with, whatever is published or unpublished later.
import { randomInt, randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { SchemaSendMessageRequest } from '../../generated/api.js';
import { recordEvents } from '../domain/events/outbox.js';
import { sendFromWorkflow, type WorkflowSendMemo, type WorkflowSendResult } from '../domain/messaging/workflow-send.js';
import { MAX_RUN_STEPS } from '../domain/workflows/runs.js';
import { runView } from '../domain/workflows/views.js';
import type { ClaimedJob, JobContext } from '../jobs/index.js';
import { findAccount } from '../store/accounts.js';
import { findContact, type ContactRow } from '../store/contacts.js';
import { enqueueJob } from '../store/jobs.js';
import type { DB } from '../store/schema.js';
import {
  closeRunStep,
  insertRun,
  insertRunStep,
  lockRun,
  selectActiveRunsOfWorkflow,
  selectRecentRunSteps,
  updateRun,
  type WorkflowRunRow,
} from '../store/workflow-runs.js';
import { findRepliesList } from '../store/replies-lists.js';
import { findVersionById, type WorkflowVersionRow } from '../store/workflows.js';
import { substitute } from './evaluate/variables.js';
import { blockExecutor } from './blocks/index.js';
import { writeField } from './blocks/field-write.js';
import { MAX_BLOCK_RUNS, type BlockContext, type BlockResult, type EngineDeps, type StepError } from './context.js';
import type { StartRun } from './types.js';
import { runVariables } from './variables.js';

export const ADVANCE_RUN_JOB = 'workflow.advance';
/** Blocks one transaction runs before a job continues the run. */
export const MAX_STEPS_PER_STRETCH = 50;

/** What moves a run on. */
export type Wake =
  | { kind: 'start' }
  | { kind: 'continue' }
  /** A timed wait ended (sleep, start delay): `step` is the waiting step, so a stale job does nothing. */
  | { kind: 'timer'; step: number }
  /** A question or buttons waited 90 days. */
  | { kind: 'expire'; step: number }
  | { kind: 'answer'; text: string; messageId: string }
  /** A tap on the buttons of message `messageId` (the run's wait, or buttons whose after-send branch runs on). */
  | { kind: 'tap'; output: number; messageId: string }
  /** A tap on the buttons (step `step` at block `nodeId`) of a run that ended `stopped`: it runs again. */
  | { kind: 'resume'; step: number; nodeId: string; output: number }
  | { kind: 'child' };

type AdvancePayload = { run_id: string; wake: Wake };

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
    node_id: 'root',
    waiting_for: input.startAt ? 'timer' : null,
    wait_until: input.startAt ? input.startAt.toISOString() : null,
    wait_message_id: null,
    wait_step: null,
    tap_step: null,
    tap_node_id: null,
    tap_message_id: null,
    tap_until: null,
    visits: {},
    variables: input.trigger.text ? { $input: input.trigger.text } : {},
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
  await advanceRun(tx, deps, run, { kind: 'start' }, input.contact);
  return run;
}

async function scheduleAdvance(
  tx: Transaction<DB>,
  deps: Pick<EngineDeps, 'clock'>,
  run: Pick<WorkflowRunRow, 'id' | 'account_id'>,
  wake: Wake,
  at: Date,
): Promise<void> {
  await enqueueJob(
    tx,
    {
      kind: ADVANCE_RUN_JOB,
      accountId: run.account_id,
      payload: { run_id: run.id, wake } satisfies AdvancePayload,
      runAt: at,
    },
    deps.clock.now(),
  );
}

/** The `workflow.advance` job: one stretch of the run, committed with the job's completion. */
export async function runAdvanceJob(job: ClaimedJob, ctx: JobContext, deps: EngineDeps): Promise<void> {
  const payload = job.payload as AdvancePayload;
  await ctx.db.transaction().execute(async (tx) => {
    const run = await lockRun(tx, payload.run_id);
    if (run && !run.ended_at) await advanceRun(tx, deps, run, payload.wake);
    await ctx.complete(tx);
  });
}

const versions = new Map<string, WorkflowVersionRow>();
/** Versions never change: each is read once per process (a few hundred kept). */
export async function versionOf(tx: Transaction<DB>, run: WorkflowRunRow): Promise<WorkflowVersionRow | undefined> {
  const cached = versions.get(run.version_id);
  if (cached) return cached;
  const version = await findVersionById(tx, run.account_id, run.version_id);
  if (version) {
    if (versions.size >= 500) versions.delete(versions.keys().next().value!);
    versions.set(version.id, version);
  }
  return version;
}

type Node = { type?: unknown; data?: Record<string, unknown> };

const readers = new Map<string, GraphReads>();
/**
 * What a version's blocks read beyond the contact's own fields, so a stretch skips the queries it does not
 * need: the recent messages (`conversation.*`, `message.last_*`), the tags (`contact.tags`; tag conditions
 * and tags blocks read them when they run), the custom fields (a `{key}` that is no built-in variable, a
 * conditional, math or data block).
 */
function graphReads(version: WorkflowVersionRow): GraphReads {
  let reads = readers.get(version.id);
  if (!reads) {
    const texts: string[] = [];
    const types = new Set<string>();
    const collect = (value: unknown): void => {
      if (typeof value === 'string') texts.push(value);
      else if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    for (const node of Object.values(version.graph.nodes as Record<string, Node>)) {
      if (typeof node?.type === 'string') types.add(node.type);
      collect(node?.data);
    }
    const names = texts.flatMap((text) => [...text.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!));
    const all = texts.join('\n');
    reads = {
      messages: all.includes('conversation.') || all.includes('message.last_'),
      tags: all.includes('contact.tags'),
      fields:
        ['conditional', 'math', 'data'].some((type) => types.has(type)) ||
        names.some((name) => !BUILT_IN_PREFIX.test(name)) ||
        Boolean(version.trigger.replies_list_id), // the list's replies may name fields
    };
    if (readers.size >= 500) readers.delete(readers.keys().next().value!);
    readers.set(version.id, reads);
  }
  return reads;
}
interface GraphReads {
  messages: boolean;
  tags: boolean;
  fields: boolean;
}
const BUILT_IN_PREFIX = /^(contact|message|conversation|system|account|secret)\./;
const nextOf = (node: Node | undefined, output: number): string | null => {
  const next = node?.data?.next;
  const target = Array.isArray(next) ? next[output] : undefined;
  return typeof target === 'string' ? target : null;
};

/**
 * Moves the locked run on after `wake`, in the caller's transaction. Stale wakes (a timer of a wait that
 * already ended, an answer to a run no longer waiting for one) change nothing.
 */
export async function advanceRun(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  wake: Wake,
  /** The run's contact, when the caller read it in this transaction already. */
  contact?: ContactRow,
): Promise<void> {
  const version = await versionOf(tx, run);
  if (!version) return finish(tx, deps, run, 'failed', { code: 'version_not_found', message: 'The version is gone.' });
  const nodes = version.graph.nodes as Record<string, Node>;
  const here = run.node_id ? nodes[run.node_id] : undefined;
  const now = deps.clock.now().toISOString();
  const waitStep = run.wait_step ?? run.step_count;
  const resumeAt = (output: number | null, status: 'completed' | 'failed' = 'completed', error?: StepError) =>
    closeRunStep(tx, run.id, waitStep, { status, output, ended_at: now, ...(error ? { error } : {}) });

  let from: string | null;
  // Buttons whose after-send branch is what runs now keep waiting for their tap through it.
  let pendingTap: PendingTap | null =
    run.tap_step !== null && run.tap_node_id && run.tap_until
      ? { step: run.tap_step, nodeId: run.tap_node_id, messageId: run.tap_message_id, until: run.tap_until }
      : null;
  switch (wake.kind) {
    case 'start':
      if (run.status !== 'queued') return;
      from = 'root';
      break;
    case 'continue':
      if (run.waiting_for) return;
      from = run.node_id;
      break;
    case 'timer':
      if (run.waiting_for !== 'timer' || waitStep !== wake.step) return;
      await resumeAt(0);
      from = nextOf(here, 0);
      break;
    case 'expire':
      if (pendingTap?.step === wake.step) {
        // The buttons' 90 days ended while their after-send branch waits for something else: that goes on.
        await closeRunStep(tx, run.id, wake.step, {
          status: 'failed',
          output: null,
          ended_at: now,
          error: { code: 'wait_expired', message: 'The contact did not tap within 90 days.' },
        });
        await updateRun(tx, run.id, { tap_step: null, tap_node_id: null, tap_message_id: null, tap_until: null });
        return;
      }
      if ((run.waiting_for !== 'answer' && run.waiting_for !== 'tap') || waitStep !== wake.step) return;
      await resumeAt(null, 'failed', { code: 'wait_expired', message: 'The contact did not answer within 90 days.' });
      return finish(tx, deps, { ...run, waiting_for: null }, 'completed');
    case 'answer': {
      if (run.waiting_for !== 'answer') return;
      await resumeAt(0);
      run = await updateRun(tx, run.id, { variables: { ...run.variables, $input: wake.text } });
      const field = here?.data?.answer_field;
      if (typeof field === 'string' && field !== '') {
        const ctx = await blockContext(tx, deps, run, version, run.node_id ?? 'root', here?.data ?? {});
        if (ctx) await writeField(ctx, field, wake.text);
        run = await updateRun(tx, run.id, { variables: { ...run.variables, [field]: wake.text } });
      }
      from = nextOf(here, 0);
      break;
    }
    case 'tap':
      if (run.waiting_for === 'tap' && run.wait_message_id === wake.messageId) {
        await resumeAt(wake.output);
        from = nextOf(here, wake.output);
      } else if (pendingTap && pendingTap.messageId === wake.messageId) {
        // The tap takes the run off what its after-send branch waits for (a sleep, a question, another run).
        if (run.waiting_for)
          await closeRunStep(tx, run.id, waitStep, { status: 'completed', output: null, ended_at: now });
        await closeRunStep(tx, run.id, pendingTap.step, { status: 'completed', output: wake.output, ended_at: now });
        from = nextOf(nodes[pendingTap.nodeId], wake.output);
      } else return;
      pendingTap = null;
      break;
    case 'resume':
      if (run.status !== 'stopped') return;
      pendingTap = null;
      await closeRunStep(tx, run.id, wake.step, { status: 'completed', output: wake.output, ended_at: now });
      run = await updateRun(tx, run.id, { status: 'running', ended_at: null, updated_at: now });
      from = nextOf(nodes[wake.nodeId], wake.output);
      break;
    case 'child':
      if (run.waiting_for !== 'child') return;
      await resumeAt(0);
      from = nextOf(here, 0);
      break;
  }
  const moving = { ...run, waiting_for: null, wait_until: null, wait_message_id: null, wait_step: null };
  await walk(tx, deps, moving, version, from, pendingTap, contact);
}

/** Buttons or cards whose after-send branch runs on: the tap wait the run returns to when that branch ends. */
interface PendingTap {
  step: number;
  nodeId: string;
  messageId: string | null;
  until: string;
}

async function blockContext(
  tx: Transaction<DB>,
  deps: EngineDeps,
  run: WorkflowRunRow,
  version: WorkflowVersionRow,
  nodeId: string,
  data: Record<string, unknown>,
  known?: ContactRow,
): Promise<BlockContext | undefined> {
  const account = await findAccount(tx, run.account_id);
  const contact = known ?? (await findContact(tx, run.account_id, run.contact_id));
  if (!account || !contact) return undefined;
  const now = deps.clock.now();
  const vars = await runVariables(tx, account, contact, run.trigger_context, run.variables, now, graphReads(version));
  const workflow = { id: run.workflow_id, title: version.title };
  return {
    tx,
    deps,
    run,
    workflow,
    account,
    contact,
    nodeId,
    data,
    now,
    vars,
    send: () => Promise.reject(new Error('no send outside a stretch')),
    startRun: (input) => startRun(tx, deps, input),
  };
}

/** Runs blocks from `from` until the run waits, ends, or the stretch is long enough. */
async function walk(
  tx: Transaction<DB>,
  deps: EngineDeps,
  start: WorkflowRunRow,
  version: WorkflowVersionRow,
  from: string | null,
  pending: PendingTap | null = null,
  contact?: ContactRow,
): Promise<void> {
  let run = start;
  const base = await blockContext(tx, deps, run, version, from ?? 'root', {}, contact);
  if (!base) return finish(tx, deps, run, 'failed', { code: 'contact_not_found', message: 'The contact is gone.' });
  const nodes = version.graph.nodes as Record<string, Node>;
  const visits = { ...run.visits };
  const trigger = { ...run.trigger_context };
  let stepCount = run.step_count;
  let pendingTap = pending;
  const memo: WorkflowSendMemo = { contact: base.contact };

  const send = async (body: SchemaSendMessageRequest): Promise<WorkflowSendResult> => {
    if (trigger.private_reply === 'sent')
      return {
        sent: false,
        code: 'private_reply_limit',
        message: 'The channel accepts one private reply per comment until the contact answers.',
      };
    const privateReplyTo = trigger.private_reply === 'pending' ? (trigger.message_id ?? null) : null;
    const result = await sendFromWorkflow(tx, deps, {
      account: base.account,
      contactId: run.contact_id,
      workflow: base.workflow,
      body,
      privateReplyTo,
      memo,
    });
    if (result.sent && privateReplyTo) {
      trigger.private_reply = 'sent';
      if (trigger.interaction_type === 'comment') await publicReply(privateReplyTo);
    }
    return result;
  };
  /**
   * Part B, reply lists: after the channel accepted the first message of a run a comment on a post or reel
   * started, one reply of the trigger's list, picked at random, goes under the comment (a `public_reply` step).
   */
  const publicReply = async (commentId: string) => {
    const listId = version.trigger.replies_list_id;
    const list = listId ? await findRepliesList(tx, run.account_id, listId) : undefined;
    if (!list || list.replies.length === 0) return;
    const text = substitute(list.replies[randomInt(list.replies.length)] ?? '', base.vars.lookup);
    const result = await sendFromWorkflow(tx, deps, {
      account: base.account,
      contactId: run.contact_id,
      workflow: base.workflow,
      body: { text },
      publicReplyTo: commentId,
      memo,
    });
    stepCount += 1;
    const at = deps.clock.now().toISOString();
    await insertRunStep(tx, {
      id: randomUUID(),
      account_id: run.account_id,
      run_id: run.id,
      seq: stepCount,
      node_id: null,
      type: 'public_reply',
      status: result.sent ? 'completed' : 'failed',
      output: null,
      message_id: result.sent ? result.message.id : null,
      error: result.sent ? null : { code: result.code, message: result.message },
      started_at: at,
      ended_at: at,
    });
  };
  /** The run moved on: its wait, if any, is the one `changes` names; the buttons still open, `pendingTap`. */
  const save = (changes: Parameters<typeof updateRun>[2]) =>
    updateRun(tx, run.id, {
      visits,
      trigger_context: trigger,
      step_count: stepCount,
      updated_at: deps.clock.now().toISOString(),
      waiting_for: null,
      wait_until: null,
      wait_message_id: null,
      wait_step: null,
      tap_step: pendingTap?.step ?? null,
      tap_node_id: pendingTap?.nodeId ?? null,
      tap_message_id: pendingTap?.messageId ?? null,
      tap_until: pendingTap?.until ?? null,
      ...changes,
    });
  const noTap = { tap_step: null, tap_node_id: null, tap_message_id: null, tap_until: null };
  const tapWait = (tap: PendingTap) => ({
    node_id: tap.nodeId,
    waiting_for: 'tap' as const,
    wait_until: tap.until,
    wait_message_id: tap.messageId,
    wait_step: tap.step,
  });

  let nodeId = from;
  for (let steps = 0; ; steps += 1) {
    if (nodeId === null) {
      if (pendingTap) {
        // The branch after the send ended: the run waits for the tap alone.
        run = await save({ status: 'waiting', ...tapWait(pendingTap), ...noTap });
        return;
      }
      run = await save({});
      return finish(tx, deps, run, 'completed');
    }
    if (steps >= MAX_STEPS_PER_STRETCH) {
      run = await save({ status: 'running', node_id: nodeId });
      return scheduleAdvance(tx, deps, run, { kind: 'continue' }, deps.clock.now());
    }
    const node = nodes[nodeId];
    const now = deps.clock.now();
    const at = now.toISOString();
    const type = typeof node?.type === 'string' ? node.type : 'unknown';
    const runsOfBlock = (visits[nodeId] ?? 0) + 1;
    visits[nodeId] = runsOfBlock;
    stepCount += 1;
    const step = {
      id: randomUUID(),
      account_id: run.account_id,
      run_id: run.id,
      seq: stepCount,
      node_id: nodeId,
      type,
      started_at: at,
      message_id: null as string | null,
    };
    if (runsOfBlock > MAX_BLOCK_RUNS) {
      const error = { code: 'loop_limit', message: `The block ${nodeId} ran ${MAX_BLOCK_RUNS} times in this run.` };
      await insertRunStep(tx, { ...step, status: 'failed', output: null, error, ended_at: at });
      run = await save({ node_id: nodeId });
      return finish(tx, deps, run, 'stopped');
    }
    const executor = blockExecutor(type);
    const result: BlockResult = node
      ? await executor({
          ...base,
          run,
          now,
          nodeId,
          data: node.data ?? {},
          send,
        })
      : { failed: { code: 'node_not_found', message: `The graph has no block ${nodeId}.` }, end: 'failed' };
    const messageId = 'messageId' in result ? (result.messageId ?? null) : null;

    if ('next' in result) {
      await insertRunStep(tx, {
        ...step,
        status: 'completed',
        output: result.next,
        message_id: messageId,
        error: null,
        ended_at: at,
      });
      nodeId = nextOf(node, result.next);
      continue;
    }
    if ('wait' in result) {
      // The step waits for the contact (question, buttons), or runs (a sleep or a child in its wait).
      await insertRunStep(tx, {
        ...step,
        status: result.wait === 'answer' || result.wait === 'tap' ? 'waiting' : 'running',
        output: null,
        message_id: messageId,
        error: null,
        ended_at: null,
      });
      const until = result.until.toISOString();
      if (result.thenOutput !== undefined) {
        pendingTap = { step: stepCount, nodeId, messageId, until };
        await scheduleAdvance(tx, deps, run, { kind: 'expire', step: stepCount }, result.until);
        nodeId = nextOf(node, result.thenOutput);
        continue;
      }
      const contactWait = result.wait === 'answer' || result.wait === 'tap';
      run = await save({
        status: contactWait ? 'waiting' : 'running',
        node_id: nodeId,
        waiting_for: result.wait,
        wait_until: until,
        wait_message_id: messageId,
        wait_step: stepCount,
      });
      if (result.wait === 'timer')
        await scheduleAdvance(tx, deps, run, { kind: 'timer', step: stepCount }, result.until);
      if (contactWait || result.wait === 'child')
        await scheduleAdvance(tx, deps, run, { kind: 'expire', step: stepCount }, result.until);
      return;
    }
    if ('end' in result && !('failed' in result)) {
      await insertRunStep(tx, {
        ...step,
        status: 'completed',
        output: null,
        message_id: messageId,
        error: null,
        ended_at: at,
      });
      run = await save({ node_id: nodeId });
      return finish(tx, deps, run, result.end);
    }
    // Failed: the branch follows the failure output when the block has one, else the run ends.
    await insertRunStep(tx, {
      ...step,
      status: 'failed',
      output: result.output ?? null,
      message_id: messageId,
      error: result.failed,
      ended_at: at,
    });
    if (result.output !== undefined) {
      nodeId = nextOf(node, result.output);
      continue;
    }
    run = await save({ node_id: nodeId });
    return finish(tx, deps, run, result.end ?? 'stopped');
  }
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
export async function runStopRunsJob(job: ClaimedJob, ctx: JobContext, deps: EngineDeps): Promise<void> {
  const { workflow_id } = job.payload as { workflow_id: string };
  await ctx.db.transaction().execute(async (tx) => {
    if (job.accountId)
      for (const { id } of await selectActiveRunsOfWorkflow(tx, job.accountId, workflow_id)) {
        const run = await lockRun(tx, id);
        if (run && !run.ended_at) await finish(tx, deps, run, 'stopped');
      }
    await ctx.complete(tx);
  });
}
