// invoke (Part B): what the step gets when its call ended, in the run's transaction (engine/runs.ts, the `call`
// wake): the answer's fields copied into the contact through the contacts domain (history and
// contact.custom_fields_updated, as the `data` block writes), the step's error and its `call` details.
import type { Transaction } from 'kysely';
import { writeField } from '../field-write.js';
import type { RunContext, StepError } from '../../context.js';
import { findInvokeCallOfStep, updateInvokeCall, type InvokeCallRow } from '../../../store/invoke-calls.js';
import type { DB, WorkflowRunStepCall } from '../../../store/schema.js';
import type { CallClose, WaitedCall } from '../entry.js';

export interface CallEnd {
  output: number;
  error: StepError | null;
  call: WorkflowRunStepCall | null;
  /** The fields copied (key → value): later blocks read them. */
  written: Record<string, string>;
}

const EXPIRED: StepError = { code: 'call_expired', message: 'The call did not finish within 10 minutes.' };

/** What the step records of its call: none before any attempt was made. */
function detailsOf(call: InvokeCallRow): WorkflowRunStepCall | null {
  return call.attempts > 0
    ? {
        method: call.request.method,
        host: hostOf(call.request.url),
        status: call.response_status,
        attempts: call.attempts,
        duration_ms: call.duration_ms,
        response_excerpt: call.excerpt,
      }
    : null;
}

/** The step's end for a call its job ended (`done`): the call's output (else `output`), its error, its details. */
export function endOfDoneCall(call: InvokeCallRow, output = 1): Omit<CallEnd, 'written'> {
  return { output: call.output ?? output, error: call.error, call: detailsOf(call) };
}

/** How the step closes on the call's end (engine/runs.ts, or the call's job in one statement with the call's write). */
export function stepCloseOf(end: Omit<CallEnd, 'written'>, endedAt: string) {
  return {
    status: end.error ? ('failed' as const) : ('completed' as const),
    output: end.output,
    ended_at: endedAt,
    ...(end.error ? { error: end.error } : {}),
    ...(end.call ? { call: end.call } : {}),
  };
}

/**
 * The call of step `step` ended with `output` (or its bound passed while it was still pending). `context` is
 * read only when the answer has fields to copy (most calls have none: the stretch that follows reads it anyway).
 * `ended`: the call as its job just recorded it in this transaction (else it is read).
 */
export async function endCall(
  tx: Transaction<DB>,
  context: () => Promise<RunContext | undefined>,
  now: string,
  runId: string,
  step: number,
  output: number,
  ended?: InvokeCallRow,
): Promise<CallEnd> {
  const call = ended ?? (await findInvokeCallOfStep(tx, runId, step));
  if (!call) return { output: 1, error: EXPIRED, call: null, written: {} };
  if (call.status !== 'done') {
    // The bound passed first: the job that may still come finds the call cancelled and makes no request.
    await updateInvokeCall(tx, call.id, { status: 'cancelled', output: 1, error: EXPIRED, updated_at: now });
    return { output: 1, error: EXPIRED, call: detailsOf(call), written: {} };
  }
  const written: Record<string, string> = {};
  const values = call.output === 0 ? Object.entries(call.field_values ?? {}) : [];
  const ctx = values.length > 0 ? await context() : undefined;
  if (ctx)
    for (const [key, value] of values) {
      // A field the account no longer has, or a value its type refuses, is skipped: the answer was a success.
      if ((await writeField(ctx, key, value)) === null) written[key] = value;
    }
  return { ...endOfDoneCall(call, output), written };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** invoke's entry (engine/blocks/entry.ts): the step's end when its call ended, and how the step closes on it. */
export async function onCallEnd(waited: WaitedCall): Promise<CallClose> {
  const { tx, context, now, runId, step, output, ended } = waited;
  const end = await endCall(tx, context, now, runId, step, output, ended);
  return { output: end.output, close: stepCloseOf(end, now), written: end.written };
}
