// Whether a run's wake finds the run waiting for it: the engine's guard before it moves a run (engine/runs.ts
// runAdvanceJob and wakeUp) and the sandbox's list of what waits on the clock (domain/sandbox/waits.ts) ask the
// same question, so it is answered here once. Neutral ground, like job-kinds.ts: pure, it imports no room.

/** What of a run the answer depends on. */
export interface RunWaitState {
  status: string;
  ended_at: Date | string | null;
  waiting_for: string | null;
  wait_step: number | null;
  step_count: number;
  tap_step: number | null;
}

/** A wake as its job carries it: its kind and, for a timed one, the step it was set at. */
export interface WakeAt {
  kind: string;
  step?: number;
}

/**
 * Whether `wake` would move the run, not ended, as it stands. A timed wake (timer, expire, call, send) moves it
 * only while it still waits for that at the wake's step, so a wait that ended another way leaves a stale job that
 * does nothing. An answer, a tap, a resume, a link or a handoff: the run's own rules decide.
 */
export function wakeFindsWait(wake: WakeAt, run: RunWaitState): boolean {
  const waitStep = run.wait_step ?? run.step_count;
  const waitsAt = (what: string) => run.waiting_for === what && waitStep === wake.step;
  switch (wake.kind) {
    case 'start':
      return run.status === 'queued';
    case 'continue':
      return run.waiting_for === null;
    case 'timer':
      return waitsAt('timer');
    case 'expire':
      // The question or buttons the run waits at, or buttons still open while their after-send branch runs.
      return run.tap_step === wake.step || waitsAt('answer') || waitsAt('tap');
    case 'child':
      return run.waiting_for === 'child';
    case 'call':
      return waitsAt('call');
    case 'send':
      return waitsAt('send');
    default:
      return true;
  }
}

/**
 * Whether the `workflow.advance` job of `wake` would move its run: an ended run moves only for a link's open (a
 * stopped run's tracked link still leads on); one not ended, as `wakeFindsWait` says.
 */
export function advanceJobMovesRun(wake: WakeAt, run: RunWaitState): boolean {
  if (run.ended_at !== null) return wake.kind === 'link';
  return wakeFindsWait(wake, run);
}
