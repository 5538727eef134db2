// invoke (Part B): the `workflow.invoke` job, one attempt of a block's call. The stretch that ran the block
// committed (the run waits, `waiting_for: 'call'`); this job holds no transaction and no database connection
// while the request waits:
//
// 1. before calling, the attempt is counted so that a crash after the call makes it again as the next attempt,
//    and no more than 3 are ever made. The job knows its attempt (`payload.attempt`): on its first claim the
//    call is as the block wrote it — handed over in memory by the process that committed it (handover.ts), or
//    else found by one read still pending with its run waiting for it — and the count is written with the
//    answer (step 3); claimed again (a crash or a fault after the call, maybe), it counts its attempt as made in
//    a short transaction first, as a job without `attempt` (written before it) always does. The secrets the
//    request names are read then;
// 2. the request, with no database;
// 3. a short transaction records it: a 429, a 5xx or a network error with attempts left enqueues the next
//    attempt later on the clock; otherwise the call is done and the run is woken (`call` wake) in the same
//    transaction (the run and the call locked, the call ended and its step closed, all in one statement; the
//    ended call passed on, not read again), which copies the answer's fields and runs the run's next stretch; the
//    job completes with it (`lease.complete`).
//
// A run that ended meanwhile (its automation deleted) or moved on (its wait's bound passed) cancels the call.
import type { Kysely, Transaction } from 'kysely';
import { committing } from '../../commit.js';
import { advanceRun } from '../../runs.js';
import type { EngineDeps } from '../../context.js';
import { INVOKE_JOB, type JobOf } from '../../../job-kinds.js';
import { INVOKE_MAX_ATTEMPTS, invokeRetryDelayMs, type Random } from '../../../retries.js';
import {
  endCallClosingStep,
  findCallAndRun,
  lockInvokeCall,
  lockRunAndCall,
  selectSecretsNamed,
  updateInvokeCall,
  type InvokeCallChanges,
  type InvokeCallRow,
} from '../../../store/invoke-calls.js';
import { enqueue, type JobLease } from '../../../store/jobs.js';
import type { DB } from '../../../store/schema.js';
import { lockRun, type WorkflowRunRow } from '../../../store/workflow-runs.js';
import type { TargetPolicy } from '../../../webhooks/targets.js';
import { secretNames } from './evaluate.js';
import type { FieldPathEvaluator } from './field-evaluator.js';
import { handedCall } from './handover.js';
import { attemptCall, excerptOf, type AttemptOutcome, type SecretValue } from './http.js';
import { endOfDoneCall, stepCloseOf } from './outcome.js';

export interface InvokeDeps extends EngineDeps {
  /** The address rules (config.invokeDevTargets). */
  targets: TargetPolicy;
  /** Reads the answer's fields off the event loop, within a budget (server/services.ts). */
  fieldPaths: FieldPathEvaluator;
  /** Tests: a short attempt deadline instead of 60 s. */
  timeoutMs?: number;
  /** Where a retry's wait is drawn (the jobs worker's source, server/retries.ts). */
  random: Random;
}

/** What an attempt found before calling. */
interface Begun {
  call: InvokeCallRow;
  attempt: number;
  secrets: SecretValue[];
}

const RETRIED = new Set(['timeout', 'dns_failed', 'connection_failed']);
const retried = (o: AttemptOutcome) =>
  o.status === 429 || (o.status !== null && o.status >= 500) || RETRIED.has(o.error ?? '');

export async function runInvokeJob(job: JobOf<typeof INVOKE_JOB>, lease: JobLease, deps: InvokeDeps): Promise<void> {
  const { call_id: callId, attempt } = job.payload;
  const first = attempt !== undefined && job.attempts === 1;
  // Claimed again: this job's attempt may have been made before the crash or fault, so it counts as made.
  const made = first ? 0 : (attempt ?? 0);
  const begun =
    (first ? await look(lease.db, callId, attempt, handedCall(job)) : null) ??
    (await lease.db.transaction().execute((tx) => begin(tx, lease, deps, callId, made)));
  if (!begun) return;
  const { call } = begun;
  const outcome = await attemptCall({
    request: call.request,
    secrets: begun.secrets,
    idempotencyKey: `${call.run_id}:${call.step}`,
    policy: deps.targets,
    ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}),
  });
  deps.logger?.debug(
    { call: call.id, run: call.run_id, attempt: begun.attempt, status: outcome.status, error: outcome.error },
    'invoke attempt',
  );
  const answered = { ...outcome, values: await answerFields(deps, call, outcome) };
  // The run's next stretch runs in it: an invoke block there is called at once after the commit (engine/commit.ts).
  await committing(lease.db, deps, (tx, deps) => record(tx, lease, deps, begun, answered));
}

/** The fields of a 2xx answer, read before any transaction; none when it is not JSON (still the success output). */
async function answerFields(deps: InvokeDeps, call: InvokeCallRow, outcome: AttemptOutcome): Promise<FieldValues> {
  if (outcome.error !== null || call.request.fields.length === 0) return null;
  const reading = await deps.fieldPaths.read(call.request.fields, outcome.body ?? '');
  if (reading.refused)
    deps.logger?.warn(
      { call: call.id, run: call.run_id, account: call.account_id, fields: reading.refused },
      'invoke fields not copied: their paths are not RFC 9535 JSONPath (saved before validation refused them)',
    );
  if (reading.status !== 'read')
    deps.logger?.warn(
      { call: call.id, run: call.run_id, account: call.account_id, reading: reading.status },
      'invoke fields not read: the paths went over their budget or their worker failed; nothing copied',
    );
  return reading.values;
}

/** The values an answer's fields take (null: nothing to copy). */
type FieldValues = Record<string, string> | null;
/** An attempt's outcome with the fields its answer gives (read before the transaction that records it). */
type Answered = AttemptOutcome & { values: FieldValues };

type RunState = Pick<WorkflowRunRow, 'ended_at' | 'waiting_for' | 'wait_step'>;

/** The run waits for this call: not ended, waiting for a call at its step. */
const waitsFor = <R extends RunState>(run: R | undefined, call: InvokeCallRow): run is R =>
  run !== undefined && !run.ended_at && run.waiting_for === 'call' && run.wait_step === call.step;

/**
 * The first claim of the job of attempt `attempt`: no write, and no read when the call was handed over (as its
 * block wrote it, committed just before). Null when the call is not as that job left it (pending, its run
 * waiting for it, `attempt - 1` attempts made): the locked path below decides.
 */
async function look(
  db: Kysely<DB>,
  callId: string,
  attempt: number,
  handed: InvokeCallRow | undefined,
): Promise<Begun | null> {
  const call = handed ?? (await pendingCall(db, callId));
  if (!call || call.attempts !== attempt - 1) return null;
  const secrets = await selectSecretsNamed(db, call.account_id, secretNames(call.request));
  return { call: { ...call, attempts: attempt }, attempt, secrets };
}

/** The call, when it is still pending and its run waits for it. */
async function pendingCall(db: Kysely<DB>, callId: string): Promise<InvokeCallRow | undefined> {
  const found = await findCallAndRun(db, callId);
  return found && found.call.status === 'pending' && waitsFor(found.run, found.call) ? found.call : undefined;
}

/** Counts the attempt before calling, under the call's lock (`made`: attempts known made, maybe not recorded). */
async function begin(
  tx: Transaction<DB>,
  lease: JobLease,
  deps: InvokeDeps,
  callId: string,
  made: number,
): Promise<Begun | null> {
  const now = deps.clock.now().toISOString();
  const call = await lockInvokeCall(tx, callId);
  if (!call || call.status !== 'pending') {
    await lease.complete(tx);
    return null;
  }
  const run = await lockRun(tx, call.run_id);
  if (!waitsFor(run, call)) {
    await updateInvokeCall(tx, call.id, { status: 'cancelled', updated_at: now });
    await lease.complete(tx);
    return null;
  }
  const counted = Math.max(call.attempts, made);
  if (counted >= INVOKE_MAX_ATTEMPTS) {
    // Every attempt was made (the last one's record was lost in a crash): the call failed.
    await finishCall(tx, lease, deps, run, call, { output: 1, error: 'connection_failed' }, { attempts: counted });
    return null;
  }
  const attempt = counted + 1;
  await updateInvokeCall(tx, call.id, { attempts: attempt, updated_at: now });
  const secrets = await selectSecretsNamed(tx, call.account_id, secretNames(call.request));
  return { call: { ...call, attempts: attempt }, attempt, secrets };
}

/** Records the attempt: the next one later on the clock, or the call's end and the run woken. */
async function record(tx: Transaction<DB>, lease: JobLease, deps: InvokeDeps, begun: Begun, outcome: Answered) {
  if (!(retried(outcome) && begun.attempt < INVOKE_MAX_ATTEMPTS) && (await endAtOnce(tx, lease, deps, begun, outcome)))
    return;
  const now = deps.clock.now();
  const locked = await lockRunAndCall(tx, begun.call.id);
  // The request and the call's place never change; its status, count and time may have.
  const call = locked && { ...begun.call, ...locked.call };
  const run = locked?.run;
  if (!call || call.status !== 'pending' || !waitsFor(run, call)) {
    if (call?.status === 'pending')
      await updateInvokeCall(tx, call.id, { status: 'cancelled', updated_at: now.toISOString() });
    return lease.complete(tx);
  }
  // The attempt's count is written here when its first claim made it without a write first.
  const attempts = Math.max(call.attempts, begun.attempt);
  const seen = {
    attempts,
    response_status: outcome.status,
    excerpt: excerptOf(outcome.body, outcome.sent),
    duration_ms: call.duration_ms + outcome.durationMs,
  };
  if (retried(outcome) && attempts < INVOKE_MAX_ATTEMPTS) {
    await updateInvokeCall(tx, call.id, { ...seen, updated_at: now.toISOString() });
    const delay = invokeRetryDelayMs(attempts, deps.random);
    await enqueue(tx, deps.clock, {
      kind: INVOKE_JOB,
      accountId: call.account_id,
      payload: { call_id: call.id, attempt: attempts + 1 },
      runAt: new Date(now.getTime() + delay),
    });
    return lease.complete(tx);
  }
  await finishCall(tx, lease, deps, run, call, endOf(outcome), seen);
}

/** How the call ends on this answer: its output, its error, the fields the answer gives. */
function endOf(outcome: Answered): CallEnding {
  const ok = outcome.error === null;
  return { output: ok ? 0 : 1, error: outcome.error, values: ok ? outcome.values : null };
}

/**
 * The common case, the last attempt recorded (not one to retry): the call's end and its step's close in one
 * statement with the locks (store/invoke-calls.ts endCallClosingStep), then the run woken. False when the call
 * is not as this attempt knew it or its run no longer waits for it: the locked path below decides.
 */
async function endAtOnce(tx: Transaction<DB>, lease: JobLease, deps: InvokeDeps, begun: Begun, outcome: Answered) {
  const now = deps.clock.now().toISOString();
  const { call } = begun;
  const changes = callEndChanges(endOf(outcome), {
    attempts: begun.attempt,
    response_status: outcome.status,
    excerpt: excerptOf(outcome.body, outcome.sent),
    duration_ms: call.duration_ms + outcome.durationMs,
    now,
  });
  const ended = { ...call, ...changes };
  const close = stepCloseOf(endOfDoneCall(ended), now);
  const result = await endCallClosingStep(tx, call.id, call, changes, close);
  if (!result?.ended) return false;
  await advanceRun(
    tx,
    deps,
    result.run,
    { kind: 'call', step: call.step, output: changes.output },
    { call: ended, callStepClosed: true },
  );
  await lease.complete(tx);
  return true;
}

const MESSAGES: Record<string, string> = {
  timeout: 'The endpoint did not answer within the attempt’s time.',
  dns_failed: 'The endpoint’s host name did not resolve.',
  connection_failed: 'The connection to the endpoint failed.',
  tls_failed: 'The endpoint’s TLS certificate or handshake was refused.',
  unsafe_target: 'The address is private, loopback, link-local or reserved: refused.',
  too_many_redirects: 'The endpoint redirected more than 5 times.',
  http_status: 'The endpoint answered with a status outside 2xx.',
};

/** How a call ends: its output, the error's code, the fields the answer gives. */
interface CallEnding {
  output: number;
  error: string | null;
  values?: Record<string, string> | null;
}

/** The call's row once done: the last attempt's figures (`seen`) and the end. */
function callEndChanges(end: CallEnding, seen: Omit<InvokeCallChanges, 'updated_at'> & { now: string }) {
  const { now, ...figures } = seen;
  const error = end.error ? { code: end.error, message: MESSAGES[end.error] ?? 'The call failed.' } : null;
  return {
    ...figures,
    status: 'done',
    output: end.output,
    error,
    field_values: end.values ?? null,
    updated_at: now,
  } satisfies InvokeCallChanges;
}

/** The call is done: its outcome on the row (with `seen`, the last attempt's), and the run woken in this transaction. */
async function finishCall(
  tx: Transaction<DB>,
  lease: JobLease,
  deps: InvokeDeps,
  run: WorkflowRunRow,
  call: InvokeCallRow,
  end: CallEnding,
  seen: Omit<InvokeCallChanges, 'updated_at'>,
) {
  const changes = callEndChanges(end, { ...seen, now: deps.clock.now().toISOString() });
  await updateInvokeCall(tx, call.id, changes);
  await advanceRun(
    tx,
    deps,
    run,
    { kind: 'call', step: call.step, output: end.output },
    { call: { ...call, ...changes } },
  );
  await lease.complete(tx);
}
