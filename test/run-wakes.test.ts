// The one guard of a run's wake (server/run-wakes.ts), which the engine and the sandbox's waits both ask.
import { describe, expect, it } from 'vitest';
import { advanceJobMovesRun, wakeFindsWait, type RunWaitState } from '../server/run-wakes.js';

const running: RunWaitState = {
  status: 'running',
  ended_at: null,
  waiting_for: null,
  wait_step: null,
  step_count: 3,
  tap_step: null,
};

describe('a run wake finds the run waiting', () => {
  it('moves a timed wait only at its own step and only while the run waits for that', () => {
    const sleeping = { ...running, waiting_for: 'timer', wait_step: 2 };
    expect(wakeFindsWait({ kind: 'timer', step: 2 }, sleeping)).toBe(true);
    expect(wakeFindsWait({ kind: 'timer', step: 1 }, sleeping)).toBe(false);
    expect(wakeFindsWait({ kind: 'call', step: 2 }, sleeping)).toBe(false);
    // Without a wait step the run waits at its last step.
    expect(wakeFindsWait({ kind: 'send', step: 3 }, { ...running, waiting_for: 'send' })).toBe(true);
  });

  it('expires the question or buttons waited at, and buttons still open behind another wait', () => {
    const asking = { ...running, waiting_for: 'answer', wait_step: 2 };
    expect(wakeFindsWait({ kind: 'expire', step: 2 }, asking)).toBe(true);
    expect(wakeFindsWait({ kind: 'expire', step: 2 }, running)).toBe(false);
    expect(wakeFindsWait({ kind: 'expire', step: 2 }, { ...running, waiting_for: 'timer', tap_step: 2 })).toBe(true);
  });

  it('starts a queued run only, continues one that waits for nothing, and leaves answers to the run', () => {
    expect(wakeFindsWait({ kind: 'start' }, { ...running, status: 'queued' })).toBe(true);
    expect(wakeFindsWait({ kind: 'start' }, running)).toBe(false);
    expect(wakeFindsWait({ kind: 'continue' }, { ...running, waiting_for: 'child' })).toBe(false);
    expect(wakeFindsWait({ kind: 'child' }, { ...running, waiting_for: 'child' })).toBe(true);
    expect(wakeFindsWait({ kind: 'answer' }, running)).toBe(true);
  });

  it('moves an ended run for a link only', () => {
    const ended = { ...running, status: 'stopped', ended_at: '2026-01-01T00:00:00.000Z' };
    expect(advanceJobMovesRun({ kind: 'link' }, ended)).toBe(true);
    expect(advanceJobMovesRun({ kind: 'tap' }, ended)).toBe(false);
    expect(advanceJobMovesRun({ kind: 'continue' }, ended)).toBe(false);
    expect(advanceJobMovesRun({ kind: 'continue' }, running)).toBe(true);
  });
});
